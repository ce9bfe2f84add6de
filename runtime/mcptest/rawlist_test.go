package mcptest_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

func TestRawToolsListReturnsTheServersBytes(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "raw", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "ping", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	got := string(mcptest.RawToolsList(t, s))
	want := `{"ttlMs":0,"cacheScope":"public","tools":[{"inputSchema":{"type":"object"},"name":"ping"}]}`
	if got != want {
		t.Errorf("tools/list bytes\n got %s\nwant %s", got, want)
	}
}
