package bench

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/otelmcp"
)

// telemetrySession is createElement in process, with opts added.
func telemetrySession(b *testing.B, opts ...runtime.Option) *mcp.ClientSession {
	b.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "test"}, nil)
	opts = append([]runtime.Option{runtime.WithRequestContextFunc(func(context.Context, *mcp.CallToolRequest) (runtime.RequestContext, bool) {
		return benchRC, true
	})}, opts...)
	if err := archimatev1mcpwrite.RegisterArchitectureServiceTools(server, echoHandler{}, opts...); err != nil {
		b.Fatal(err)
	}
	return connectInMemory(b, server)
}

// BenchmarkTelemetry is what the OpenTelemetry observer (a span exported
// through a batch processor, five instruments, no log records) adds to a
// write call: ours is with it, baseline without, alternating on identical
// arguments; ours-ns/op and baseline-ns/op are each side's own time.
func BenchmarkTelemetry(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	obs, err := otelmcp.New(otelmcp.WithTracerProvider(tp), otelmcp.WithMeterProvider(mp), otelmcp.WithLogger(nil))
	if err != nil {
		b.Fatal(err)
	}
	with, without := telemetrySession(b, runtime.WithObserver(obs)), telemetrySession(b)
	ctx := context.Background()
	call := func(cs *mcp.ClientSession) time.Duration {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "createElement", Arguments: json.RawMessage(createElementArgs)})
		d := time.Since(start)
		if err != nil || res.IsError {
			b.Fatalf("createElement: %v %v", err, res)
		}
		return d
	}
	call(with)
	call(without)
	var ours, base time.Duration
	n := 0
	for b.Loop() {
		n++
		if n%2 == 0 {
			ours += call(with)
			base += call(without)
		} else {
			base += call(without)
			ours += call(with)
		}
	}
	b.ReportMetric(float64(ours.Nanoseconds())/float64(n), "ours-ns/op")
	b.ReportMetric(float64(base.Nanoseconds())/float64(n), "baseline-ns/op")
}
