// Package otelmcp reports protoc-gen-mcpwrite tool calls through the
// OpenTelemetry API: a span per call, metrics and a log/slog record. Plug
// in any exporter by giving the providers (or setting the globals):
//
//	obs, err := otelmcp.New(otelmcp.WithTracerProvider(tp), otelmcp.WithMeterProvider(mp))
//	...
//	archimatev1mcpwrite.RegisterArchitectureServiceTools(server, h, runtime.WithObserver(obs))
//
// Spans are named "tools/call <tool>", continue the caller's traceparent
// (an active span in the context wins over the request context's
// traceparent) and carry mcp.tool.name, mcpwrite.outcome,
// mcpwrite.error.code, mcpwrite.replay, mcpwrite.proposal,
// mcpwrite.confirmation and, on a read tool's call, mcpwrite.read; an error
// the agent was not shown the text of (INTERNAL, a backend unavailable or
// too slow) adds mcpwrite.error.trace_id, the trace_id the agent was given,
// and is recorded on the span as an exception event. Metrics:
//
//	mcpwrite.tool.calls      {tool, outcome, error.code}  calls
//	mcpwrite.tool.replays    {tool}                       idempotent replays
//	mcpwrite.proposals       {tool, event}                created, applied, discarded, expired
//	mcpwrite.confirmations   {tool, outcome}              asked, accepted, declined, cancelled, stale
//	mcpwrite.tool.duration   {tool, outcome}              seconds
package otelmcp

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/callmeta"
)

// ScopeName is the instrumentation scope of the tracer and meter.
const ScopeName = "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/otelmcp"

// Observer is a runtime.Observer on the OpenTelemetry API.
type Observer struct {
	tracer        trace.Tracer
	logger        *slog.Logger
	calls         metric.Int64Counter
	replays       metric.Int64Counter
	proposals     metric.Int64Counter
	confirmations metric.Int64Counter
	duration      metric.Float64Histogram

	// attrs holds the attribute sets calls were counted under (behind a
	// pointer, so an Observer stays comparable).
	attrs *attrCache
}

// attrCache holds the attribute set of each (tool, outcome, error code) a
// call was counted under, so a call does not build and sort them again;
// at most maxCachedAttrs of them.
type attrCache struct {
	m sync.Map // attrKey -> *callAttrs
	n atomic.Int32
}

// maxCachedAttrs bounds attrs; past it, a call builds its sets itself.
const maxCachedAttrs = 4096

type attrKey struct{ tool, outcome, code string }

// callAttrs are the measurement options of one attrKey.
type callAttrs struct {
	calls    metric.MeasurementOption // tool, outcome, error.code
	duration metric.MeasurementOption // tool, outcome
}

var _ runtime.Observer = (*Observer)(nil)

type config struct {
	tp     trace.TracerProvider
	mp     metric.MeterProvider
	logger *slog.Logger
}

// Option configures New.
type Option func(*config)

// WithTracerProvider sets where spans go (default otel.GetTracerProvider()).
func WithTracerProvider(tp trace.TracerProvider) Option { return func(c *config) { c.tp = tp } }

// WithMeterProvider sets where metrics go (default otel.GetMeterProvider()).
func WithMeterProvider(mp metric.MeterProvider) Option { return func(c *config) { c.mp = mp } }

// WithLogger sets where the per-call records go (default slog.Default());
// nil turns them off.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// New returns an Observer; it fails only when an instrument cannot be made.
func New(opts ...Option) (*Observer, error) {
	c := config{tp: otel.GetTracerProvider(), mp: otel.GetMeterProvider(), logger: slog.Default()}
	for _, o := range opts {
		o(&c)
	}
	m := c.mp.Meter(ScopeName)
	o := &Observer{tracer: c.tp.Tracer(ScopeName), logger: c.logger, attrs: &attrCache{}}
	var err error
	if o.calls, err = m.Int64Counter("mcpwrite.tool.calls", metric.WithDescription("Tool calls by tool, outcome and error code"), metric.WithUnit("{call}")); err != nil {
		return nil, err
	}
	if o.replays, err = m.Int64Counter("mcpwrite.tool.replays", metric.WithDescription("Calls answered from an idempotency record"), metric.WithUnit("{call}")); err != nil {
		return nil, err
	}
	if o.proposals, err = m.Int64Counter("mcpwrite.proposals", metric.WithDescription("Proposals created, applied, discarded and expired"), metric.WithUnit("{proposal}")); err != nil {
		return nil, err
	}
	if o.confirmations, err = m.Int64Counter("mcpwrite.confirmations", metric.WithDescription("User confirmations asked, accepted, declined, cancelled and found stale"), metric.WithUnit("{confirmation}")); err != nil {
		return nil, err
	}
	if o.duration, err = m.Float64Histogram("mcpwrite.tool.duration", metric.WithDescription("Tool call latency"), metric.WithUnit("s")); err != nil {
		return nil, err
	}
	return o, nil
}

// CallStarted starts the call's span, continuing the active span or else
// the request context's traceparent, and makes the span the traceparent the
// generated client adapters send (callmeta.WithOutgoingTraceParent).
func (o *Observer) CallStarted(ctx context.Context, call runtime.CallStart) context.Context {
	if !trace.SpanContextFromContext(ctx).IsValid() && call.RequestContext.TraceParent != "" {
		ctx = propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": call.RequestContext.TraceParent})
	}
	ctx, _ = o.tracer.Start(ctx, "tools/call "+call.Tool,
		trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("mcp.method.name", "tools/call"), attribute.String("mcp.tool.name", call.Tool)))
	// The generated client adapters send the call's span as the domain
	// service's parent.
	if tp := traceParent(ctx); tp != "" {
		ctx = callmeta.WithOutgoingTraceParent(ctx, tp)
	}
	return ctx
}

// CallEnded records the outcome on the span, the metrics and the log.
func (o *Observer) CallEnded(ctx context.Context, call runtime.CallEnd) {
	span := trace.SpanFromContext(ctx)
	attrs := []attribute.KeyValue{
		attribute.String("mcpwrite.outcome", call.Outcome),
		attribute.Bool("mcpwrite.replay", call.Replay),
	}
	if call.ErrorCode != "" {
		attrs = append(attrs, attribute.String("mcpwrite.error.code", call.ErrorCode))
	}
	if call.Proposal != "" {
		attrs = append(attrs, attribute.String("mcpwrite.proposal", call.Proposal))
	}
	if call.Confirmation != "" {
		attrs = append(attrs, attribute.String("mcpwrite.confirmation", call.Confirmation))
	}
	if call.Read {
		attrs = append(attrs, attribute.Bool("mcpwrite.read", true))
	}
	if call.ErrorTraceID != "" {
		attrs = append(attrs, attribute.String("mcpwrite.error.trace_id", call.ErrorTraceID))
	}
	span.SetAttributes(attrs...)
	if call.Cause != nil {
		// The error the agent was not shown: the operator finds it here
		// by the trace_id the agent quotes.
		span.RecordError(call.Cause)
	}
	if call.Outcome == "error" {
		span.SetStatus(codes.Error, call.ErrorCode)
	}
	span.End()

	a := o.callAttrs(call)
	o.calls.Add(ctx, 1, a.calls)
	o.duration.Record(ctx, call.Duration.Seconds(), a.duration)
	tool := attribute.String("mcp.tool.name", call.Tool)
	if call.Replay {
		o.replays.Add(ctx, 1, metric.WithAttributes(tool))
	}
	if call.Proposal != "" {
		o.proposals.Add(ctx, 1, metric.WithAttributes(tool, attribute.String("event", call.Proposal)))
	}
	if call.Confirmation != "" {
		o.confirmations.Add(ctx, 1, metric.WithAttributes(tool, attribute.String("outcome", call.Confirmation)))
	}
	if o.logger != nil {
		sc := span.SpanContext()
		rec := []slog.Attr{
			slog.String("tool", call.Tool), slog.String("outcome", call.Outcome), slog.String("error_code", call.ErrorCode),
			slog.Bool("replay", call.Replay), slog.String("proposal", call.Proposal), slog.String("confirmation", call.Confirmation),
			slog.Duration("duration", call.Duration), slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()),
		}
		if call.ErrorTraceID != "" {
			rec = append(rec, slog.String("error_trace_id", call.ErrorTraceID))
		}
		if call.Cause != nil {
			rec = append(rec, slog.String("cause", call.Cause.Error()))
		}
		o.logger.LogAttrs(ctx, slog.LevelInfo, "mcp tool call", rec...)
	}
}

// callAttrs returns the measurement options of the call's tool, outcome and
// error code, built once per combination.
func (o *Observer) callAttrs(call runtime.CallEnd) *callAttrs {
	k := attrKey{call.Tool, call.Outcome, call.ErrorCode}
	if a, ok := o.attrs.m.Load(k); ok {
		return a.(*callAttrs)
	}
	tool := attribute.String("mcp.tool.name", call.Tool)
	outcome := attribute.String("mcpwrite.outcome", call.Outcome)
	a := &callAttrs{
		calls:    metric.WithAttributeSet(attribute.NewSet(tool, outcome, attribute.String("error.code", call.ErrorCode))),
		duration: metric.WithAttributeSet(attribute.NewSet(tool, outcome)),
	}
	if o.attrs.n.Add(1) <= maxCachedAttrs {
		o.attrs.m.Store(k, a)
	}
	return a
}

// traceParent is the traceparent propagation.TraceContext injects for
// ctx's span, or "" when it has no valid span context.
func traceParent(ctx context.Context) string {
	var c traceParentCarrier
	propagation.TraceContext{}.Inject(ctx, &c)
	return c.traceParent
}

// traceParentCarrier keeps the traceparent an Inject sets (no map).
type traceParentCarrier struct{ traceParent string }

func (c *traceParentCarrier) Get(key string) string {
	if key == "traceparent" {
		return c.traceParent
	}
	return ""
}

func (c *traceParentCarrier) Set(key, value string) {
	if key == "traceparent" {
		c.traceParent = value
	}
}

func (c *traceParentCarrier) Keys() []string { return []string{"traceparent"} }
