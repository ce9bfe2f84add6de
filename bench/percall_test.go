package bench

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/testing/protocmp"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

var fixedNow = time.Date(2026, 11, 22, 10, 30, 0, 0, time.UTC)

// seeded returns the deterministic random source both sides of a
// comparison share.
func seeded() *rand.ChaCha8 { return rand.NewChaCha8([32]byte{42}) }

// pipelineRequest runs createElement through the real generated tool on an
// in-process MCP session and returns the request the domain received.
func pipelineRequest(t *testing.T, args string) *archimatev1.CreateElementRequest {
	t.Helper()
	var got *archimatev1.CreateElementRequest
	server := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "test"}, nil)
	err := archimatev1mcpwrite.RegisterArchitectureServiceTools(server,
		echoHandler{last: func(r *archimatev1.CreateElementRequest) { got = r }},
		runtime.WithClock(func() time.Time { return fixedNow }),
		runtime.WithRand(seeded()),
		runtime.WithRequestContextFunc(func(context.Context, *mcp.CallToolRequest) (runtime.RequestContext, bool) {
			return benchRC, true
		}))
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	cs := connectInMemory(t, server)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "createElement", Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("createElement: %v", err)
	}
	if res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		t.Fatalf("createElement failed: %s", b)
	}
	if got == nil {
		t.Fatal("the domain received no request")
	}
	return got
}

// connectInMemory connects a go-sdk client to server in process.
func connectInMemory(t testing.TB, server *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// preparer runs the generated createElement decode -> validate -> enrich
// path without MCP, as a tool call does before the handler.
func preparer(tb testing.TB, clock func() time.Time, entropy *rand.ChaCha8) *runtime.Preparer {
	tb.Helper()
	opts := []runtime.PreparerOption{}
	if clock != nil {
		opts = append(opts, runtime.WithClock(clock))
	}
	if entropy != nil {
		opts = append(opts, runtime.WithRand(entropy))
	}
	p, err := runtime.NewPreparer(archimatev1mcpwrite.NewArchitectureService(echoHandler{}), opts...)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// prepareCreate runs the preparer on createElement.
func prepareCreate(p *runtime.Preparer, args []byte) (*archimatev1.CreateElementRequest, runtime.Errors) {
	m, es := p.Prepare(context.Background(), "createElement", args, benchRC)
	req, _ := m.(*archimatev1.CreateElementRequest)
	return req, es
}

// The per-call benchmark times the Preparer, so it must build exactly the
// request a tool call builds from the same input, clock and entropy.
func TestPreparerMatchesThePipeline(t *testing.T) {
	tests := []struct {
		name string
		args string
	}{
		{"benchmark input", createElementArgs},
		{"agent overrides id and model", `{"type":"Component","name":"Billing","id":"el-1","model_id":"m-7","parent_id":"p-1"}`},
		{"required fields only", `{"type":"Node","name":"db-01"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := pipelineRequest(t, tt.args)
			got, es := prepareCreate(preparer(t, func() time.Time { return fixedNow }, seeded()), []byte(tt.args))
			if len(es) > 0 {
				t.Fatalf("preparer failed: %v", es)
			}
			if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
				t.Fatalf("preparer request differs from the pipeline's (-pipeline +preparer):\n%s", diff)
			}
		})
	}
}
