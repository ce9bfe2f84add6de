package mcphttp

import (
	"context"
	"net/http"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/httpfront"
)

// AuthHook maps a bearer token to the tenant and principal acting
// (httpfront.AuthHook).
type AuthHook func(ctx context.Context, token string) (tenant, principal string, err error)

// StaticTokens is httpfront.StaticTokens: "token=tenant:principal,..." as
// an AuthHook, for development and test servers.
func StaticTokens(spec string) (AuthHook, error) {
	h, err := httpfront.StaticTokens(spec)
	if err != nil {
		return nil, err
	}
	return AuthHook(h), nil
}

// TraceHeaders is httpfront.TraceHeaders (Handler already applies it).
func TraceHeaders(next http.Handler) http.Handler { return httpfront.TraceHeaders(next) }

// Front is httpfront.Front: what Handler puts in front of go-sdk's
// stateless handler, for another SDK's stateless handler.
func Front(h http.Handler, opts ...Option) http.Handler {
	return httpfront.Front(h, frontOptions(opts)...)
}

// NewServer is httpfront.NewServer: an http.Server for h with production
// timeouts and connection caps.
func NewServer(h http.Handler, opts ...Option) *http.Server {
	return httpfront.NewServer(h, frontOptions(opts)...)
}

// ServeLoopback is httpfront.ServeLoopback: h served on a loopback address
// until ctx is done.
func ServeLoopback(ctx context.Context, addr string, h http.Handler, opts ...Option) error {
	return httpfront.ServeLoopback(ctx, addr, h, frontOptions(opts)...)
}

// CheckLoopback is httpfront.CheckLoopback.
func CheckLoopback(addr string) error { return httpfront.CheckLoopback(addr) }
