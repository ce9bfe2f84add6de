package mcphttp

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/httpfront"
)

// Behind the SDK-neutral httpfront.BearerAuth, Handler still gives go-sdk
// the verified identity: a call acts for its token's tenant and principal,
// and a session stays bound to the identity that opened it.
func TestHandlerBindsSessionsBehindHTTPFrontBearerAuth(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "t"}, nil)
	s.AddTool(&mcp.Tool{Name: "whoami", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		rc, _ := RequestContextFromCall(ctx, req)
		b, _ := json.Marshal(map[string]string{"tenant": rc.TenantID, "principal": rc.PrincipalID})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
	})
	quiet := httpfront.WithLogger(slog.New(slog.DiscardHandler))
	ts := httptest.NewServer(httpfront.BearerAuth(testAuthHook, quiet)(Handler(s, fromFront(quiet))))
	defer ts.Close()

	owner := &peer{t: t, url: ts.URL, token: "tok-a-alice"}
	sid := owner.open()
	const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`
	resp := owner.send(http.MethodPost, call, nil)
	defer resp.Body.Close()
	if got := toolText(t, nextMessage(t, bufio.NewReader(resp.Body))); got != `{"principal":"alice","tenant":"tenant-a"}` {
		t.Fatalf("whoami in the owner's session: %s", got)
	}
	other := &peer{t: t, url: ts.URL, token: "tok-b-alice", session: sid}
	if code, body := other.answer(http.MethodPost, call); code != http.StatusForbidden || body != sessionMismatch {
		t.Fatalf("another identity in the session: status %d body %q, want 403 %q", code, body, sessionMismatch)
	}
}
