package runtime

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// readHandler runs a read tool: decode -> validate -> enrich -> handler ->
// respond. A read changes nothing, so it takes no client_request_id and no
// dry_run (both are unknown fields), never touches the idempotency store,
// and is never confirmed or proposed; the policy hook is not asked. Errors
// are answered with the same envelope as a write's. The pipeline is
// readCall (resource_read.go), which MCP resources share.
func (r *registry) readHandler(wt *boundTool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, _ := r.readCall(ctx, wt, req)
		return res, nil
	}
}
