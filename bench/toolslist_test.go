package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// bytesPerToken is the usual rough size of an LLM token in English text and
// JSON: tokens are estimated as bytes/4.
const bytesPerToken = 4

// examplesWithGen returns, per example name, the generated schema documents
// (.mcpwrite.json beside each .mcpwrite.go) under examples/<name>/gen.
func examplesWithGen(root string) (map[string][]string, error) {
	dirs, err := filepath.Glob(filepath.Join(root, "*", "gen"))
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, dir := range dirs {
		name := filepath.Base(filepath.Dir(dir))
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".mcpwrite.go") {
				return err
			}
			out[name] = append(out[name], strings.TrimSuffix(path, ".go")+".json")
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// docToolBytes sums, over the write tools of the documents, the bytes an
// agent reads in tools/list for each: name, description and the compact
// input and output schemas. It returns the sum and the number of tools.
func docToolBytes(docs [][]byte) (total, tools int, err error) {
	for _, raw := range docs {
		var doc schemadoc.Document
		if err := json.Unmarshal(raw, &doc); err != nil {
			return 0, 0, err
		}
		for _, s := range doc.Services {
			for _, t := range s.Tools {
				n := len(t.Name) + len(t.Description)
				for _, schema := range []json.RawMessage{t.InputSchema, t.OutputSchema} {
					var c bytes.Buffer
					if len(schema) > 0 {
						if err := json.Compact(&c, schema); err != nil {
							return 0, 0, err
						}
					}
					n += c.Len()
				}
				total += n
				tools++
			}
		}
	}
	return total, tools, nil
}

// listedToolBytes is the size of the tools as tools/list sends them: all of
// them, and the write tools alone (those carrying a kind in _meta).
func listedToolBytes(tools []*mcp.Tool) (total, write, writeTools int, err error) {
	for _, t := range tools {
		b, err := json.Marshal(t)
		if err != nil {
			return 0, 0, 0, err
		}
		total += len(b)
		if _, ok := t.Meta[runtime.MetaKind]; ok {
			write += len(b)
			writeTools++
		}
	}
	return total, write, writeTools, nil
}

func TestDocToolBytesCountsNameDescriptionAndCompactSchemas(t *testing.T) {
	tests := []struct {
		name      string
		docs      []string
		wantBytes int
		wantTools int
	}{
		{"no documents", nil, 0, 0},
		{
			"pretty schemas are compacted",
			[]string{`{"services":[{"name":"s","tools":[{"name":"ab","description":"xyz","input_schema":{ "type" : "object" },"output_schema":{"type":"object"}}]}]}`},
			2 + 3 + len(`{"type":"object"}`)*2, 1,
		},
		{
			"tools of every service and document, no output schema",
			[]string{
				`{"services":[{"name":"s","tools":[{"name":"a","description":"","input_schema":{}}]},{"name":"t","tools":[{"name":"b","description":"d","input_schema":{}}]}]}`,
				`{"services":[{"name":"u","tools":[{"name":"c","description":"","input_schema":{}}]}]}`,
			},
			(1 + 2) + (1 + 1 + 2) + (1 + 2), 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var docs [][]byte
			for _, d := range tt.docs {
				docs = append(docs, []byte(d))
			}
			total, tools, err := docToolBytes(docs)
			if err != nil {
				t.Fatal(err)
			}
			if total != tt.wantBytes || tools != tt.wantTools {
				t.Fatalf("got %d bytes over %d tools, want %d over %d", total, tools, tt.wantBytes, tt.wantTools)
			}
		})
	}
}

// BenchmarkToolsList reports what each example's tools cost an agent's
// context window, per tool: <example>/live is the complete tools/list of
// the registered server (write, service and discovery tools; archimate is
// the example linked in), <example>/doc the write tools' name, description
// and schemas from the generated .mcpwrite.json.
func BenchmarkToolsList(b *testing.B) {
	examples, err := examplesWithGen("../examples")
	if err != nil {
		b.Fatal(err)
	}
	names := make([]string, 0, len(examples))
	for n := range examples {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		if name == "archimate" {
			b.Run("archimate/live", func(b *testing.B) {
				server := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "test"}, nil)
				if err := archimatev1mcpwrite.RegisterArchitectureServiceTools(server, echoHandler{}); err != nil {
					b.Fatal(err)
				}
				cs := connectInMemory(b, server)
				var total, write, writeTools, tools int
				for b.Loop() {
					res, err := cs.ListTools(context.Background(), nil)
					if err != nil {
						b.Fatal(err)
					}
					if total, write, writeTools, err = listedToolBytes(res.Tools); err != nil {
						b.Fatal(err)
					}
					tools = len(res.Tools)
				}
				reportPerTool(b, total, tools)
				if writeTools == 0 {
					b.Fatal("tools/list has no write tools")
				}
				b.ReportMetric(float64(writeTools), "write-tools")
				b.ReportMetric(float64(write)/float64(writeTools), "write-bytes/tool")
			})
		}
		b.Run(name+"/doc", func(b *testing.B) {
			var docs [][]byte
			for _, path := range examples[name] {
				raw, err := os.ReadFile(path)
				if err != nil {
					b.Fatal(err)
				}
				docs = append(docs, raw)
			}
			var total, tools int
			for b.Loop() {
				if total, tools, err = docToolBytes(docs); err != nil {
					b.Fatal(err)
				}
			}
			reportPerTool(b, total, tools)
		})
	}
}

func reportPerTool(b *testing.B, total, tools int) {
	if tools == 0 {
		b.Fatal("no tools")
	}
	b.ReportMetric(float64(tools), "tools")
	b.ReportMetric(float64(total)/float64(tools), "bytes/tool")
	b.ReportMetric(float64(total)/float64(tools)/bytesPerToken, "tokens/tool")
}
