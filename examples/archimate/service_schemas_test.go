package archimate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
)

var updateSchemas = flag.Bool("update", false, "rewrite testdata/service_tool_schemas.txt from tools/list")

// serviceTools are the tools the runtime adds beside the generated ones.
var serviceTools = map[string]bool{
	"validateWrite": true, "getWriteSchema": true, "getElementTypes": true,
	"getRelationshipTypes": true, "applyProposal": true, "discardProposal": true,
}

// rawToolsList speaks JSON-RPC to the server directly and returns the
// tools/list result exactly as the server wrote it.
func rawToolsList(t *testing.T, s *mcp.Server) []byte {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	send := func(id int64, method, params string) {
		msg := &jsonrpc.Request{Method: method, Params: json.RawMessage(params)}
		if id != 0 {
			msg.ID, err = jsonrpc.MakeID(float64(id))
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := conn.Write(ctx, msg); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
	read := func(method string) []byte {
		msg, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		resp, ok := msg.(*jsonrpc.Response)
		if !ok || resp.Error != nil {
			t.Fatalf("%s: got %#v", method, msg)
		}
		return resp.Result
	}
	send(1, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`)
	read("initialize")
	send(0, "notifications/initialized", `{}`)
	send(2, "tools/list", `{}`)
	return read("tools/list")
}

// TestServiceToolSchemaBytes pins the input and output schemas of every
// service tool byte for byte, as tools/list sends them.
func TestServiceToolSchemaBytes(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "archimate", Version: "test"}, nil)
	if err := archimatev1mcpwrite.RegisterArchitectureServiceTools(s, domain.New()); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(rawToolsList(t, s), &list); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	seen := 0
	for _, tool := range list.Tools {
		if !serviceTools[tool.Name] {
			continue
		}
		seen++
		got.WriteString(tool.Name + "\ninput: " + string(tool.InputSchema) + "\noutput: " + string(tool.OutputSchema) + "\n\n")
	}
	if seen != len(serviceTools) {
		t.Fatalf("tools/list has %d of the %d service tools", seen, len(serviceTools))
	}
	const path = "testdata/service_tool_schemas.txt"
	if *updateSchemas {
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		gl, wl := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("service tool schemas differ at line %d:\n got: %s\nwant: %s", i+1, g, w)
			}
		}
	}
}
