package runtime_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// Under an observer, the request context is resolved once per call: the
// observer and the pipeline see the same one, and a request-context
// function (which may look the caller up) runs once.
func TestObserverAndPipelineResolveTheRequestContextOnce(t *testing.T) {
	var calls atomic.Int32
	counting := func(ctx context.Context, req *mcp.CallToolRequest) (runtime.RequestContext, bool) {
		calls.Add(1)
		return metaContext(ctx, req)
	}
	obs := &endsObserver{}
	h := newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithObserver(obs), runtime.WithRequestContextFunc(counting)}})
	for _, tc := range []struct{ tool, args string }{
		{"create_note", `{"title":"Buy milk"}`},
		{"get_write_schema", `{"operation":"create_note"}`},
	} {
		calls.Store(0)
		if got := h.call(alice, tc.tool, tc.args); got.isError {
			t.Fatalf("%s: %s", tc.tool, got.text)
		}
		if n := calls.Load(); n != 1 {
			t.Errorf("%s: the request-context function ran %d times, want 1", tc.tool, n)
		}
	}
}
