package runtime

import (
	"context"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/callmeta"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/sdkbind"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StaticRequestContext is a WithRequestContextFunc for single-user servers
// (local stdio tools, development): every call acts as rc, with trace fields
// still taken from the call as mcphttp.RequestContextFromCall does.
func StaticRequestContext(rc RequestContext) func(context.Context, *mcp.CallToolRequest) (RequestContext, bool) {
	return func(ctx context.Context, req *mcp.CallToolRequest) (RequestContext, bool) {
		var tr *toolcall.Request
		if req != nil {
			tr = sdkbind.Request(ctx, req)
		}
		md, _ := callmeta.RequestMetadataFromCall(callmeta.WithRequestMetadata(ctx, callmeta.RequestMetadata(rc)), tr)
		got := RequestContext(md)
		got.TenantID, got.PrincipalID = rc.TenantID, rc.PrincipalID
		return got, rc.TenantID != "" && rc.PrincipalID != ""
	}
}
