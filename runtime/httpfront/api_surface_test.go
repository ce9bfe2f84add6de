package httpfront_test

import (
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/apisurface"
)

// httpfrontAPI is the exported API of package httpfront, sorted.
var httpfrontAPI = []string{
	"AuthHook",
	"BearerAuth",
	"CheckLoopback",
	"DefaultIdleTimeout",
	"DefaultMaxConnections",
	"DefaultMaxConnectionsPerAddress",
	"DefaultMaxHeaderBytes",
	"DefaultMaxPendingConnections",
	"DefaultMaxRequestBodyBytes",
	"DefaultReadHeaderTimeout",
	"DefaultRequestReadTimeout",
	"Front",
	"NewServer",
	"Option",
	"ServeLoopback",
	"StaticTokens",
	"TraceHeaders",
	"WithIdleTimeout",
	"WithLogger",
	"WithMaxConnections",
	"WithMaxConnectionsPerAddress",
	"WithMaxHeaderBytes",
	"WithMaxPendingConnections",
	"WithMaxRequestBodyBytes",
	"WithReadHeaderTimeout",
	"WithRequestReadTimeout",
	"WithTrustedProxies",
}

// The exported API of package httpfront is exactly httpfrontAPI. A change to
// it is deliberate: update httpfrontAPI (sorted) in the same change.
func TestHTTPFrontAPISurface(t *testing.T) {
	got, err := apisurface.Exported(".")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "\n") != strings.Join(httpfrontAPI, "\n") {
		t.Errorf("package httpfront exports %d names, httpfrontAPI lists %d:\n%sUpdate httpfrontAPI in runtime/httpfront/api_surface_test.go to the new list (sorted) if the change is intended.", len(got), len(httpfrontAPI), apisurface.Diff(got, httpfrontAPI))
	}
}
