package archimate_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpgo"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// The mcp-go stack archimate-server -sdk mcp-go -http serves: stateless
// streamable HTTP, identity from the bearer token, the same answers.
func TestMCPGoStatelessHTTPTakesIdentityFromTheBearerToken(t *testing.T) {
	repo := domain.New()
	s, err := server.NewMCPGo(repo, runtime.WithRequestContextFunc(mcpgo.RequestContextFromCall))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(server.MCPGoHTTPHandler(s, map[string]server.Identity{"tok-acme": {Tenant: "tenant-acme", Principal: "user-ada"}}))
	t.Cleanup(ts.Close)

	if _, err := httpSession(t, ts.URL, bearer{token: "wrong"}); err == nil {
		t.Fatal("a session with an unknown token was accepted")
	}
	cs, err := httpSession(t, ts.URL, bearer{token: "tok-acme", headers: map[string]string{"X-Correlation-Id": "corr-mcpgo-1"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "createElement", Arguments: json.RawMessage(`{"type":"Node","name":"db-1"}`)})
	if err != nil || res.IsError {
		t.Fatalf("call: err=%v result=%v", err, res)
	}
	el := res.StructuredContent.(map[string]any)["element"].(map[string]any)
	if el["model_id"] != "model-tenant-acme-main" || el["layer"] != "Technology" || el["name"] != "db-1" {
		t.Fatalf("element = %v", el)
	}
	meta := repo.Received()[0].(*archimatev1.CreateElementRequest).GetMeta()
	if meta.GetTenantId() != "tenant-acme" || meta.GetPrincipalId() != "user-ada" || meta.GetCorrelationId() != "corr-mcpgo-1" {
		t.Fatalf("meta = tenant %q principal %q correlation %q", meta.GetTenantId(), meta.GetPrincipalId(), meta.GetCorrelationId())
	}
	// A cross-origin request is refused before it reaches the SDK.
	req := httptest.NewRequest("POST", ts.URL, nil)
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	w := httptest.NewRecorder()
	server.MCPGoHTTPHandler(s, nil).ServeHTTP(w, req)
	if w.Code != 403 {
		t.Fatalf("cross-origin POST: HTTP %d, want 403", w.Code)
	}
}

func TestServerBinaryOverStdioOnMCPGo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary")
	}
	bin := serverBinary(t)
	if out, err := exec.Command(bin, "-sdk", "mcp-sdk").CombinedOutput(); err == nil || !strings.Contains(string(out), `-sdk "mcp-sdk": want go-sdk or mcp-go`+"\n") {
		t.Fatalf("-sdk mcp-sdk: err=%v output %q", err, out)
	}
	client := mcptest.NewClient(t, &mcp.Implementation{Name: "stdio-e2e", Version: "test"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: exec.Command(bin, "-sdk", "mcp-go", "-tenant", "tenant-stdio", "-principal", "user-stdio")}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 14 {
		t.Fatalf("tools/list: err=%v n=%d", err, len(tools.Tools))
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "createElement", Arguments: json.RawMessage(`{"type":"Capability","name":"Fulfillment"}`)})
	if err != nil || res.IsError {
		t.Fatalf("call: err=%v result=%v", err, res)
	}
	el := res.StructuredContent.(map[string]any)["element"].(map[string]any)
	if el["model_id"] != "model-tenant-stdio-main" || el["layer"] != "Strategy" {
		t.Fatalf("element = %v", el)
	}
}
