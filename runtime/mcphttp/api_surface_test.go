package mcphttp_test

import (
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/apisurface"
)

// mcphttpAPI is the exported API of package mcphttp, sorted.
var mcphttpAPI = []string{
	"AuthHook",
	"BearerAuth",
	"CheckLoopback",
	"DefaultIdleTimeout",
	"DefaultMaxConnections",
	"DefaultMaxConnectionsPerAddress",
	"DefaultMaxHeaderBytes",
	"DefaultMaxPendingConnections",
	"DefaultMaxRequestBodyBytes",
	"DefaultMaxSessions",
	"DefaultMaxSessionsPerIdentity",
	"DefaultMaxSessionsPerTenant",
	"DefaultReadHeaderTimeout",
	"DefaultRequestReadTimeout",
	"DefaultSessionIdleTimeout",
	"Front",
	"Handler",
	"NewServer",
	"Option",
	"RequestContextFromCall",
	"ServeLoopback",
	"SessionUserID",
	"StaticTokens",
	"TokenIdentity",
	"TraceHeaders",
	"WithIdleTimeout",
	"WithLogger",
	"WithMaxConnections",
	"WithMaxConnectionsPerAddress",
	"WithMaxHeaderBytes",
	"WithMaxPendingConnections",
	"WithMaxRequestBodyBytes",
	"WithMaxSessions",
	"WithMaxSessionsPerIdentity",
	"WithMaxSessionsPerTenant",
	"WithReadHeaderTimeout",
	"WithRequestReadTimeout",
	"WithSessionIdleTimeout",
	"WithStateless",
	"WithTrustedProxies",
}

// The exported API of package mcphttp is exactly mcphttpAPI. A change to it
// is deliberate: update mcphttpAPI (sorted) in the same change.
func TestMCPHTTPAPISurface(t *testing.T) {
	got, err := apisurface.Exported(".")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "\n") != strings.Join(mcphttpAPI, "\n") {
		t.Errorf("package mcphttp exports %d names, mcphttpAPI lists %d:\n%sUpdate mcphttpAPI in runtime/mcphttp/api_surface_test.go to the new list (sorted) if the change is intended.", len(got), len(mcphttpAPI), apisurface.Diff(got, mcphttpAPI))
	}
}
