package bench

import (
	"bytes"
	"encoding/json"
	"testing"

	mgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
)

// BenchmarkSDKSchemaRead is the work mark3labs/mcp-go does on a tool's
// input schema on every tools/call that carries MCP-Protocol-Version
// (MCPServer.validateStandardHeadersForMessage →
// mcp.ValidateParamHeadersLookup → ExtractParamHeaderBindings: the whole
// schema marshalled and parsed again), for archimate's createElement as
// runtime/mcpgo registers it (compact) and as the generated schema
// document writes it (indented, two spaces): what registering the compact
// schema saves per call. go-sdk's validateMcpHeaders does the same.
func BenchmarkSDKSchemaRead(b *testing.B) {
	s, err := server.NewMCPGo(domain.New())
	if err != nil {
		b.Fatal(err)
	}
	st := s.GetTool("createElement")
	if st == nil {
		b.Fatal("archimate registers no createElement")
	}
	compact := st.Tool
	var ind bytes.Buffer
	if err := json.Indent(&ind, compact.RawInputSchema, "", "  "); err != nil {
		b.Fatal(err)
	}
	indented := compact
	indented.RawInputSchema = ind.Bytes()
	for _, c := range []struct {
		name string
		tool mgo.Tool
	}{{"compact", compact}, {"indented", indented}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.ReportMetric(float64(len(c.tool.RawInputSchema)), "schema-bytes")
			for b.Loop() {
				mgo.ExtractParamHeaderBindings(&c.tool)
			}
		})
	}
}
