package runtime_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/gosdk"
)

// lockedBuffer is a log a transport writes from its goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// wireToolsList registers the notes service on a go-sdk server with opts
// (doc rewrites its document) and returns tools/list's result as the
// server wrote it on the wire.
func wireToolsList(t *testing.T, doc func(string) string, opts ...runtime.Option) []byte {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v0.0.1"}, nil)
	registerNotes(t, server, doc, opts...)
	return wireList(t, server)
}

// registerNotes registers the notes service on server with opts, its
// document rewritten by doc.
func registerNotes(t *testing.T, server *mcp.Server, doc func(string) string, opts ...runtime.Option) {
	t.Helper()
	svc := newDomain().service()
	if doc != nil {
		svc.Doc = []byte(doc(string(svc.Doc)))
	}
	opts = append([]runtime.Option{runtime.WithRequestContextFunc(metaContext)}, opts...)
	if err := gosdk.Register(server, svc, opts...); err != nil {
		t.Fatalf("Register: %v", err)
	}
}

// wireList is server's tools/list result as the server wrote it on the
// wire.
func wireList(t *testing.T, server *mcp.Server) []byte {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	var log lockedBuffer
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v0.0.1"}, nil).Connect(ctx, &mcp.LoggingTransport{Transport: ct, Writer: &log}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cs.Close(); _ = ss.Wait() }()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(strings.NewReader(log.String()))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "read: ")
		if !ok {
			continue
		}
		var msg struct {
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal([]byte(line), &msg) == nil && bytes.Contains(msg.Result, []byte(`"tools":[`)) {
			return msg.Result
		}
	}
	t.Fatalf("no tools/list result in\n%s", log.String())
	return nil
}

// A compact service and a full one on the same server: the full tools are
// listed as without the compact one, and a second compact service adds its
// tools to the one list hash.
func TestCompactListLeavesOtherToolsAlone(t *testing.T) {
	full := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v0.0.1"}, nil)
	registerNotes(t, full, nil, runtime.WithToolNames("full_", ""))
	// The hashes eu_ tools have, listed in full.
	registerNotes(t, full, nil, runtime.WithToolNames("eu_", ""))
	mixed := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v0.0.1"}, nil)
	registerNotes(t, mixed, nil, runtime.WithToolNames("full_", ""))
	registerNotes(t, mixed, nil, runtime.WithCompactList())
	registerNotes(t, mixed, nil, runtime.WithCompactList(), runtime.WithToolNames("eu_", ""))
	entries := func(b []byte) map[string]string {
		var res struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, raw := range res.Tools {
			var tool struct{ Name string }
			_ = json.Unmarshal(raw, &tool)
			out[tool.Name] = string(raw)
		}
		return out
	}
	want, got := entries(wireList(t, full)), entries(wireList(t, mixed))
	for name, entry := range want {
		if strings.HasPrefix(name, "full_") && got[name] != entry {
			t.Errorf("%s is listed\n%s\nnext to a compact service, and\n%s\nwithout", name, got[name], entry)
		}
	}
	if !strings.Contains(got["full_create_note"], `"mcpwrite/schema_hash":"sha256:`) || !strings.Contains(got["full_create_note"], `"readOnlyHint":false`) {
		t.Errorf("the full tool lost its hash or hints:\n%s", got["full_create_note"])
	}
	hashOf := func(entry string) string {
		var tool struct {
			Meta map[string]any `json:"_meta"`
		}
		_ = json.Unmarshal([]byte(entry), &tool)
		h, _ := tool.Meta["mcpwrite/schema_hash"].(string)
		return h
	}
	var res struct {
		Meta struct {
			Hash string `json:"mcpwrite/schema_hash"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(wireList(t, mixed), &res); err != nil {
		t.Fatal(err)
	}
	c, d := noteHash(t, "create_note"), noteHash(t, "delete_note")
	ec, ed := hashOf(want["eu_create_note"]), hashOf(want["eu_delete_note"])
	if ec == "" || ec == c || ed == "" || ed == d {
		t.Fatalf("eu_ hashes %q %q", ec, ed)
	}
	if w := listHash("create_note "+c, "delete_note "+d, "eu_create_note "+ec, "eu_delete_note "+ed); res.Meta.Hash != w {
		t.Errorf("list hash %s, want %s", res.Meta.Hash, w)
	}
}
