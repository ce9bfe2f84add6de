package httpfront_test

import (
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/apisurface"
)

// httpfrontSignatures is the exported API of package httpfront, declaration
// by declaration (apisurface.Signatures): every function signature and every
// constant's value.
var httpfrontSignatures = []string{
	"AuthHook func(ctx context.Context, token string) (tenant, principal string, err error)",
	"BearerAuth func(hook AuthHook, opts ...Option) func(http.Handler) http.Handler",
	"CheckLoopback func(addr string) error",
	"DefaultIdleTimeout const = 2 * time.Minute",
	"DefaultMaxConnections const = 1024",
	"DefaultMaxConnectionsPerAddress const = 256",
	"DefaultMaxHeaderBytes const = 64 << 10",
	"DefaultMaxPendingConnections const = 256",
	"DefaultMaxRequestBodyBytes const = 2 << 20",
	"DefaultReadHeaderTimeout const = 10 * time.Second",
	"DefaultRequestReadTimeout const = 30 * time.Second",
	"Front func(h http.Handler, opts ...Option) http.Handler",
	"NewServer func(h http.Handler, opts ...Option) *http.Server",
	"Option func(*httpbase.Config)",
	"ServeLoopback func(ctx context.Context, addr string, h http.Handler, opts ...Option) error",
	"StaticTokens func(spec string) (AuthHook, error)",
	"TraceHeaders func(next http.Handler) http.Handler",
	"WithIdleTimeout func(d time.Duration) Option",
	"WithLogger func(l *slog.Logger) Option",
	"WithMaxConnections func(n int) Option",
	"WithMaxConnectionsPerAddress func(n int) Option",
	"WithMaxHeaderBytes func(n int) Option",
	"WithMaxPendingConnections func(n int) Option",
	"WithMaxRequestBodyBytes func(n int64) Option",
	"WithReadHeaderTimeout func(d time.Duration) Option",
	"WithRequestReadTimeout func(d time.Duration) Option",
	"WithTrustedProxies func(prefixes ...netip.Prefix) Option",
}

// The exported declarations of package httpfront are exactly
// httpfrontSignatures: a changed signature or default is as deliberate as a
// new name. Update httpfrontSignatures in
// runtime/httpfront/api_signatures_test.go in the same change.
func TestHTTPFrontAPISignatures(t *testing.T) {
	got, err := apisurface.Signatures(".")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "\n") != strings.Join(httpfrontSignatures, "\n") {
		t.Errorf("package httpfront declares:\n%sUpdate httpfrontSignatures in runtime/httpfront/api_signatures_test.go to the new list if the change is intended.", apisurface.Diff(got, httpfrontSignatures))
	}
}
