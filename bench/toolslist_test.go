package bench

import (
	"context"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	crmdomain "github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/gen/crm/v1/crmv1mcpwrite"
	neotomadomain "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1/neotomav1mcpwrite"
	purchasingdomain "github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/gen/purchasing/v1/purchasingv1mcpwrite"
	tasksdomain "github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/gen/tasks/v1/tasksv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
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

// listedToolBytes is the size of the tools as tools/list sends them: all of
// them, and the write tools alone (those carrying a kind in _meta).
func listedToolBytes(tools []*mcp.Tool) (total, write, writeTools int, err error) {
	for _, t := range tools {
		b, err := json.Marshal(t)
		if err != nil {
			return 0, 0, 0, err
		}
		total += len(b)
		if _, ok := t.Meta["mcpwrite/kind"]; ok {
			write += len(b)
			writeTools++
		}
	}
	return total, write, writeTools, nil
}

// liveServers registers each example's generated tools, with its own
// domain, on a fresh server: what a client of that example lists.
var liveServers = map[string]func() (*mcp.Server, error){
	"archimate": func() (*mcp.Server, error) {
		s := mcp.NewServer(&mcp.Implementation{Name: "archimate", Version: "bench"}, nil)
		return s, archimatev1mcpwrite.RegisterArchitectureServiceTools(s, echoHandler{})
	},
	"crm": func() (*mcp.Server, error) {
		s := mcp.NewServer(&mcp.Implementation{Name: "crm", Version: "bench"}, nil)
		return s, crmv1mcpwrite.RegisterCrmServiceTools(s, crmdomain.New(nil))
	},
	"neotoma": func() (*mcp.Server, error) {
		s := mcp.NewServer(&mcp.Implementation{Name: "neotoma", Version: "bench"}, nil)
		mem := neotomadomain.New(nil)
		return s, neotomav1mcpwrite.RegisterMemoryServiceTools(s, mem, runtime.WithVocabulary(mem.EntityTypeVocabulary()))
	},
	"purchasing": func() (*mcp.Server, error) {
		s := mcp.NewServer(&mcp.Implementation{Name: "purchasing", Version: "bench"}, nil)
		return s, purchasingv1mcpwrite.RegisterPurchasingServiceTools(s, purchasingdomain.NewDemo())
	},
	"tasks": func() (*mcp.Server, error) {
		s := mcp.NewServer(&mcp.Implementation{Name: "tasks", Version: "bench"}, nil)
		return s, tasksv1mcpwrite.RegisterTaskServiceTools(s, tasksdomain.New("/tmp/tasks-bench"))
	},
}

// Every example with generated code is measured live.
func TestEveryExampleIsListedLive(t *testing.T) {
	examples, err := examplesWithGen("../examples")
	if err != nil {
		t.Fatal(err)
	}
	for name := range examples {
		if liveServers[name] == nil {
			t.Errorf("example %s has generated tools but no live tools/list benchmark", name)
		}
	}
	if len(examples) != len(liveServers) {
		t.Errorf("%d examples, %d live servers", len(examples), len(liveServers))
	}
}

// BenchmarkToolsList reports what each example's tools cost an agent's
// context window, per tool, as tools/list sends them: the registered
// server's complete list (write, service and discovery tools) through a
// client, marshalled, and the write tools alone.
func BenchmarkToolsList(b *testing.B) {
	names := make([]string, 0, len(liveServers))
	for n := range liveServers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		b.Run(name+"/live", func(b *testing.B) {
			server, err := liveServers[name]()
			if err != nil {
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
}

func reportPerTool(b *testing.B, total, tools int) {
	if tools == 0 {
		b.Fatal("no tools")
	}
	b.ReportMetric(float64(tools), "tools")
	b.ReportMetric(float64(total)/float64(tools), "bytes/tool")
	b.ReportMetric(float64(total)/float64(tools)/bytesPerToken, "tokens/tool")
}
