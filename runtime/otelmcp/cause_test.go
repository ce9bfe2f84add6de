package otelmcp_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/otelmcp"
)

// The error an agent was not shown reaches the span (an exception event,
// mcpwrite.error.trace_id) and the log record, under the trace_id the agent
// was given.
func TestHiddenCauseIsRecordedOnTheSpanAndTheLog(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	var logs bytes.Buffer
	obs, err := otelmcp.New(otelmcp.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))),
		otelmcp.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	if err != nil {
		t.Fatal(err)
	}
	const cause = "dial tcp 10.0.0.9:5432: connect: connection refused"
	ctx := obs.CallStarted(context.Background(), runtime.CallStart{Tool: "createElement"})
	obs.CallEnded(ctx, runtime.CallEnd{Tool: "createElement", Outcome: "error", ErrorCode: "UNAVAILABLE",
		ErrorTraceID: "0123456789abcdef0123456789abcdef", Cause: errors.New(cause)})
	ended := spans.Ended()
	if len(ended) != 1 {
		t.Fatalf("%d spans", len(ended))
	}
	attrs := map[string]string{}
	for _, a := range ended[0].Attributes() {
		attrs[string(a.Key)] = a.Value.String()
	}
	if attrs["mcpwrite.error.trace_id"] != "0123456789abcdef0123456789abcdef" || attrs["mcpwrite.error.code"] != "UNAVAILABLE" {
		t.Fatalf("span attributes %v", attrs)
	}
	events := ended[0].Events()
	if len(events) != 1 || events[0].Name != "exception" {
		t.Fatalf("span events %v", events)
	}
	msg := ""
	for _, a := range events[0].Attributes {
		if a.Key == "exception.message" {
			msg = a.Value.String()
		}
	}
	if msg != cause {
		t.Fatalf("exception.message %q, want %q", msg, cause)
	}
	if line := logs.String(); !strings.Contains(line, "error_trace_id=0123456789abcdef0123456789abcdef") || !strings.Contains(line, `cause="`+cause+`"`) {
		t.Fatalf("log record: %s", line)
	}
}
