package bench

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// echoInput is the baseline tool's input: the agent-facing fields of
// createElement, decoded by the go-sdk from the inferred schema.
type echoInput struct {
	Type        string            `json:"type" jsonschema:"Element type"`
	Name        string            `json:"name" jsonschema:"Element name"`
	Description string            `json:"description,omitempty" jsonschema:"Element description"`
	Properties  map[string]string `json:"properties,omitempty" jsonschema:"Custom properties"`
	ParentID    string            `json:"parent_id,omitempty" jsonschema:"Parent element ID"`
}

// echoElement is the baseline tool's structured output.
type echoElement struct {
	Type        string            `json:"type"`
	Name        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	Properties  map[string]string `json:"properties,omitempty"`
	ParentID    string            `json:"parent_id,omitempty"`
	Version     int               `json:"version"`
}

type echoOutput struct {
	Success bool        `json:"success"`
	Element echoElement `json:"element"`
}

// httpSession serves one server carrying both the generated tools and the
// hand-written baseline tool over streamable HTTP on 127.0.0.1 and connects
// a go-sdk client to it.
func httpSession(b *testing.B) *mcp.ClientSession {
	b.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "test"}, nil)
	err := archimatev1mcpwrite.RegisterArchitectureServiceTools(server, echoHandler{},
		runtime.WithRequestContextFunc(func(context.Context, *mcp.CallToolRequest) (runtime.RequestContext, bool) {
			return benchRC, true
		}))
	if err != nil {
		b.Fatalf("register: %v", err)
	}
	mcp.AddTool(server, &mcp.Tool{Name: "echoElement", Description: "Create an element (hand-written baseline)."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoInput) (*mcp.CallToolResult, echoOutput, error) {
			return nil, echoOutput{Success: true, Element: echoElement{
				Type: in.Type, Name: in.Name, Description: in.Description,
				Properties: in.Properties, ParentID: in.ParentID, Version: 1,
			}}, nil
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	b.Cleanup(ts.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "test"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
	if err != nil {
		b.Fatalf("connect: %v", err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	return cs
}

// BenchmarkEndToEnd measures sequential tools/call throughput through a
// real client and the streamable HTTP transport. ours: createElement (the
// whole generated pipeline: strict decode, validation, enrichment,
// response envelope with next steps). baseline: a trivial tool added with
// mcp.AddTool and a struct input, on the same server and session. One op
// is one call of each, alternating which goes first, so load from
// elsewhere on the machine hits both alike; ours-calls/s and
// baseline-calls/s are each tool's own rate.
func BenchmarkEndToEnd(b *testing.B) {
	cs := httpSession(b)
	ctx := context.Background()
	call := func(tool string) time.Duration {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(createElementArgs)})
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
	call("createElement") // warm up the connection and both tools
	call("echoElement")
	var ours, base time.Duration
	n := 0
	for b.Loop() {
		if n%2 == 0 {
			ours += call("createElement")
			base += call("echoElement")
		} else {
			base += call("echoElement")
			ours += call("createElement")
		}
		n++
	}
	b.ReportMetric(float64(n)/ours.Seconds(), "ours-calls/s")
	b.ReportMetric(float64(n)/base.Seconds(), "baseline-calls/s")
}
