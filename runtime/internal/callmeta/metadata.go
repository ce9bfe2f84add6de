package callmeta

import "context"

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

// RequestMetadata is runtime.RequestContext as the generated code's Call
// sees it: the same fields, so each converts to the other.
type RequestMetadata struct {
	TenantID      string
	PrincipalID   string
	CorrelationID string
	CausationID   string
	TraceParent   string
	SessionID     string
}

type requestMetadataKey struct{}

// WithRequestMetadata returns a context carrying md; runtime.WithRequestContext
// calls it.
func WithRequestMetadata(ctx context.Context, md RequestMetadata) context.Context {
	if ctx == nil {
		panic("runtime.WithRequestContext: nil parent context")
	}
	return &mdContext{Context: ctx, md: md}
}

// RequestMetadataFrom returns the RequestMetadata carried by ctx, if any;
// runtime.RequestContextFrom calls it.
func RequestMetadataFrom(ctx context.Context) (RequestMetadata, bool) {
	if md, ok := ctx.Value(requestMetadataKey{}).(*RequestMetadata); ok {
		return *md, true
	}
	return RequestMetadata{}, false
}

// mdContext is a context carrying a RequestMetadata: what context.WithValue
// makes, in one allocation instead of two (the value is not boxed), since
// every tool call makes one. Value answers the key with a pointer to md,
// which only RequestMetadataFrom reads.
type mdContext struct {
	context.Context
	md RequestMetadata
}

func (c *mdContext) Value(key any) any {
	if _, ok := key.(requestMetadataKey); ok {
		return &c.md
	}
	return c.Context.Value(key)
}

func (c *mdContext) String() string {
	if s, ok := c.Context.(interface{ String() string }); ok {
		return s.String() + ".WithRequestContext"
	}
	return "context.WithRequestContext"
}
