package otelmcp

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// TestTraceParentAsTraceContextInjects compares traceParent with what
// propagation.TraceContext injects, for every trace flags byte.
func TestTraceParentAsTraceContextInjects(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ts, err := trace.ParseTraceState("vendor=x")
	if err != nil {
		t.Fatal(err)
	}
	for flags := range 256 {
		var tid trace.TraceID
		var sid trace.SpanID
		for i := range tid {
			tid[i] = byte(rng.IntN(256))
		}
		for i := range sid {
			sid[i] = byte(rng.IntN(256))
		}
		sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.TraceFlags(flags), TraceState: ts, Remote: flags%2 == 0})
		ctx := trace.ContextWithSpanContext(context.Background(), sc)
		carrier := propagation.MapCarrier{}
		propagation.TraceContext{}.Inject(ctx, carrier)
		if got, want := traceParent(ctx), carrier["traceparent"]; got != want || want == "" {
			t.Fatalf("flags %#x: traceParent %q, TraceContext injects %q", flags, got, want)
		}
	}
	if got := traceParent(context.Background()); got != "" {
		t.Fatalf("an invalid span context gives %q, want none", got)
	}
}

// TestCallAttrsCacheIsBounded: past maxCachedAttrs combinations a call
// builds its own sets, with the same attributes.
func TestCallAttrsCacheIsBounded(t *testing.T) {
	o, err := New(WithMeterProvider(sdkmetric.NewMeterProvider()), WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	setOf := func(opt metric.MeasurementOption) attribute.Set {
		return metric.NewAddConfig([]metric.AddOption{opt}).Attributes()
	}
	for i := range maxCachedAttrs + 10 {
		call := runtime.CallEnd{Tool: fmt.Sprintf("tool%d", i), Outcome: "error", ErrorCode: "NOT_FOUND"}
		a := o.callAttrs(call)
		want := attribute.NewSet(attribute.String("mcp.tool.name", call.Tool), attribute.String("mcpwrite.outcome", "error"), attribute.String("error.code", "NOT_FOUND"))
		if got := setOf(a.calls); !got.Equals(&want) {
			t.Fatalf("call %d: calls attributes %v, want %v", i, got.ToSlice(), want.ToSlice())
		}
		wantDur := attribute.NewSet(attribute.String("mcp.tool.name", call.Tool), attribute.String("mcpwrite.outcome", "error"))
		if got := setOf(a.duration); !got.Equals(&wantDur) {
			t.Fatalf("call %d: duration attributes %v, want %v", i, got.ToSlice(), wantDur.ToSlice())
		}
		if again := o.callAttrs(call); (again == a) != (i < maxCachedAttrs) {
			t.Fatalf("call %d: cached %v, want cached only below %d", i, again == a, maxCachedAttrs)
		}
	}
	if o2 := *o; o2 != *o {
		t.Fatal("an Observer is not equal to its copy")
	}
	n := 0
	o.attrs.m.Range(func(any, any) bool { n++; return true })
	if n != maxCachedAttrs {
		t.Fatalf("%d cached sets, want %d", n, maxCachedAttrs)
	}
}

// BenchmarkObserverCall is the observer's own cost per call: the span,
// the calls counter and the duration histogram, no log record.
func BenchmarkObserverCall(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	o, err := New(WithTracerProvider(tp), WithMeterProvider(mp), WithLogger(nil))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		ctx := o.CallStarted(context.Background(), runtime.CallStart{Tool: "createElement"})
		o.CallEnded(ctx, runtime.CallEnd{Tool: "createElement", Outcome: "success", Duration: time.Millisecond})
	}
}
