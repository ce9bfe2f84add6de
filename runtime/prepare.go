package runtime

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
)

// Preparer runs a service's decode -> validate -> enrich path without MCP:
// the exact work a tool call does before idempotency, governance and the
// handler. Batch importers, gRPC gateways and benchmarks use it.
type Preparer struct{ r *registry }

// NewPreparer binds svc (as generated New<Service>Service returns it) with
// the options of Register that apply without a tool call.
func NewPreparer(svc *mcpwriteimpl.Service, opts ...PreparerOption) (*Preparer, error) {
	all := make([]Option, len(opts))
	for i, o := range opts {
		all[i] = o
	}
	r, err := newRegistry(svc, all)
	if err != nil {
		return nil, err
	}
	return &Preparer{r: r}, nil
}

// Prepare turns an agent's arguments for tool into the complete domain
// request, or every problem with them. rc is the caller's request context.
func (p *Preparer) Prepare(ctx context.Context, tool string, args []byte, rc RequestContext) (proto.Message, Errors) {
	m, es := p.prepare(ctx, tool, args, rc)
	return m, userErrors(es)
}

// prepare is Prepare in the decoder's entries.
func (p *Preparer) prepare(ctx context.Context, tool string, args []byte, rc RequestContext) (proto.Message, impl.Errors) {
	wt, ok := p.r.tools[tool]
	if !ok {
		return nil, impl.Errors{{Code: impl.CodeUnknownOperation, Message: fmt.Sprintf("unknown tool %q", tool)}}
	}
	s := impl.GetScratch()
	defer s.Release()
	// Resolvers read the caller from the context, as in a tool call.
	c := p.r.newCall(WithRequestContext(ctx, rc), wt, rc, true)
	c.raw = args
	if es := c.begin(nil, s); len(es) > 0 {
		return nil, es
	}
	m, es, _ := c.prepare(s) // the request the write gets
	if es = append(c.ctl.errs, es...); len(es) > 0 {
		return m, es
	}
	return m, nil
}

// Decode runs only the strict parse, decode and validation of an agent's
// arguments for tool: the request holds what the agent sent, with nothing
// generated, derived or taken from the caller. Prepare is Decode followed
// by enrichment. A live vocabulary's values belong to a caller's tenant, so
// Decode keeps a vocabulary field as sent; Prepare checks it and stores the
// canonical value.
func (p *Preparer) Decode(tool string, args []byte) (proto.Message, Errors) {
	m, es := p.decode(tool, args)
	return m, userErrors(es)
}

// decode is Decode in the decoder's entries: the front door and prepare
// of every path, stopped after the decode (decodeOnly).
func (p *Preparer) decode(tool string, args []byte) (proto.Message, impl.Errors) {
	wt, ok := p.r.tools[tool]
	if !ok {
		return nil, impl.Errors{{Code: impl.CodeUnknownOperation, Message: fmt.Sprintf("unknown tool %q", tool)}}
	}
	s := impl.GetScratch()
	defer s.Release()
	c := p.r.newCall(context.Background(), wt, RequestContext{}, false)
	c.raw, c.decodeOnly = args, true
	if es := c.begin(nil, s); len(es) > 0 {
		return nil, es
	}
	m, es, _ := c.prepare(s)
	if es = append(c.ctl.errs, es...); len(es) > 0 {
		return m, es
	}
	return m, nil
}
