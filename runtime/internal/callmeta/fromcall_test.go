package callmeta

import (
	"context"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
)

// The verified identity comes from the token's claims when the adapter
// gives them, else from the tenant and principal it gives; either is taken
// only with both a tenant and a principal.
func TestRequestMetadataFromCallIdentity(t *testing.T) {
	claims := func(t, p string) map[string]any { return map[string]any{TokenTenantKey: t, TokenPrincipalKey: p} }
	for _, tc := range []struct {
		name        string
		req         toolcall.Request
		tenant, who string
	}{
		{"claims", toolcall.Request{TokenExtra: claims("acme", "alice")}, "acme", "alice"},
		{"fields", toolcall.Request{TokenTenant: "acme", TokenPrincipal: "alice"}, "acme", "alice"},
		{"claims first", toolcall.Request{TokenExtra: claims("acme", "alice"), TokenTenant: "other", TokenPrincipal: "bob"}, "acme", "alice"},
		{"claims without a principal", toolcall.Request{TokenExtra: claims("acme", ""), TokenTenant: "other", TokenPrincipal: "bob"}, "", ""},
		{"fields without a principal", toolcall.Request{TokenTenant: "acme"}, "", ""},
		{"none", toolcall.Request{}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md, ok := RequestMetadataFromCall(context.Background(), &tc.req)
			if md.TenantID != tc.tenant || md.PrincipalID != tc.who || ok != (tc.tenant != "") {
				t.Fatalf("got %q %q %v, want %q %q %v", md.TenantID, md.PrincipalID, ok, tc.tenant, tc.who, tc.tenant != "")
			}
		})
	}
}
