package archimate_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// Hostile correlation and causation ids in a call's _meta never reach the
// domain service through either client adapter: each is replaced by a
// server id before the adapter sends X-Correlation-Id / X-Causation-Id.
func TestClientAdaptersNeverForwardInvalidMetaIDs(t *testing.T) {
	hostile := map[string]string{
		"CR/LF":  "corr-1\r\nX-Injected: yes",
		"NUL":    "corr\x00-1",
		"100 kB": strings.Repeat("A", 100<<10),
		"U+202E": "corr-\u202e1",
	}
	serverID := regexp.MustCompile(`^[0-9a-f]{32}$`)
	for name, adapter := range remoteAdapters {
		for what, v := range hostile {
			t.Run(name+"/"+what, func(t *testing.T) {
				repo, seen := domain.New(), &traceSeen{}
				server := mcp.NewServer(&mcp.Implementation{Name: "archimate-gateway", Version: "test"}, nil)
				if err := archimatev1mcpwrite.RegisterArchitectureServiceTools(server, adapter(t, repo, seen),
					runtime.WithRequestContextFunc(runtime.StaticRequestContext(runtime.RequestContext{TenantID: "tenant-acme", PrincipalID: "user-ada"}))); err != nil {
					t.Fatal(err)
				}
				cs := mcptest.Connect(t, server, mcptest.Options{})
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "createElement",
					Arguments: json.RawMessage(`{"type":"DataObject","name":"Invoice"}`),
					Meta:      mcp.Meta{"io.mcpwrite/correlation_id": v, "io.mcpwrite/causation_id": v}})
				if err != nil || res.IsError {
					t.Fatalf("createElement: %v %v", err, res)
				}
				if len(seen.calls) != 1 {
					t.Fatalf("the service saw %d calls, want 1", len(seen.calls))
				}
				got := seen.calls[0]
				if !serverID.MatchString(got["x-correlation-id"]) || !serverID.MatchString(got["x-causation-id"]) {
					t.Fatalf("the service saw x-correlation-id %.60q and x-causation-id %.60q, want server ids", got["x-correlation-id"], got["x-causation-id"])
				}
			})
		}
	}
}
