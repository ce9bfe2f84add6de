package golden_test

import (
	"context"
	"encoding/json"
	"sort"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	crmdomain "github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/gen/crm/v1/crmv1mcpwrite"
	neotomadomain "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1/neotomav1mcpwrite"
	purchasingdomain "github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/gen/purchasing/v1/purchasingv1mcpwrite"
	tasksdomain "github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/gen/tasks/v1/tasksv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/gen"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// exampleServers registers each example's tools on a fresh server, as its
// own server binary does.
var exampleServers = map[string]func(*mcp.Server) error{
	"archimate": func(s *mcp.Server) error {
		return archimatev1mcpwrite.RegisterArchitectureServiceTools(s, domain.New())
	},
	"crm": func(s *mcp.Server) error { return crmv1mcpwrite.RegisterCrmServiceTools(s, crmdomain.New(nil)) },
	"neotoma": func(s *mcp.Server) error {
		mem := neotomadomain.New(nil)
		return neotomav1mcpwrite.RegisterMemoryServiceTools(s, mem, runtime.WithVocabulary(mem.EntityTypeVocabulary()))
	},
	"purchasing": func(s *mcp.Server) error {
		return purchasingv1mcpwrite.RegisterPurchasingServiceTools(s, purchasingdomain.NewDemo())
	},
	"tasks": func(s *mcp.Server) error { return tasksv1mcpwrite.RegisterTaskServiceTools(s, tasksdomain.New(t0Root)) },
}

const t0Root = "/tmp/mcpwrite-golden-tasks"

// Every tool every example lists, write and service tools alike, converts to
// OpenAI strict mode without a fallback, and its input and output schemas
// have the MCP Tool shape clients validate (no boolean or typeless
// property schemas). Counts are exact, so a new tool is noticed.
func TestEveryListedToolConvertsToStrictMode(t *testing.T) {
	wantTools := map[string]int{"archimate": 14, "crm": 23, "neotoma": 26, "purchasing": 10, "tasks": 13}
	names := make([]string, 0, len(exampleServers))
	for n := range exampleServers {
		names = append(names, n)
	}
	sort.Strings(names)
	strict, total := 0, 0
	for _, name := range names {
		s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "test"}, nil)
		if err := exampleServers[name](s); err != nil {
			t.Fatalf("%s: register: %v", name, err)
		}
		cs := mcptest.Connect(t, s, mcptest.Options{})
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatalf("%s: tools/list: %v", name, err)
		}
		if len(res.Tools) != wantTools[name] {
			t.Errorf("%s lists %d tools, want %d", name, len(res.Tools), wantTools[name])
		}
		for _, tool := range res.Tools {
			total++
			in, _ := json.Marshal(tool.InputSchema)
			if _, err := gen.ToOpenAIStrict(in); err != nil {
				t.Errorf("%s/%s: not strict-convertible: %v", name, tool.Name, err)
				continue
			}
			for _, msg := range gen.LintSchema(tool.Name, in) {
				t.Errorf("%s: %s", name, msg)
			}
			if tool.OutputSchema != nil {
				out, _ := json.Marshal(tool.OutputSchema)
				for _, msg := range gen.LintOutputSchema(tool.Name, out) {
					t.Errorf("%s: %s", name, msg)
				}
			}
			strict++
		}
	}
	t.Logf("strict mode keeps %d of %d tools", strict, total)
	if strict != total || total != 86 {
		t.Fatalf("strict mode keeps %d of %d tools, want 86 of 86", strict, total)
	}
}
