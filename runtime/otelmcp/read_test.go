package otelmcp_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	crmdomain "github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/gen/crm/v1/crmv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/otelmcp"
)

// A read tool's span says it is a read; a write's does not carry the key.
func TestReadCallSpanIsMarkedRead(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	obs, err := otelmcp.New(otelmcp.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))))
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "crm", Version: "test"}, nil)
	rc := runtime.RequestContext{TenantID: "tenant-crm", PrincipalID: "user-ada"}
	if err := crmv1mcpwrite.RegisterCrmServiceTools(s, crmdomain.New(nil), runtime.WithObserver(obs), runtime.WithRequestContextFunc(runtime.StaticRequestContext(rc))); err != nil {
		t.Fatal(err)
	}
	cs := mcptest.Connect(t, s, mcptest.Options{})
	for _, c := range [][2]string{{"list_people", `{}`}, {"get_person", `{"person_id":"per_x"}`}, {"create_person", `{"first_name":"Ada"}`}} {
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c[0], Arguments: json.RawMessage(c[1])}); err != nil {
			t.Fatal(err)
		}
	}
	var got []map[string]string
	for _, sp := range spans.Ended() {
		attrs := map[string]string{}
		for _, a := range sp.Attributes() {
			if k := string(a.Key); k == "mcp.tool.name" || k == "mcpwrite.outcome" || k == "mcpwrite.read" {
				attrs[k] = a.Value.String()
			}
		}
		got = append(got, attrs)
	}
	want := []map[string]string{
		{"mcp.tool.name": "list_people", "mcpwrite.outcome": "success", "mcpwrite.read": "true"},
		{"mcp.tool.name": "get_person", "mcpwrite.outcome": "error", "mcpwrite.read": "true"},
		{"mcp.tool.name": "create_person", "mcpwrite.outcome": "proposed"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("span attributes (-want +got):\n%s", diff)
	}
}
