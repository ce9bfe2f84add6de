package runtime

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
)

// readHandler runs a read tool: decode -> validate -> enrich -> handler ->
// respond. A read changes nothing, so it takes no client_request_id and no
// dry_run (both are unknown fields), never touches the idempotency store,
// and is never confirmed or proposed; the policy hook is not asked. Errors
// are answered with the same envelope as a write's.
func (r *registry) readHandler(wt *writeTool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		name := wt.doc.Name
		rc, hasRC := r.requestContext(ctx, req)
		if hasRC {
			ctx = WithRequestContext(ctx, rc)
		}
		s := mcpwriteimpl.GetScratch()
		defer s.Release()
		body, es := r.parseArgsInto(arguments(req), s)
		if len(es) > 0 {
			return r.errorResult(ctx, name, nil, es), nil
		}
		c := r.newCall(ctx, wt, rc, hasRC)
		c.body = body
		m, es, _ := c.prepare(s)
		if len(es) > 0 {
			return r.errorResult(ctx, name, m, es), nil
		}
		resp, err := wt.bind.Invoke(ctx, m)
		if err != nil {
			es, _ := r.classify(ctx, name, err)
			return r.errorResult(ctx, name, m, es), nil
		}
		o, err := successEnvelope(resp, wt.doc.Result, r.nextSteps(wt), []mcpwriteimpl.Warning{}, r.enums, r.shape())
		if err != nil {
			return r.errorResult(ctx, name, m, Errors{r.internal(ctx, name, fmt.Errorf("marshal response: %w", err))}), nil
		}
		return toolResult(r.render(ctx, name, o), false), nil
	}
}
