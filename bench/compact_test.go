package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/gosdk"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// compactGoal is the compact list's goal per write tool, in bytes; it is
// not met (docs/compact.md): a synthetic tool's name and one-line
// description (24 and 51 characters) take 75 bytes, the protocol's member
// names and punctuation 44, the open input schema 45, and the hints that
// differ from the defaults, with their member name, 60-84 (none when every
// hint is the default). compactCeiling is what the compact list
// must stay under: what it measures (232.7 B), with a margin of a few
// bytes.
const (
	compactGoal    = 150
	compactCeiling = 240
)

// syntheticService is a service of n write methods whose requests have
// fields fields each, shaped like the examples' tools: a title, a
// two-sentence description, hints, described properties, an output
// schema, an example and server fills.
func syntheticService(n, fields int) *mcpwriteimpl.Service {
	kinds := []struct{ verb, kind, class string }{
		{"create", "CREATE", "SAFE_CREATE"}, {"update", "UPDATE", "SAFE_UPDATE"}, {"delete", "DELETE", "DESTRUCTIVE_DELETE"},
	}
	sd := schemadoc.Service{Name: "synthetic.v1.CatalogService", ValidateTool: "validate_write", SchemaTool: "get_write_schema", ApplyTool: "apply_proposal", DiscardTool: "discard_proposal"}
	svc := &mcpwriteimpl.Service{Name: sd.Name}
	for i := range n {
		k := kinds[i%len(kinds)]
		entity := fmt.Sprintf("catalog_entry_%03d", i)
		props := map[string]any{"client_request_id": map[string]any{"type": "string", "description": "Idempotency key: a retry with the same key replays the first answer"}}
		var required, optional []string
		for f := range fields {
			name := fmt.Sprintf("attribute_%02d", f)
			props[name] = map[string]any{"type": "string", "maxLength": 200, "description": fmt.Sprintf("Attribute %d of the %s, as shown to users", f, strings.ReplaceAll(entity, "_", " "))}
			if f < 2 {
				required = append(required, name)
			} else {
				optional = append(optional, name)
			}
		}
		in, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false})
		out, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{"success": map[string]any{"type": "boolean"}, "data": map[string]any{"type": "object"}}, "required": []string{"success"}})
		name := k.verb + "_" + entity
		destructive := k.kind == "DELETE"
		confirmation := "DIRECT"
		if destructive {
			confirmation = "ELICIT"
		}
		sd.Tools = append(sd.Tools, schemadoc.Tool{
			Name: name, Method: sd.Name + "." + name, Title: strings.ToUpper(k.verb[:1]) + k.verb[1:] + " catalog entry " + fmt.Sprint(i),
			Description: fmt.Sprintf("%s a %s in the tenant's catalog. The server fills the id, the tenant and the timestamps; call validate_write first when unsure.", strings.ToUpper(k.verb[:1])+k.verb[1:], strings.ReplaceAll(entity, "_", " ")),
			Kind:        k.kind, Classification: k.class, Confirmation: confirmation,
			Hints:       schemadoc.Hints{Destructive: destructive, Idempotent: k.kind != "CREATE"},
			InputSchema: in, OutputSchema: out, RequiredFields: required, OptionalFields: optional,
			Examples:    []schemadoc.Example{{Description: "A typical call", Input: json.RawMessage(`{"attribute_00":"a","attribute_01":"b"}`)}},
			ServerFills: []schemadoc.ServerFill{{Field: "meta.tenant_id", Source: "context", How: "tenant from the request context"}},
		})
		svc.Tools = append(svc.Tools, &mcpwriteimpl.Tool{
			Name:       name,
			NewRequest: func() proto.Message { return &emptypb.Empty{} },
			Decode:     func(*mcpwriteimpl.Decoder, *mcpwriteimpl.Object, proto.Message) {},
			Enrich:     func(*mcpwriteimpl.Call, proto.Message) error { return nil },
			Invoke:     func(context.Context, proto.Message) (proto.Message, error) { return &emptypb.Empty{}, nil },
		})
	}
	svc.Doc, _ = json.Marshal(schemadoc.Document{Source: "synthetic/v1/catalog.proto", Services: []schemadoc.Service{sd}})
	return svc
}

// listedBytes registers svc and returns the tools/list result as the
// server wrote it on the wire (the client's LoggingTransport): a go-sdk
// client decoding it and encoding it again would spell out every hint.
func listedBytes(t *testing.T, svc *mcpwriteimpl.Service, opts ...runtime.Option) []byte {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "synthetic", Version: "bench"}, nil)
	opts = append(opts, runtime.WithRequestContextFunc(runtime.StaticRequestContext(runtime.RequestContext{TenantID: "t", PrincipalID: "p"})))
	if err := gosdk.Register(s, svc, opts...); err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	var log wireLog
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "bench"}, nil).Connect(context.Background(), &mcp.LoggingTransport{Transport: ct, Writer: &log}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cs.Close(); _ = ss.Wait() }()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.NextCursor != "" {
		t.Fatal("tools/list was paged; measure every page")
	}
	return log.result(t, `"tools":[`)
}

// wireLog is what a client's LoggingTransport writes: the messages as they
// crossed the wire.
type wireLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *wireLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// result is the result the client read that contains marker, as the
// server wrote it.
func (l *wireLog) result(t *testing.T, marker string) []byte {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range strings.Split(l.b.String(), "\n") {
		line, ok := strings.CutPrefix(line, "read: ")
		if !ok {
			continue
		}
		var msg struct {
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal([]byte(line), &msg) == nil && bytes.Contains(msg.Result, []byte(marker)) {
			return msg.Result
		}
	}
	t.Fatalf("the client read no result with %s", marker)
	return nil
}

// TestCompactToolsListSize measures tools/list at 10, 100 and 300 write
// methods, full and compact, with small (8-field) and large (40-field)
// requests. The compact list must cost at most compactCeiling bytes and a
// fifth of the full list per write tool, and the same whatever the
// requests' size. With
// MCPWRITE_TOOLSLIST_DIR set it writes each tools/list there, for
// bench/tokens/count.mjs to count tokens.
func TestCompactToolsListSize(t *testing.T) {
	dir := os.Getenv("MCPWRITE_TOOLSLIST_DIR")
	sizes := []int{10, 100, 300}
	perTool := map[string]float64{}
	var table strings.Builder
	fmt.Fprintf(&table, "%-8s %-7s %6s %12s %14s\n", "mode", "fields", "writes", "bytes", "bytes/write")
	for _, mode := range []string{"full", "compact"} {
		for _, fields := range []int{8, 40} {
			var first, last int
			for _, n := range sizes {
				var opts []runtime.Option
				if mode == "compact" {
					opts = append(opts, runtime.WithCompactList())
				}
				b := listedBytes(t, syntheticService(n, fields), opts...)
				fmt.Fprintf(&table, "%-8s %-7d %6d %12d %14.0f\n", mode, fields, n, len(b), float64(len(b))/float64(n))
				if dir != "" {
					if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d-fields-%d.json", mode, fields, n)), b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				if n == sizes[0] {
					first = len(b)
				}
				last = len(b)
			}
			// The cost of one more write tool, without the service tools.
			marginal := float64(last-first) / float64(sizes[len(sizes)-1]-sizes[0])
			perTool[fmt.Sprintf("%s/%d", mode, fields)] = marginal
			fmt.Fprintf(&table, "%-8s %-7d marginal %.1f B per write tool\n", mode, fields, marginal)
		}
	}
	t.Logf("tools/list sizes\n%s", table.String())
	if got := perTool["compact/8"]; got > compactCeiling {
		t.Errorf("compact list: %.1f B per write tool, at most %d allowed (goal %d)", got, compactCeiling, compactGoal)
	}
	if got, full := perTool["compact/8"], perTool["full/8"]; got*5 > full {
		t.Errorf("compact list: %.1f B per write tool, more than a fifth of the full list's %.1f", got, full)
	}
	if perTool["compact/8"] != perTool["compact/40"] {
		t.Errorf("compact list depends on the request size: %.1f B per tool with 8 fields, %.1f with 40", perTool["compact/8"], perTool["compact/40"])
	}
	if perTool["full/40"] <= perTool["full/8"] {
		t.Errorf("control: the full list should grow with the request size (%.1f vs %.1f B per tool)", perTool["full/40"], perTool["full/8"])
	}
}
