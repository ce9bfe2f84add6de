package mcptest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RawToolsList speaks JSON-RPC to s over in-memory transports (initialize,
// initialized, tools/list) and returns the tools/list result exactly as the
// server wrote it, byte for byte, for tests of what a client receives
// before any SDK decodes it. It returns nil after a Fatalf.
func RawToolsList(t testing.TB, s *mcp.Server) []byte {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
		return nil
	}
	defer ss.Close()
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatalf("connect: %v", err)
		return nil
	}
	defer conn.Close()
	call := func(id int64, method, params string) ([]byte, bool) {
		msg := &jsonrpc.Request{Method: method, Params: json.RawMessage(params)}
		if id != 0 {
			if msg.ID, err = jsonrpc.MakeID(float64(id)); err != nil {
				t.Fatalf("%s: %v", method, err)
				return nil, false
			}
		}
		if err := conn.Write(ctx, msg); err != nil {
			t.Fatalf("%s: %v", method, err)
			return nil, false
		}
		if id == 0 {
			return nil, true
		}
		in, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
			return nil, false
		}
		resp, ok := in.(*jsonrpc.Response)
		if !ok || resp.Error != nil {
			t.Fatalf("%s: got %#v", method, in)
			return nil, false
		}
		return resp.Result, true
	}
	if _, ok := call(1, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`); !ok {
		return nil
	}
	if _, ok := call(0, "notifications/initialized", `{}`); !ok {
		return nil
	}
	out, _ := call(2, "tools/list", `{}`)
	return out
}
