package runtime_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/callmeta"
)

// Correlation and causation ids from _meta that are not 1-128 bytes of
// A-Z a-z 0-9 . _ : / + = @ - never reach the answer or the log: a server
// id replaces each, and the log says so without repeating the value.
func TestInvalidMetaIDsAreReplacedAndLogged(t *testing.T) {
	hostile := map[string]string{
		"CR/LF":  "corr-1\r\nX-Injected: yes",
		"NUL":    "corr\x00-1",
		"100 kB": strings.Repeat("A", 100<<10),
		"U+202E": "corr-\u202e1-gnp.exe",
	}
	hexID := regexp.MustCompile(`^[0-9a-f]{32}$`)
	for name, v := range hostile {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{opts: []runtime.Option{
				runtime.WithRequestContextFunc(runtime.StaticRequestContext(runtime.RequestContext{TenantID: "acme", PrincipalID: "alice"})),
			}})
			h.seedNote("n1")
			params := &mcp.CallToolParams{Name: "delete_note", Arguments: json.RawMessage(`{"id":"n1","dry_run":true}`),
				Meta: mcp.Meta{callmeta.MetaCorrelationID: v, callmeta.MetaCausationID: v}}
			res, err := h.cs.CallTool(context.Background(), params)
			if err != nil {
				t.Fatal(err)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			// A dry run's preview shows the enriched request the domain
			// would receive, meta included.
			corr := field(t, text, "preview.request.meta.correlation_id")
			if res.IsError || !hexID.MatchString(corr) {
				t.Fatalf("correlation id in the answer %q, want a server id:\n%.300s", corr, text)
			}
			logs := h.logs()
			for _, f := range []string{"correlation_id", "causation_id"} {
				if !strings.Contains(logs, `msg="mcpwrite: invalid `+f+` replaced by a server id" field=`+f) {
					t.Errorf("no log line for %s:\n%.2000s", f, logs)
				}
			}
			if !strings.Contains(logs, "replacement="+corr) {
				t.Errorf("the log does not name the replacement %s:\n%.2000s", corr, logs)
			}
			for _, bad := range []string{"X-Injected", "\u202e", "gnp.exe", strings.Repeat("A", 200), "corr\x00", `corr\x00`} {
				if strings.Contains(logs, bad) || strings.Contains(text, bad) {
					t.Errorf("the refused value (%q) reached the log or the answer", bad)
				}
			}
		})
	}
}
