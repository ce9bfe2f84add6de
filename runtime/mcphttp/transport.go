package mcphttp

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/httpfront"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/bearer"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/callmeta"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/httpbase"
)

// BearerAuth is HTTP middleware for the streamable HTTP transport:
// httpfront.BearerAuth (the token authenticated with hook, 401 with an
// RFC 6750 challenge and a fixed body otherwise, hook's error to the
// logger), which also gives the request go-sdk's token info
// (auth.TokenInfoFromContext; TokenIdentity reads it), so handlers built on
// go-sdk types find the caller where RequestContextFromCall does. A
// session is bound to tenant and principal together: a request in a
// session opened by another identity, even a principal of the same name in
// another tenant, is refused with 403.
func BearerAuth(hook AuthHook, opts ...Option) func(http.Handler) http.Handler {
	front := httpfront.BearerAuth(httpfront.AuthHook(hook), frontOptions(opts)...)
	return func(next http.Handler) http.Handler { return front(withTokenInfo(next)) }
}

// withTokenInfo turns the identity httpfront.BearerAuth verified into
// go-sdk's token info, where go-sdk's transport binds sessions to it and
// RequestContextFromCall finds it: go-sdk's own middleware puts it there,
// and only ever sees a token verified before. A request that already has
// token info, or has no verified identity, passes unchanged.
func withTokenInfo(next http.Handler) http.Handler {
	verified := func(_ context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		if id, ok := bearer.FromContext(r.Context()); ok {
			return &auth.TokenInfo{
				UserID: SessionUserID(id.Tenant, id.Principal),
				Extra:  map[string]any{callmeta.TokenTenantKey: id.Tenant, callmeta.TokenPrincipalKey: id.Principal},
			}, nil
		}
		return nil, auth.ErrInvalidToken
	}
	inner := auth.RequireBearerToken(verified, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := bearer.FromContext(r.Context()); !ok || auth.TokenInfoFromContext(r.Context()) != nil {
			next.ServeHTTP(w, r)
			return
		}
		inner.ServeHTTP(w, r)
	})
}

// SessionUserID is the user a streamable HTTP session is bound to: tenant and
// principal encoded unambiguously (a JSON array), so no other pair, such as
// tenant "a:b" with principal "c" against tenant "a" with principal "b:c",
// yields the same value.
func SessionUserID(tenant, principal string) string {
	if plainJSON(tenant) && plainJSON(principal) {
		return `["` + tenant + `","` + principal + `"]`
	}
	b, _ := json.Marshal([2]string{tenant, principal}) // strings always marshal
	return string(b)
}

// plainJSON reports whether encoding/json writes s between quotes as it is:
// printable ASCII without a quote, a backslash or an HTML character.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= 0x7f, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// Handler serves s over MCP streamable HTTP with what a write
// server needs in front: cross-origin requests refused (Origin checks),
// resumable response streams, trace headers (TraceHeaders) and bounded
// resources: a session idle for WithSessionIdleTimeout (default 30 min) is
// closed, at most WithMaxSessions (default 1000) sessions of s are held (a new
// one beyond is answered 503), at most WithMaxSessionsPerIdentity (default
// 100) by one authenticated identity (else 429), and a request body is at most
// WithMaxRequestBodyBytes (default 2 MiB, else 413). Wrap it with BearerAuth
// (or httpfront.BearerAuth) to authenticate callers: a session is bound to
// the identity that opened it. Register the tools with
// WithRequestContextFunc(RequestContextFromCall).
func Handler(s *mcp.Server, opts ...Option) http.Handler {
	cfg := newHTTPConfig(opts)
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{
		EventStore:          mcp.NewMemoryEventStore(nil),
		SessionTimeout:      cfg.sessionIdleTimeout,
		MaxRequestBodyBytes: cfg.maxBodyBytes,
		Logger:              cfg.logger,
		Stateless:           cfg.stateless,
	})
	// The body is read here, inside whatever authenticates the request
	// (BearerAuth wraps Handler), never before.
	h := httpbase.ReadBodyWithin(sdk, cfg.requestReadTimeout, cfg.maxBodyBytes)
	if !cfg.stateless {
		h = newSessionCap(h, s, cfg)
	}
	return withTokenInfo(httpfront.TraceHeaders(http.NewCrossOriginProtection().Handler(h)))
}
