// Package bearer carries the identity a bearer-token middleware verified
// for an HTTP request (tenant and principal) in the request's context,
// without any MCP SDK's types: the go-sdk binding turns it into go-sdk's
// token info (which binds streamable HTTP sessions to it), the mcp-go
// adapter reads it as it is.
package bearer

import "context"

// Identity is who a verified bearer token acts for. Both fields are set:
// a middleware never stores an identity with an empty tenant or principal.
type Identity struct {
	Tenant    string
	Principal string
}

type identityKey struct{}

// NewContext returns ctx carrying id.
func NewContext(ctx context.Context, id Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// FromContext is the identity ctx carries; ok is false when none was
// stored or it lacks a tenant or a principal.
func FromContext(ctx context.Context) (id Identity, ok bool) {
	id, _ = ctx.Value(identityKey{}).(Identity)
	return id, id.Tenant != "" && id.Principal != ""
}
