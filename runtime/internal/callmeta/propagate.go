package callmeta

import (
	"context"

	"google.golang.org/grpc/metadata"
)

// OutgoingHeaders is the request context of ctx as the headers a client
// adapter sends (only those set). Identity (tenant, principal) is not sent:
// the enriched request carries it where the proto says, and the service
// authenticates the MCP server itself.
func OutgoingHeaders(ctx context.Context) map[string]string {
	rc, ok := RequestMetadataFrom(ctx)
	if !ok {
		return nil
	}
	if tp, ok := ctx.Value(outgoingTraceParentKey{}).(string); ok && tp != "" {
		rc.TraceParent = tp
	}
	// A value that is not a valid id is never forwarded, whoever put it in
	// the context (the runtime has replaced invalid ones already).
	h := map[string]string{}
	if ValidTraceParent(rc.TraceParent) {
		h[HeaderTraceParent] = rc.TraceParent
	}
	// The headers the inbound HTTP transport reads, so the domain service
	// sees the trace and the correlation of the tool call it serves.
	for k, v := range map[string]string{HeaderCorrelationID: rc.CorrelationID, HeaderCausationID: rc.CausationID} {
		if ValidTraceID(v) {
			h[k] = v
		}
	}
	return h
}

// OutgoingGRPCContext adds the request context of ctx to the outgoing gRPC
// metadata (traceparent, x-correlation-id, x-causation-id), for the gRPC
// client adapter.
func OutgoingGRPCContext(ctx context.Context) context.Context {
	h := OutgoingHeaders(ctx)
	if len(h) == 0 {
		return ctx
	}
	kv := make([]string, 0, 2*len(h))
	for _, k := range []string{HeaderTraceParent, HeaderCorrelationID, HeaderCausationID} {
		if v, ok := h[k]; ok {
			kv = append(kv, k, v) // metadata lower-cases keys
		}
	}
	return metadata.AppendToOutgoingContext(ctx, kv...)
}

type outgoingTraceParentKey struct{}

// WithOutgoingTraceParent makes the client adapters send tp as the
// traceparent instead of the request context's: a tracer that starts a span
// for the tool call (runtime/otelmcp) sets it, so the domain service's span
// is a child of the tool call's rather than its sibling.
func WithOutgoingTraceParent(ctx context.Context, tp string) context.Context {
	return context.WithValue(ctx, outgoingTraceParentKey{}, tp)
}
