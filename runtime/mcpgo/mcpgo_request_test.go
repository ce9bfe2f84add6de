package mcpgo

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	mgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/bearer"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/callmeta"
)

// RequestContextFromCall takes tenant and principal from the verified
// bearer identity only, and trace fields from the header or _meta.
func TestRequestContextFromCall(t *testing.T) {
	const tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	req := mgo.CallToolRequest{Header: http.Header{"X-Correlation-Id": {"corr-h"}}}
	req.Params.Name = "task_create"
	req.Params.Meta = &mgo.Meta{AdditionalFields: map[string]any{
		"traceparent": tp, "io.mcpwrite/correlation_id": "corr-meta", "mcpwrite/tenant_id": "forged",
	}}
	ctx := bearer.NewContext(context.Background(), bearer.Identity{Tenant: "acme", Principal: "alice"})
	got, ok := RequestContextFromCall(ctx, req)
	want := runtime.RequestContext{TenantID: "acme", PrincipalID: "alice", TraceParent: tp, CorrelationID: "corr-h"}
	if !ok || got != want {
		t.Fatalf("RequestContextFromCall = %+v, %v; want %+v, true", got, ok, want)
	}
	got, ok = RequestContextFromCall(context.Background(), req)
	want = runtime.RequestContext{TraceParent: tp, CorrelationID: "corr-h"}
	if ok || got != want {
		t.Fatalf("without a bearer identity = %+v, %v; want %+v, false", got, ok, want)
	}
}

// RequestContextFromCall reads the call in place and answers what the
// call's full runtime request (request) gives callmeta.
func TestRequestContextFromCallAsTheRequest(t *testing.T) {
	const tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	const tp2 = "00-1af7651916cd43dd8448eb211c80319c-c7ad6b7169203331-01"
	ids := []bearer.Identity{{}, {Tenant: "acme"}, {Tenant: "acme", Principal: "alice"}}
	headers := []http.Header{nil, {"X-Correlation-Id": {"corr-h"}}, {"Traceparent": {"bad"}, callmeta.HeaderCausationID: {"cause-h"}, callmeta.HeaderGeneratedTraceParent: {tp2}, callmeta.HeaderGeneratedCorrelationID: {"corr-g"}}}
	metas := []*mgo.Meta{nil, {}, {ProgressToken: "p1"}, {AdditionalFields: map[string]any{"traceparent": tp, "io.mcpwrite/correlation_id": "corr-meta", "io.mcpwrite/causation_id": 7}}, {AdditionalFields: map[string]any{"io.mcpwrite/causation_id": "cause-m"}}}
	for _, id := range ids {
		for _, h := range headers {
			for _, m := range metas {
				req := mgo.CallToolRequest{Header: h}
				req.Params.Name, req.Params.Meta = "task_create", m
				ctx := context.Background()
				if m == nil && h == nil {
					ctx = callmeta.WithRequestMetadata(ctx, callmeta.RequestMetadata{TenantID: "in-process", PrincipalID: "p", CorrelationID: "corr-ctx"})
				}
				if id.Tenant != "" {
					ctx = bearer.NewContext(ctx, id)
				}
				got, gotOK := RequestContextFromCall(ctx, req)
				md, wantOK := callmeta.RequestMetadataFromCall(ctx, request(ctx, req, nil))
				if want := runtime.RequestContext(md); got != want || gotOK != wantOK {
					t.Errorf("%+v %v %+v: got %+v, %v; want %+v, %v", id, h, m, got, gotOK, want, wantOK)
				}
			}
		}
	}
}

func BenchmarkRequestContextFromCall(b *testing.B) {
	req := mgo.CallToolRequest{Header: http.Header{"Content-Type": {"application/json"}, "X-Correlation-Id": {"corr-h"}}}
	req.Params.Name = "createElement"
	req.Params.RawArguments = json.RawMessage(`{"type":"ApplicationComponent","name":"Svc-1","client_request_id":"k-1"}`)
	req.Params.Meta = &mgo.Meta{AdditionalFields: map[string]any{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}}
	ctx := bearer.NewContext(context.Background(), bearer.Identity{Tenant: "acme", Principal: "alice"})
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := RequestContextFromCall(ctx, req); !ok {
			b.Fatal("no identity")
		}
	}
}

// request's _meta is mcp-go's fields, with the progress token under
// "progressToken"; without a progress token it is mcp-go's map itself.
func TestRequestMeta(t *testing.T) {
	fields := map[string]any{"traceparent": "tp", "k": 1.0}
	for _, tc := range []struct {
		name string
		meta *mgo.Meta
		want map[string]any
		same bool
	}{
		{"none", nil, nil, false},
		{"empty", &mgo.Meta{}, map[string]any{}, false},
		{"fields", &mgo.Meta{AdditionalFields: fields}, map[string]any{"traceparent": "tp", "k": 1.0}, true},
		{"progress", &mgo.Meta{ProgressToken: "p1", AdditionalFields: fields}, map[string]any{"traceparent": "tp", "k": 1.0, "progressToken": "p1"}, false},
		{"progress only", &mgo.Meta{ProgressToken: 7}, map[string]any{"progressToken": 7}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := mgo.CallToolRequest{}
			req.Params.Meta = tc.meta
			tr := request(context.Background(), req, nil)
			if (tr.Meta == nil) != (tc.want == nil) || !reflect.DeepEqual(tr.Meta, tc.want) {
				t.Fatalf("Meta = %#v, want %#v", tr.Meta, tc.want)
			}
			if tc.same && reflect.ValueOf(tr.Meta).Pointer() != reflect.ValueOf(fields).Pointer() {
				t.Error("Meta is a copy of mcp-go's map")
			}
			if tc.meta != nil && tr.ProgressToken != tc.meta.ProgressToken {
				t.Errorf("ProgressToken = %v, want %v", tr.ProgressToken, tc.meta.ProgressToken)
			}
		})
	}
	if len(fields) != 2 {
		t.Errorf("mcp-go's map was written: %v", fields)
	}
}

// BenchmarkRequest is the runtime's view of a call with a _meta of three
// fields and no progress token, made once per call.
func BenchmarkRequest(b *testing.B) {
	req := mgo.CallToolRequest{Header: http.Header{"Content-Type": {"application/json"}}}
	req.Params.Name = "createElement"
	req.Params.Meta = &mgo.Meta{AdditionalFields: map[string]any{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "io.mcpwrite/correlation_id": "c-1", "client": "bench"}}
	args := json.RawMessage(`{"type":"ApplicationComponent","name":"Svc-1","client_request_id":"k-1"}`)
	ctx := bearer.NewContext(context.Background(), bearer.Identity{Tenant: "acme", Principal: "alice"})
	b.ReportAllocs()
	for b.Loop() {
		if tr := request(ctx, req, args); !tr.HasToken {
			b.Fatal("no identity")
		}
	}
}
