package runtime

import "context"

// RequestContext is the request metadata the embedding server establishes
// out of band (auth, transport headers); derived fields read it. Tenant and
// principal never come from tool arguments.
type RequestContext struct {
	TenantID      string
	PrincipalID   string
	CorrelationID string
	CausationID   string
	TraceParent   string
	SessionID     string
}

type requestContextKey struct{}

// WithRequestContext returns a context carrying rc.
func WithRequestContext(ctx context.Context, rc RequestContext) context.Context {
	return context.WithValue(ctx, requestContextKey{}, rc)
}

// RequestContextFrom returns the RequestContext carried by ctx, if any.
func RequestContextFrom(ctx context.Context) (RequestContext, bool) {
	rc, ok := ctx.Value(requestContextKey{}).(RequestContext)
	return rc, ok
}

// ContextKey names one piece of request metadata a derived field can read.
// The numbers match mcpwrite.v1.Derived.ContextKey.
type ContextKey int32

// Context keys, as in the annotations.
const (
	ContextTenantID        ContextKey = 1
	ContextPrincipalID     ContextKey = 2
	ContextCorrelationID   ContextKey = 3
	ContextCausationID     ContextKey = 4
	ContextTraceParent     ContextKey = 5
	ContextClientRequestID ContextKey = 6
	ContextSessionID       ContextKey = 7
	ContextToolName        ContextKey = 8
)
