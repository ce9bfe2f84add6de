package callmeta

import (
	"encoding/hex"
	"strings"
)

// Headers and _meta keys that carry trace metadata. Tenant and principal are
// never read from headers or _meta: they come from authentication only.
const (
	HeaderTraceParent   = "Traceparent"
	HeaderCorrelationID = "X-Correlation-Id"
	HeaderCausationID   = "X-Causation-Id"
	MetaTraceParent     = "traceparent"
	MetaCorrelationID   = "io.mcpwrite/correlation_id"
	MetaCausationID     = "io.mcpwrite/causation_id"
	TokenTenantKey      = "mcpwrite/tenant_id"
	TokenPrincipalKey   = "mcpwrite/principal_id"
	// Trace values TraceHeaders generated, apart from the client's own so
	// that a call's _meta can take precedence over them.
	HeaderGeneratedTraceParent   = "Mcpwrite-Generated-Traceparent"
	HeaderGeneratedCorrelationID = "Mcpwrite-Generated-Correlation-Id"
)

// ValidTraceParent checks the W3C version-00 shape: 00-<32 hex>-<16 hex>-<2 hex>.
func ValidTraceParent(s string) bool {
	parts := strings.Split(s, "-")
	if len(parts) != 4 || len(parts[0]) != 2 || len(parts[1]) != 32 || len(parts[2]) != 16 || len(parts[3]) != 2 {
		return false
	}
	for _, p := range parts {
		if _, err := hex.DecodeString(p); err != nil {
			return false
		}
	}
	return parts[1] != strings.Repeat("0", 32) && parts[2] != strings.Repeat("0", 16)
}
