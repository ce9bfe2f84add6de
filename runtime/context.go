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
	if ctx == nil {
		panic("runtime.WithRequestContext: nil parent context")
	}
	return &rcContext{Context: ctx, rc: rc}
}

// RequestContextFrom returns the RequestContext carried by ctx, if any.
func RequestContextFrom(ctx context.Context) (RequestContext, bool) {
	if rc, ok := ctx.Value(requestContextKey{}).(*RequestContext); ok {
		return *rc, true
	}
	return RequestContext{}, false
}

// rcContext is a context carrying a RequestContext: what context.WithValue
// makes, in one allocation instead of two (the value is not boxed), since
// every tool call makes one. Value answers the key with a pointer to rc,
// which only RequestContextFrom reads.
type rcContext struct {
	context.Context
	rc RequestContext
}

func (c *rcContext) Value(key any) any {
	if _, ok := key.(requestContextKey); ok {
		return &c.rc
	}
	return c.Context.Value(key)
}

func (c *rcContext) String() string {
	if s, ok := c.Context.(interface{ String() string }); ok {
		return s.String() + ".WithRequestContext"
	}
	return "context.WithRequestContext"
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
