package bench

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"
	"time"

	mgo "github.com/mark3labs/mcp-go/mcp"
	mgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// sdkSmallSchema is a trivial tool's input schema: createElement's four
// arguments as four strings.
const sdkSmallSchema = `{"type":"object","properties":{"type":{"type":"string"},"name":{"type":"string"},"description":{"type":"string"},"client_request_id":{"type":"string"}}}`

// sdkAnswer is every trivial tool's answer, as structured content.
const sdkAnswer = `{"element":{"id":"e-1","type":"ELEMENT_TYPE_APPLICATION_COMPONENT","name":"Svc","version":1}}`

// createElementSchema is the input schema archimate's createElement lists:
// what a generated write tool hands the SDK.
func createElementSchema(b *testing.B) json.RawMessage {
	b.Helper()
	s, err := server.New(domain.New())
	if err != nil {
		b.Fatal(err)
	}
	res, err := mcptest.Connect(b, s, mcptest.Options{}).ListTools(context.Background(), nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, t := range res.Tools {
		if t.Name == "createElement" {
			raw, err := json.Marshal(t.InputSchema)
			if err != nil {
				b.Fatal(err)
			}
			return raw
		}
	}
	b.Fatal("archimate lists no createElement")
	return nil
}

// goSDKTrivial is a go-sdk server with one tool, floorWrite, that answers
// sdkAnswer without reading its arguments (Server.AddTool: no decoding, no
// validation), its input schema given as schema.
func goSDKTrivial(schema json.RawMessage) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "sdk-overhead", Version: "test"}, nil)
	s.AddTool(&mcp.Tool{Name: "floorWrite", Description: "A trivial tool.", InputSchema: schema},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: sdkAnswer}}, StructuredContent: json.RawMessage(sdkAnswer)}, nil
		})
	return s
}

// mcpGoTrivial is goSDKTrivial on a mark3labs/mcp-go server.
func mcpGoTrivial(schema json.RawMessage) *mgoserver.MCPServer {
	s := mgoserver.NewMCPServer("sdk-overhead", "test", mgoserver.WithToolCapabilities(false))
	s.AddTool(mgo.NewToolWithRawSchema("floorWrite", "A trivial tool.", schema),
		func(context.Context, mgo.CallToolRequest) (*mgo.CallToolResult, error) {
			return &mgo.CallToolResult{Content: []mgo.Content{mgo.NewTextContent(sdkAnswer)}, StructuredContent: json.RawMessage(sdkAnswer)}, nil
		})
	return s
}

// BenchmarkSDKOverhead isolates what each SDK costs per tools/call, apart
// from any tool's work: a trivial tool (the same answer, arguments not
// read) on go-sdk and on mark3labs/mcp-go, each with a four-string input
// schema (small) and with the input schema archimate's createElement lists
// (large), served as the durable benchmark serves them (stateless
// streamable HTTP, bearer tokens, mcphttp's front) and called by the same
// load driver with the same arguments, one client, the four contenders
// taking turns in rounds of 16 calls. Per call it reports wall time, this
// process's CPU and the bytes it allocated (driver included, the same for
// all). large against small on one SDK is what that SDK's per-call work on
// a tool's input schema costs (go-sdk v1.8.0 re-marshals and re-parses the
// whole schema on every call in validateMcpHeaders →
// extractParamHeaderAnnotations → remarshal); go-sdk against mcp-go at the
// same schema is the rest of the difference (request decoding, its 32 KiB
// buffer per decode).
func BenchmarkSDKOverhead(b *testing.B) {
	large := createElementSchema(b)
	small := json.RawMessage(sdkSmallSchema)
	names := []string{"go-sdk-small", "go-sdk-large", "mcpgo-small", "mcpgo-large"}
	urls := []string{
		serveStateless(b, goSDKTrivial(small)),
		serveStateless(b, goSDKTrivial(large)),
		serveStatelessMCPGo(b, mcpGoTrivial(small)),
		serveStatelessMCPGo(b, mcpGoTrivial(large)),
	}
	ctx := context.Background()
	calls := make([]func() error, len(urls))
	for i, u := range urls {
		d := newDriver(b, u)
		calls[i] = func() error { return mcpFloorWrite(ctx, d, "tenant-0001") }
	}
	const round = 16
	type side struct {
		n          int
		wall, cpu  time.Duration
		allocBytes uint64
	}
	sides := make([]side, len(calls))
	var ms runtime.MemStats
	run := func(j int) {
		runtime.ReadMemStats(&ms)
		a0, cpu0, t0 := ms.TotalAlloc, processCPU(b), time.Now()
		for range round {
			if err := calls[j](); err != nil {
				b.Fatalf("%s: %v", names[j], err)
			}
		}
		sides[j].wall += time.Since(t0)
		sides[j].cpu += processCPU(b) - cpu0
		runtime.ReadMemStats(&ms)
		sides[j].allocBytes += ms.TotalAlloc - a0
		sides[j].n += round
	}
	for j := range calls { // connections, first calls
		run(j)
	}
	sides = make([]side, len(calls))
	r := 0
	for b.Loop() {
		for i := range calls {
			run((r + i) % len(calls))
		}
		r++
	}
	for j, s := range sides {
		n := float64(s.n)
		b.ReportMetric(float64(s.wall.Nanoseconds())/n/1e3, names[j]+"-us/call")
		b.ReportMetric(float64(s.cpu.Nanoseconds())/n/1e3, names[j]+"-cpu-us/call")
		b.ReportMetric(float64(s.allocBytes)/n, names[j]+"-B/call")
	}
	b.ReportMetric(float64(len(large)), "large-schema-bytes")
}
