package runtime

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
)

// RequestContextFromCall is the standard WithRequestContextFunc: it starts
// from the context the embedding server attached in process
// (WithRequestContext) and takes tenant and principal from the authenticated
// bearer token (BearerAuth), never from headers or _meta. Trace fields
// (traceparent, correlation id, causation id) come, each on its own, from
// the first of: the context, an HTTP header the client sent, the call's
// _meta, the value TraceHeaders generated. The session id completes it. It
// reports false when no tenant or principal is known.
func RequestContextFromCall(ctx context.Context, req *mcp.CallToolRequest) (RequestContext, bool) {
	rc, _ := RequestContextFrom(ctx)
	if req == nil {
		return rc, rc.TenantID != "" && rc.PrincipalID != ""
	}
	var h http.Header
	if ex := req.Extra; ex != nil {
		if ti := ex.TokenInfo; ti != nil {
			t, _ := ti.Extra[mcpwriteimpl.TokenTenantKey].(string)
			p, _ := ti.Extra[mcpwriteimpl.TokenPrincipalKey].(string)
			if t != "" && p != "" {
				rc.TenantID, rc.PrincipalID = t, p
			}
		}
		h = ex.Header
	}
	if tp := h.Get(mcpwriteimpl.HeaderTraceParent); mcpwriteimpl.ValidTraceParent(tp) {
		setIfEmpty(&rc.TraceParent, tp)
	}
	setIfEmpty(&rc.CorrelationID, h.Get(mcpwriteimpl.HeaderCorrelationID))
	setIfEmpty(&rc.CausationID, h.Get(mcpwriteimpl.HeaderCausationID))
	if req.Params != nil {
		meta := req.Params.GetMeta()
		if s, ok := meta[mcpwriteimpl.MetaTraceParent].(string); ok && mcpwriteimpl.ValidTraceParent(s) {
			setIfEmpty(&rc.TraceParent, s)
		}
		if s, ok := meta[mcpwriteimpl.MetaCorrelationID].(string); ok {
			setIfEmpty(&rc.CorrelationID, s)
		}
		if s, ok := meta[mcpwriteimpl.MetaCausationID].(string); ok {
			setIfEmpty(&rc.CausationID, s)
		}
	}
	setIfEmpty(&rc.TraceParent, h.Get(mcpwriteimpl.HeaderGeneratedTraceParent))
	setIfEmpty(&rc.CorrelationID, h.Get(mcpwriteimpl.HeaderGeneratedCorrelationID))
	if req.Session != nil {
		setIfEmpty(&rc.SessionID, req.Session.ID())
	}
	return rc, rc.TenantID != "" && rc.PrincipalID != ""
}

// StaticRequestContext is a WithRequestContextFunc for single-user servers
// (local stdio tools, development): every call acts as rc, with trace fields
// still taken from the call as RequestContextFromCall does.
func StaticRequestContext(rc RequestContext) func(context.Context, *mcp.CallToolRequest) (RequestContext, bool) {
	return func(ctx context.Context, req *mcp.CallToolRequest) (RequestContext, bool) {
		got, _ := RequestContextFromCall(WithRequestContext(ctx, rc), req)
		got.TenantID, got.PrincipalID = rc.TenantID, rc.PrincipalID
		return got, rc.TenantID != "" && rc.PrincipalID != ""
	}
}

func setIfEmpty(dst *string, v string) {
	if *dst == "" && len(v) <= 512 {
		*dst = v
	}
}
