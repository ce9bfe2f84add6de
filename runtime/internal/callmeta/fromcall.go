package callmeta

import (
	"context"
	"net/http"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
)

// RequestMetadataFromCall is mcphttp.RequestContextFromCall (and the trace
// part of runtime.StaticRequestContext): it starts from the metadata ctx
// carries and takes tenant and principal from the bearer token
// mcphttp.BearerAuth verified, never from headers or _meta. Trace fields
// (traceparent, correlation id, causation id) come, each on its own, from
// the first of: the context, an HTTP header the client sent, the call's
// _meta, the value mcphttp.TraceHeaders generated. The session id
// completes it. It reports false when no tenant or principal is known.
func RequestMetadataFromCall(ctx context.Context, req *toolcall.Request) (RequestMetadata, bool) {
	if req == nil {
		rc, _ := RequestMetadataFrom(ctx)
		return rc, rc.TenantID != "" && rc.PrincipalID != ""
	}
	t, p := req.TokenTenant, req.TokenPrincipal
	if req.TokenExtra != nil {
		t, p, _ = TokenIdentity(req.TokenExtra)
	}
	return RequestMetadataFromParts(ctx, t, p, req.Header, req.Meta, req.SessionID)
}

// RequestMetadataFromParts is RequestMetadataFromCall for a call whose
// parts are at hand without a toolcall.Request: the tenant and principal
// of the verified bearer token (taken only when both are set), the HTTP
// headers, the call's _meta and its session id.
func RequestMetadataFromParts(ctx context.Context, tenant, principal string, h http.Header, meta map[string]any, sessionID string) (RequestMetadata, bool) {
	rc, _ := RequestMetadataFrom(ctx)
	if tenant != "" && principal != "" {
		rc.TenantID, rc.PrincipalID = tenant, principal
	}
	if tp := h.Get(HeaderTraceParent); ValidTraceParent(tp) {
		setIfEmpty(&rc.TraceParent, tp)
	}
	setIfEmpty(&rc.CorrelationID, h.Get(HeaderCorrelationID))
	setIfEmpty(&rc.CausationID, h.Get(HeaderCausationID))
	if meta != nil {
		if s, ok := meta[MetaTraceParent].(string); ok && ValidTraceParent(s) {
			setIfEmpty(&rc.TraceParent, s)
		}
		if s, ok := meta[MetaCorrelationID].(string); ok {
			setIfEmpty(&rc.CorrelationID, s)
		}
		if s, ok := meta[MetaCausationID].(string); ok {
			setIfEmpty(&rc.CausationID, s)
		}
	}
	setIfEmpty(&rc.TraceParent, h.Get(HeaderGeneratedTraceParent))
	setIfEmpty(&rc.CorrelationID, h.Get(HeaderGeneratedCorrelationID))
	setIfEmpty(&rc.SessionID, sessionID)
	return rc, rc.TenantID != "" && rc.PrincipalID != ""
}

// TokenIdentity is the tenant and principal of a bearer token
// mcphttp.BearerAuth verified, read from its claims (auth.TokenInfo's
// Extra); ok is false for nil claims, another token's, or an empty tenant
// or principal.
func TokenIdentity(extra map[string]any) (tenant, principal string, ok bool) {
	tenant, _ = extra[TokenTenantKey].(string)
	principal, _ = extra[TokenPrincipalKey].(string)
	return tenant, principal, tenant != "" && principal != ""
}

// setIfEmpty fills an unset field. Values are taken as sent: the runtime
// checks every id (CleanTraceIDs) and logs the replacement of an invalid one.
func setIfEmpty(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}
