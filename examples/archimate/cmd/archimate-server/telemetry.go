package main

import (
	"context"
	"io"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/otelmcp"
)

// stdoutTelemetry exports every tool call's span and the metrics (every
// interval) as JSON to w, and logs a record per call to logger: what
// -otel-stdout turns on. Swap the exporters for OTLP ones to send them to a
// collector. The returned function flushes and stops the exporters.
func stdoutTelemetry(w io.Writer, interval time.Duration, logger *slog.Logger) (runtime.Option, func(context.Context) error, error) {
	te, err := stdouttrace.New(stdouttrace.WithWriter(w))
	if err != nil {
		return nil, nil, err
	}
	me, err := stdoutmetric.New(stdoutmetric.WithWriter(w))
	if err != nil {
		return nil, nil, err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(te))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(me, sdkmetric.WithInterval(interval))))
	obs, err := otelmcp.New(otelmcp.WithTracerProvider(tp), otelmcp.WithMeterProvider(mp), otelmcp.WithLogger(logger))
	if err != nil {
		return nil, nil, err
	}
	shutdown := func(ctx context.Context) error {
		err := tp.Shutdown(ctx)
		if merr := mp.Shutdown(ctx); err == nil {
			err = merr
		}
		return err
	}
	return runtime.WithObserver(obs), shutdown, nil
}
