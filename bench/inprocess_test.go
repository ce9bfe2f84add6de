package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// keyedEchoInput is echoInput with the idempotency key the generated tool
// takes, so that the baseline decodes the same arguments.
type keyedEchoInput struct {
	echoInput
	ClientRequestID string `json:"client_request_id,omitempty" jsonschema:"Idempotency key"`
}

// inProcessSession connects a go-sdk client in process to a server with the
// generated tools and two hand-written baselines (echoElement, and
// echoElementKeyed taking client_request_id too).
func inProcessSession(b *testing.B) *mcp.ClientSession {
	b.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "test"}, nil)
	err := archimatev1mcpwrite.RegisterArchitectureServiceTools(server, echoHandler{},
		runtime.WithRequestContextFunc(func(context.Context, *mcp.CallToolRequest) (runtime.RequestContext, bool) {
			return benchRC, true
		}))
	if err != nil {
		b.Fatalf("register: %v", err)
	}
	echo := func(in echoInput) echoOutput {
		return echoOutput{Success: true, Element: echoElement{
			Type: in.Type, Name: in.Name, Description: in.Description,
			Properties: in.Properties, ParentID: in.ParentID, Version: 1,
		}}
	}
	mcp.AddTool(server, &mcp.Tool{Name: "echoElement", Description: "Create an element (hand-written baseline)."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoInput) (*mcp.CallToolResult, echoOutput, error) {
			return nil, echo(in), nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "echoElementKeyed", Description: "Create an element with a key (hand-written baseline)."},
		func(_ context.Context, _ *mcp.CallToolRequest, in keyedEchoInput) (*mcp.CallToolResult, echoOutput, error) {
			return nil, echo(in.echoInput), nil
		})
	return connectInMemory(b, server)
}

// BenchmarkInProcessCall is the per-call cost of a generated write tool
// against a trivial go-sdk tool taking the same arguments, through a real
// client in process (no network), so that the MCP layer's own work is what
// is compared. Each op is one call of each, alternating which goes first;
// ours-ns/op and baseline-ns/op are each tool's own time. keyed: every call
// carries a fresh client_request_id (ours claims and records it).
func BenchmarkInProcessCall(b *testing.B) {
	for _, keyed := range []bool{false, true} {
		name := "no-key"
		if keyed {
			name = "keyed"
		}
		b.Run(name, func(b *testing.B) {
			cs := inProcessSession(b)
			ctx := context.Background()
			baseTool := "echoElement"
			if keyed {
				baseTool = "echoElementKeyed"
			}
			n := 0
			call := func(tool string) time.Duration {
				args := createElementArgs
				if keyed {
					args = strings.TrimSuffix(args, "}") + fmt.Sprintf(`,"client_request_id":"bench-%d"}`, n)
				}
				start := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
				d := time.Since(start)
				if err != nil {
					b.Fatalf("%s: %v", tool, err)
				}
				if res.IsError {
					out, _ := json.Marshal(res.StructuredContent)
					b.Fatalf("%s failed: %s", tool, out)
				}
				return d
			}
			call("createElement")
			call(baseTool)
			var ours, base time.Duration
			for b.Loop() {
				n++
				if n%2 == 0 {
					ours += call("createElement")
					base += call(baseTool)
				} else {
					base += call(baseTool)
					ours += call("createElement")
				}
			}
			b.ReportMetric(float64(ours.Nanoseconds())/float64(n), "ours-ns/op")
			b.ReportMetric(float64(base.Nanoseconds())/float64(n), "baseline-ns/op")
		})
	}
}
