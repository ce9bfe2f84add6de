package mcpgo

import (
	"context"
	"encoding/json"
	"fmt"

	mgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/bearer"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/callmeta"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
)

// request is an mcp-go call as the runtime reads it, without the session
// abilities: the arguments as sent, _meta (its progress token under
// "progressToken"), the HTTP headers, and the tenant and principal a
// bearer middleware (httpfront.BearerAuth, mcphttp.BearerAuth) verified
// for this very HTTP request.
func request(ctx context.Context, req mgo.CallToolRequest, args json.RawMessage) *toolcall.Request {
	tr := &toolcall.Request{Name: req.Params.Name, Arguments: args, Header: req.Header, Native: req}
	if m := req.Params.Meta; m != nil && m.ProgressToken == nil && m.AdditionalFields != nil {
		tr.Meta = m.AdditionalFields // read, never written: not copied
	} else if m != nil {
		tr.Meta = make(map[string]any, len(m.AdditionalFields)+1)
		for k, v := range m.AdditionalFields {
			tr.Meta[k] = v
		}
		if m.ProgressToken != nil {
			tr.Meta["progressToken"] = m.ProgressToken
			tr.ProgressToken = m.ProgressToken
		}
	}
	if id, ok := bearer.FromContext(ctx); ok {
		tr.HasToken, tr.TokenTenant, tr.TokenPrincipal = true, id.Tenant, id.Principal
	}
	return tr
}

// RequestContextFromCall is the runtime.WithRequestContextFunc of an mcp-go
// server served over HTTP behind httpfront.BearerAuth (or
// mcphttp.BearerAuth), as mcphttp.RequestContextFromCall is for go-sdk: it
// starts from the context the embedding server attached in process
// (runtime.WithRequestContext) and takes tenant and principal from the
// verified bearer token, never from headers or _meta; trace fields come
// from the context, an HTTP header the client sent, the call's _meta, or
// the value the front generated. It reports false when no tenant or
// principal is known.
func RequestContextFromCall(ctx context.Context, req mgo.CallToolRequest) (runtime.RequestContext, bool) {
	// What request(ctx, req, args) would give RequestMetadataFromCall,
	// read in place: the call's _meta is not copied, its arguments not
	// looked at.
	var meta map[string]any
	if m := req.Params.Meta; m != nil {
		meta = m.AdditionalFields
	}
	id, _ := bearer.FromContext(ctx)
	md, ok := callmeta.RequestMetadataFromParts(ctx, id.Tenant, id.Principal, req.Header, meta, "")
	return runtime.RequestContext(md), ok
}

// arguments are the call's arguments as the client sent them: the raw
// bytes when mcp-go kept them, else the decoded value marshalled again.
func arguments(req mgo.CallToolRequest) (json.RawMessage, error) {
	if len(req.Params.RawArguments) > 0 {
		return req.Params.RawArguments, nil
	}
	switch a := req.Params.Arguments.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return a, nil
	default:
		b, err := json.Marshal(a)
		if err != nil {
			return nil, fmt.Errorf("mcpgo: arguments of %s: %w", req.Params.Name, err)
		}
		return b, nil
	}
}
