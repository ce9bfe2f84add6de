package otelmcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/otelmcp"
)

const (
	incomingTrace = "0af7651916cd43dd8448eb211c80319c"
	incomingSpan  = "b7ad6b7169203331"
)

func TestSpansMetricsAndLogsOfToolCalls(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	var logs bytes.Buffer
	obs, err := otelmcp.New(otelmcp.WithTracerProvider(tp), otelmcp.WithMeterProvider(mp), otelmcp.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	if err != nil {
		t.Fatal(err)
	}
	rc := runtime.RequestContext{TenantID: "tenant-acme", PrincipalID: "user-ada", TraceParent: "00-" + incomingTrace + "-" + incomingSpan + "-01"}
	s, err := server.New(domain.New(), runtime.WithObserver(obs), runtime.WithRequestContextFunc(runtime.StaticRequestContext(rc)))
	if err != nil {
		t.Fatal(err)
	}
	cs := mcptest.Connect(t, s, mcptest.Options{})
	call := func(tool, args string) map[string]any {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var out map[string]any
		_ = json.Unmarshal(b, &out)
		return out
	}
	created := call("createElement", `{"type":"Node","name":"db-1","description":"d","client_request_id":"k-1"}`)
	call("createElement", `{"type":"Node","name":"db-1","description":"d","client_request_id":"k-1"}`)
	call("createElement", `{"type":"Nod","name":"db-2"}`)
	id := created["element"].(map[string]any)["id"].(string)
	prop := call("deleteElement", `{"id":"`+id+`"}`)["proposal"].(map[string]any)["proposal_id"].(string)
	call("applyProposal", `{"proposal_id":"`+prop+`"}`)

	type spanView struct {
		Name, Trace, Parent string
		Attrs               map[string]string
		Error               bool
	}
	var got []spanView
	for _, sp := range spans.Ended() {
		v := spanView{Name: sp.Name(), Trace: sp.SpanContext().TraceID().String(), Parent: sp.Parent().SpanID().String(), Attrs: map[string]string{}, Error: sp.Status().Code == 1}
		for _, a := range sp.Attributes() {
			v.Attrs[string(a.Key)] = a.Value.String()
		}
		got = append(got, v)
	}
	span := func(tool string, attrs map[string]string, isErr bool) spanView {
		base := map[string]string{"mcp.method.name": "tools/call", "mcp.tool.name": tool, "mcpwrite.replay": "false"}
		for k, v := range attrs {
			base[k] = v
		}
		return spanView{Name: "tools/call " + tool, Trace: incomingTrace, Parent: incomingSpan, Attrs: base, Error: isErr}
	}
	want := []spanView{
		span("createElement", map[string]string{"mcpwrite.outcome": "success"}, false),
		span("createElement", map[string]string{"mcpwrite.outcome": "success", "mcpwrite.replay": "true"}, false),
		span("createElement", map[string]string{"mcpwrite.outcome": "error", "mcpwrite.error.code": "INVALID_ELEMENT_TYPE"}, true),
		span("deleteElement", map[string]string{"mcpwrite.outcome": "proposed", "mcpwrite.proposal": "created"}, false),
		span("applyProposal", map[string]string{"mcpwrite.outcome": "success", "mcpwrite.proposal": "applied"}, false),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("spans (-want +got):\n%s", diff)
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	sums := map[string]int64{}
	histCount := uint64(0)
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					var kv []string
					for _, a := range p.Attributes.ToSlice() {
						if a.Value.String() != "" {
							kv = append(kv, string(a.Key)+"="+a.Value.String())
						}
					}
					sort.Strings(kv)
					sums[m.Name+"{"+strings.Join(kv, ",")+"}"] += p.Value
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					histCount += p.Count
				}
			}
		}
	}
	wantSums := map[string]int64{
		"mcpwrite.tool.calls{mcp.tool.name=createElement,mcpwrite.outcome=success}":                               2,
		"mcpwrite.tool.calls{error.code=INVALID_ELEMENT_TYPE,mcp.tool.name=createElement,mcpwrite.outcome=error}": 1,
		"mcpwrite.tool.calls{mcp.tool.name=deleteElement,mcpwrite.outcome=proposed}":                              1,
		"mcpwrite.tool.calls{mcp.tool.name=applyProposal,mcpwrite.outcome=success}":                               1,
		"mcpwrite.tool.replays{mcp.tool.name=createElement}":                                                      1,
		"mcpwrite.proposals{event=created,mcp.tool.name=deleteElement}":                                           1,
		"mcpwrite.proposals{event=applied,mcp.tool.name=applyProposal}":                                           1,
	}
	if diff := cmp.Diff(wantSums, sums); diff != "" {
		t.Fatalf("metrics (-want +got):\n%s", diff)
	}
	if histCount != 5 {
		t.Fatalf("duration recorded %d times, want 5", histCount)
	}
	if n := strings.Count(logs.String(), "msg=\"mcp tool call\""); n != 5 || !strings.Contains(logs.String(), "trace_id="+incomingTrace) {
		t.Fatalf("%d log records:\n%s", n, logs.String())
	}
}

// A confirmation the user declines is reported as such on the span.
func TestConfirmationEventsAreReported(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	obs, err := otelmcp.New(otelmcp.WithTracerProvider(tp), otelmcp.WithMeterProvider(sdkmetric.NewMeterProvider()), otelmcp.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	rc := runtime.RequestContext{TenantID: "tenant-acme", PrincipalID: "user-ada"}
	s, err := server.New(domain.New(), runtime.WithObserver(obs), runtime.WithRequestContextFunc(runtime.StaticRequestContext(rc)))
	if err != nil {
		t.Fatal(err)
	}
	cs := mcptest.Connect(t, s, mcptest.Options{Elicit: mcptest.Decline().Handler})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "createElement", Arguments: json.RawMessage(`{"type":"Node","name":"db-9"}`)})
	if err != nil || res.IsError {
		t.Fatalf("create: %v %v", res, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out struct{ Element struct{ ID string } }
	_ = json.Unmarshal(b, &out)
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deleteElement", Arguments: json.RawMessage(`{"id":"` + out.Element.ID + `"}`)}); err != nil {
		t.Fatal(err)
	}
	last := spans.Ended()[len(spans.Ended())-1]
	attrs := map[string]string{}
	for _, a := range last.Attributes() {
		attrs[string(a.Key)] = a.Value.String()
	}
	if last.Name() != "tools/call deleteElement" || attrs["mcpwrite.confirmation"] != "declined" || attrs["mcpwrite.error.code"] != "CONFIRMATION_DECLINED" {
		t.Fatalf("span %s %v", last.Name(), attrs)
	}
}
