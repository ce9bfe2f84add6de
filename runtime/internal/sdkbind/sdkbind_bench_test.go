package sdkbind

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
)

// BenchmarkBinding measures what serving a neutral handler on go-sdk adds
// to one call: the same handler, answering the same envelope, called
// directly with a neutral request (direct) and through Handler with the
// go-sdk request a server hands it (gosdk).
func BenchmarkBinding(b *testing.B) {
	body := []byte(`{"success":true,"result":{"name":"tasks/1","title":"Buy milk"}}`)
	h := func(_ context.Context, req *toolcall.Request) (*toolcall.Result, error) {
		return &toolcall.Result{Content: []string{string(body)}, StructuredContent: body}, nil
	}
	args := json.RawMessage(`{"title":"Buy milk","client_request_id":"k-1"}`)
	meta := map[string]any{"progressToken": "p-1"}
	ctx := context.Background()
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			req := &toolcall.Request{Name: "create_task", Arguments: args, Meta: meta, ProgressToken: "p-1"}
			if _, err := h(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gosdk", func(b *testing.B) {
		b.ReportAllocs()
		sh := Handler(h)
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "create_task", Arguments: args, Meta: mcp.Meta(meta)}}
		for b.Loop() {
			if _, err := sh(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	})
}
