package mcphttp

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/callmeta"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/sdkbind"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
)

// RequestContextFromCall is the standard runtime.WithRequestContextFunc for a server behind Handler: it starts
// from the context the embedding server attached in process
// (runtime.WithRequestContext) and takes tenant and principal from the authenticated
// bearer token (BearerAuth), never from headers or _meta. Trace fields
// (traceparent, correlation id, causation id) come, each on its own, from
// the first of: the context, an HTTP header the client sent, the call's
// _meta, the value TraceHeaders generated. The session id completes it. It
// reports false when no tenant or principal is known.
func RequestContextFromCall(ctx context.Context, req *mcp.CallToolRequest) (runtime.RequestContext, bool) {
	var tr *toolcall.Request
	if req != nil {
		tr = sdkbind.Request(ctx, req)
	}
	md, ok := callmeta.RequestMetadataFromCall(ctx, tr)
	return runtime.RequestContext(md), ok
}

// TokenIdentity is the tenant and principal of the bearer token BearerAuth
// verified, as a handler outside a tool call (a resource read) finds it in
// its request's TokenInfo. ok is false for nil, a token BearerAuth did not
// make, or an empty tenant or principal.
func TokenIdentity(ti *auth.TokenInfo) (tenant, principal string, ok bool) {
	if ti == nil {
		return "", "", false
	}
	return callmeta.TokenIdentity(ti.Extra)
}
