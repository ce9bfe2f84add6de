package runtime

import (
	"context"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/callmeta"
)

// StaticRequestContext is a WithRequestContextFunc for single-user servers
// (local stdio tools, development): every call acts as rc, with trace fields
// still taken from the call as mcphttp.RequestContextFromCall does.
// It takes the library-neutral request, so it works on a server of any
// supported MCP library.
func StaticRequestContext(rc RequestContext) func(context.Context, *toolcall.Request) (RequestContext, bool) {
	return func(ctx context.Context, req *toolcall.Request) (RequestContext, bool) {
		md, _ := callmeta.RequestMetadataFromCall(callmeta.WithRequestMetadata(ctx, callmeta.RequestMetadata(rc)), req)
		got := RequestContext(md)
		got.TenantID, got.PrincipalID = rc.TenantID, rc.PrincipalID
		return got, rc.TenantID != "" && rc.PrincipalID != ""
	}
}
