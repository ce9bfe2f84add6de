package mcphttp_test

import (
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/apisurface"
)

// mcphttpSignatures is the exported API of package mcphttp, declaration by
// declaration (apisurface.Signatures): every function and method
// signature, every exported struct field and interface method, every
// constant's value. The HTTP front's defaults and options are httpfront's
// (their values pinned in runtime/httpfront/api_signatures_test.go).
var mcphttpSignatures = []string{
	"AuthHook func(ctx context.Context, token string) (tenant, principal string, err error)",
	"BearerAuth func(hook AuthHook, opts ...Option) func(http.Handler) http.Handler",
	"CheckLoopback func(addr string) error",
	"DefaultIdleTimeout const = httpfront.DefaultIdleTimeout",
	"DefaultMaxConnections const = httpfront.DefaultMaxConnections (1024)",
	"DefaultMaxConnectionsPerAddress const = httpfront.DefaultMaxConnectionsPerAddress (256)",
	"DefaultMaxHeaderBytes const = httpfront.DefaultMaxHeaderBytes",
	"DefaultMaxPendingConnections const = httpfront.DefaultMaxPendingConnections (256)",
	"DefaultMaxRequestBodyBytes const = httpfront.DefaultMaxRequestBodyBytes",
	"DefaultMaxSessions const = 1000",
	"DefaultMaxSessionsPerIdentity const = 100",
	"DefaultMaxSessionsPerTenant const = 250",
	"DefaultReadHeaderTimeout const = httpfront.DefaultReadHeaderTimeout",
	"DefaultRequestReadTimeout const = httpfront.DefaultRequestReadTimeout",
	"DefaultSessionIdleTimeout const = 30 * time.Minute",
	"Front func(h http.Handler, opts ...Option) http.Handler",
	"Handler func(s *mcp.Server, opts ...Option) http.Handler",
	"NewServer func(h http.Handler, opts ...Option) *http.Server",
	"Option func(*httpConfig)",
	"RequestContextFromCall func(ctx context.Context, req *mcp.CallToolRequest) (runtime.RequestContext, bool)",
	"ServeLoopback func(ctx context.Context, addr string, h http.Handler, opts ...Option) error",
	"SessionUserID func(tenant, principal string) string",
	"StaticTokens func(spec string) (AuthHook, error)",
	"TokenIdentity func(ti *auth.TokenInfo) (tenant, principal string, ok bool)",
	"TraceHeaders func(next http.Handler) http.Handler",
	"WithIdleTimeout func(d time.Duration) Option",
	"WithLogger func(l *slog.Logger) Option",
	"WithMaxConnections func(n int) Option",
	"WithMaxConnectionsPerAddress func(n int) Option",
	"WithMaxHeaderBytes func(n int) Option",
	"WithMaxPendingConnections func(n int) Option",
	"WithMaxRequestBodyBytes func(n int64) Option",
	"WithMaxSessions func(n int) Option",
	"WithMaxSessionsPerIdentity func(n int) Option",
	"WithMaxSessionsPerTenant func(n int) Option",
	"WithReadHeaderTimeout func(d time.Duration) Option",
	"WithRequestReadTimeout func(d time.Duration) Option",
	"WithSessionIdleTimeout func(d time.Duration) Option",
	"WithStateless func() Option",
	"WithTrustedProxies func(prefixes ...netip.Prefix) Option",
}

// The exported declarations of package mcphttp are exactly mcphttpSignatures:
// a changed signature or a new exported field is as deliberate as a new
// name. Update mcphttpSignatures in runtime/mcphttp/api_signatures_test.go in the same change.
func TestMCPHTTPAPISignatures(t *testing.T) {
	got, err := apisurface.Signatures(".")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "\n") != strings.Join(mcphttpSignatures, "\n") {
		t.Errorf("package mcphttp declares:\n%sUpdate mcphttpSignatures in runtime/mcphttp/api_signatures_test.go to the new list if the change is intended.", apisurface.Diff(got, mcphttpSignatures))
	}
}
