package callmeta

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
	// Four hex fields of 2, 32, 16 and 2 digits (either case) joined by
	// '-': 55 bytes with dashes at 2, 35 and 52; trace and parent ids
	// not all zeros.
	if len(s) != 55 || s[2] != '-' || s[35] != '-' || s[52] != '-' {
		return false
	}
	traceZero, parentZero := true, true
	for i := 0; i < len(s); i++ {
		if i == 2 || i == 35 || i == 52 {
			continue
		}
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
		switch {
		case c == '0':
		case 3 <= i && i < 35:
			traceZero = false
		case 36 <= i && i < 52:
			parentZero = false
		}
	}
	return !traceZero && !parentZero
}
