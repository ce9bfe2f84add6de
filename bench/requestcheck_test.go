package bench

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	purchasingdomain "github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/gen/purchasing/v1/purchasingv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// searchArgs are the arguments both contenders of BenchmarkRequestCheck
// read: a search_items call whose request carries buf.validate rules.
const searchArgs = `{"query":"bolt","limit":5}`

// requestCheckSession connects a client in process to the purchasing tools,
// with the protovalidate request check or without it (WithoutRequestCheck).
func requestCheckSession(b *testing.B, check bool) *mcp.ClientSession {
	b.Helper()
	opts := []runtime.Option{runtime.WithRequestContextFunc(func(context.Context, *mcp.CallToolRequest) (runtime.RequestContext, bool) {
		return benchRC, true
	})}
	if !check {
		opts = append(opts, runtime.WithoutRequestCheck())
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "test"}, nil)
	if err := purchasingv1mcpwrite.RegisterPurchasingServiceTools(server, purchasingdomain.NewDemo(), opts...); err != nil {
		b.Fatalf("register: %v", err)
	}
	return connectInMemory(b, server)
}

// BenchmarkRequestCheck is what the protovalidate request check (every
// buf.validate rule of the complete request, after enrichment) adds to a
// call: the same read on two servers that differ only in
// WithoutRequestCheck, alternating which goes first. ours-ns/op is the
// checked server's time, baseline-ns/op the unchecked one's.
func BenchmarkRequestCheck(b *testing.B) {
	checked, unchecked := requestCheckSession(b, true), requestCheckSession(b, false)
	ctx := context.Background()
	call := func(cs *mcp.ClientSession) time.Duration {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_items", Arguments: json.RawMessage(searchArgs)})
		d := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if res.IsError {
			out, _ := json.Marshal(res.StructuredContent)
			b.Fatalf("search_items failed: %s", out)
		}
		return d
	}
	call(checked)
	call(unchecked)
	var ours, base time.Duration
	n := 0
	for b.Loop() {
		n++
		if n%2 == 0 {
			ours += call(checked)
			base += call(unchecked)
		} else {
			base += call(unchecked)
			ours += call(checked)
		}
	}
	b.ReportMetric(float64(ours.Nanoseconds())/float64(n), "ours-ns/op")
	b.ReportMetric(float64(base.Nanoseconds())/float64(n), "baseline-ns/op")
}
