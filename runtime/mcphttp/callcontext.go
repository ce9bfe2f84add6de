package mcphttp

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
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
	md, ok := mcpwriteimpl.RequestMetadataFromCall(ctx, req)
	return runtime.RequestContext(md), ok
}
