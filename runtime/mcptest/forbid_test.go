package mcptest_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// errorsTB records Errorf as well.
type errorsTB struct {
	recordingTB
	errs []string
}

func (r *errorsTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// An answer that carries a forbidden value as a token fails the test that
// made the session; the value inside a longer identifier does not.
func TestForbidInAnswersReportsAnAnswerCarryingATenantID(t *testing.T) {
	mcptest.ForbidInAnswers("tenant-zeta", "")
	s := mcp.NewServer(&mcp.Implementation{Name: "forbid", Version: "test"}, nil)
	raw(s, "leaks", &mcp.CallToolResult{Content: text(`{"meta":{"tenant_id":"tenant-zeta"}}`), StructuredContent: map[string]any{"meta": map[string]any{"tenant_id": "tenant-zeta"}}})
	raw(s, "names_a_model", &mcp.CallToolResult{Content: text(`{"model_id":"model-tenant-zeta-main"}`), StructuredContent: map[string]any{"model_id": "model-tenant-zeta-main"}})
	tb := &errorsTB{}
	cs := mcptest.Connect(tb, s, mcptest.Options{})
	mcptest.Call(tb, cs, "names_a_model", `{}`)
	mcptest.Call(tb, cs, "leaks", `{}`)
	tb.runCleanups()
	want := []string{`mcptest: the answer of leaks carries the forbidden value "tenant-zeta": {"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"forbid","version":"test"}},"content":[{"type":"text","text":"{\"meta\":{\"tenant_id\":\"tenant-zeta\"}}"}],"structuredContent":{"meta":{"tenant_id":"tenant-zeta"}},"resultType":"complete"}`}
	if !reflect.DeepEqual(tb.errs, want) || len(tb.fatals) != 0 {
		t.Fatalf("errors %q, fatals %q; want %q", tb.errs, tb.fatals, want)
	}
}
