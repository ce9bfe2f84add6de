package mcpgo

import (
	"context"
	"net/http"
	"testing"

	mgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/bearer"
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
