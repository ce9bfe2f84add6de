package runtime

import (
	"context"
	"fmt"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// readHandler runs a read tool: decode -> validate -> enrich -> handler ->
// respond. A read changes nothing, so it takes no client_request_id and no
// dry_run (both are unknown fields), never touches the idempotency store,
// and is never confirmed or proposed; the policy hook is not asked. Errors
// are answered with the same envelope as a write's. The pipeline is
// readCall (resource_read.go), which MCP resources share.
func (r *registry) readHandler(wt *boundTool) toolcall.Handler {
	return func(ctx context.Context, req *toolcall.Request) (*toolcall.Result, error) {
		res, _ := r.readCall(ctx, wt, req)
		return res, nil
	}
}

// readCall runs a read tool: decode -> validate -> enrich -> handler ->
// respond (readHandler), and also hands back the handler's response.
func (r *registry) readCall(ctx context.Context, wt *boundTool, req *toolcall.Request) (*toolcall.Result, proto.Message) {
	// The front half, as for a write: request context, decode (a read
	// tool has no control arguments), validate, enrich, request check.
	c := &call{r: r, wt: wt, ctx: ctx, req: req, raw: arguments(req)}
	s := impl.GetScratch()
	defer s.Release()
	if es := c.begin(nil, s); len(es) > 0 {
		return c.fail(es), nil
	}
	ctx, name := c.ctx, c.name()
	m, es, _ := c.prepare(s)
	if len(es) > 0 {
		return r.ans.errorResult(ctx, name, m, es), nil
	}
	resp, err := wt.bind.Invoke(ctx, m)
	if err != nil {
		es, _ := r.ans.classify(ctx, name, err)
		return r.ans.errorResult(ctx, name, m, es), nil
	}
	o, err := successEnvelope(resp, wt.doc.Result, wt.steps, []impl.Warning{}, r.ans.shape.enums, r.ans.shape)
	if err != nil {
		return r.ans.errorResult(ctx, name, m, impl.Errors{r.ans.internal(ctx, name, fmt.Errorf("marshal response: %w", err))}), nil
	}
	return toolResult(r.ans.render(ctx, name, o), false), resp
}
