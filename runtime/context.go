package runtime

import (
	"context"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/callmeta"
)

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

// WithRequestContext returns a context carrying rc.
func WithRequestContext(ctx context.Context, rc RequestContext) context.Context {
	return callmeta.WithRequestMetadata(ctx, callmeta.RequestMetadata(rc))
}

// RequestContextFrom returns the RequestContext carried by ctx, if any.
func RequestContextFrom(ctx context.Context) (RequestContext, bool) {
	md, ok := callmeta.RequestMetadataFrom(ctx)
	return RequestContext(md), ok
}
