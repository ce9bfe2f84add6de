package mcptest_test

import (
	"context"
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

// A session a test connects itself is scanned once ScanAnswers is called
// on its client; an answer received by another client is checked with
// CheckAnswer.
func TestScanAnswersAndCheckAnswerReportATenantID(t *testing.T) {
	mcptest.ForbidInAnswers("tenant-zeta")
	s := mcp.NewServer(&mcp.Implementation{Name: "forbid", Version: "test"}, nil)
	raw(s, "leaks", &mcp.CallToolResult{Content: text(`{"tenant":"tenant-zeta"}`), StructuredContent: map[string]any{"tenant": "tenant-zeta"}})
	tb := &errorsTB{}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "own", Version: "test"}, nil)
	mcptest.ScanAnswers(tb, client)
	cs, err := client.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	mcptest.Call(tb, cs, "leaks", `{}`)
	mcptest.CheckAnswer(tb, "other_client", `{"model_id":"model-tenant-zeta-main"}`)
	mcptest.CheckAnswer(tb, "other_client", `{"tenant":"tenant-zeta"}`)
	want := []string{
		`mcptest: the answer of leaks carries the forbidden value "tenant-zeta": {"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"forbid","version":"test"}},"content":[{"type":"text","text":"{\"tenant\":\"tenant-zeta\"}"}],"structuredContent":{"tenant":"tenant-zeta"},"resultType":"complete"}`,
		`mcptest: the answer of other_client carries the forbidden value "tenant-zeta": {"tenant":"tenant-zeta"}`,
	}
	if !reflect.DeepEqual(tb.errs, want) || len(tb.fatals) != 0 {
		t.Fatalf("errors %q, fatals %q; want %q", tb.errs, tb.fatals, want)
	}
}

// A client made with NewClient is scanned as Connect's are.
func TestNewClientScansItsAnswers(t *testing.T) {
	mcptest.ForbidInAnswers("tenant-zeta")
	s := mcp.NewServer(&mcp.Implementation{Name: "forbid", Version: "test"}, nil)
	raw(s, "leaks", &mcp.CallToolResult{Content: text(`{"principal":"tenant-zeta"}`), StructuredContent: map[string]any{"principal": "tenant-zeta"}})
	tb := &errorsTB{}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcptest.NewClient(tb, &mcp.Implementation{Name: "own", Version: "test"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	mcptest.Call(tb, cs, "leaks", `{}`)
	want := []string{`mcptest: the answer of leaks carries the forbidden value "tenant-zeta": {"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"forbid","version":"test"}},"content":[{"type":"text","text":"{\"principal\":\"tenant-zeta\"}"}],"structuredContent":{"principal":"tenant-zeta"},"resultType":"complete"}`}
	if !reflect.DeepEqual(tb.errs, want) || len(tb.fatals) != 0 {
		t.Fatalf("errors %q, fatals %q; want %q", tb.errs, tb.fatals, want)
	}
}

// A resource read that carries a forbidden value fails the test too.
func TestForbidInAnswersScansResourceReads(t *testing.T) {
	mcptest.ForbidInAnswers("tenant-zeta")
	s := mcp.NewServer(&mcp.Implementation{Name: "forbid", Version: "test"}, nil)
	s.AddResource(&mcp.Resource{URI: "test://owner", Name: "owner"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://owner", Text: "owned by tenant-zeta"}}}, nil
	})
	tb := &errorsTB{}
	cs := mcptest.Connect(tb, s, mcptest.Options{})
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "test://owner"}); err != nil {
		t.Fatal(err)
	}
	tb.runCleanups()
	want := []string{`mcptest: the answer of test://owner carries the forbidden value "tenant-zeta": {"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"forbid","version":"test"}},"ttlMs":0,"cacheScope":"public","contents":[{"uri":"test://owner","text":"owned by tenant-zeta"}],"resultType":"complete"}`}
	if !reflect.DeepEqual(tb.errs, want) || len(tb.fatals) != 0 {
		t.Fatalf("errors %q, fatals %q; want %q", tb.errs, tb.fatals, want)
	}
}
