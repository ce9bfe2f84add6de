package realworld

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"google.golang.org/protobuf/compiler/protogen"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/gen"
)

// budgetFiles are the corpus files with the largest input schemas.
var budgetFiles = []string{
	"google/cloud/dataproc/v1/clusters.proto",
	"google/cloud/dataproc/v1/workflow_templates.proto",
	"google/devtools/cloudbuild/v1/cloudbuild.proto",
}

// budgetRun generates file with cfg and returns each tool's input schema
// size in tools/list and in get_write_schema, and the budget's warnings.
func budgetRun(t *testing.T, file string, cfg gen.Config) (listed, full map[string]int, warns []string) {
	t.Helper()
	p, err := protogen.Options{}.New(request(t, file))
	if err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	cfg.Warn = &warn
	if err := gen.Generate(p, cfg); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	for _, l := range strings.Split(warn.String(), "\n") {
		if strings.Contains(l, "(schema_budget)") {
			warns = append(warns, strings.TrimPrefix(l, "protoc-gen-mcpwrite: warning: "))
		}
	}
	listed, full = map[string]int{}, map[string]int{}
	for _, f := range gen.Response(p).File {
		if !strings.HasSuffix(f.GetName(), ".mcpwrite.json") {
			continue
		}
		var d struct {
			Services []struct {
				Tools []struct {
					Name  string          `json:"name"`
					Input json.RawMessage `json:"input_schema"`
					Full  json.RawMessage `json:"full_input_schema"`
				} `json:"tools"`
			} `json:"services"`
		}
		if err := json.Unmarshal([]byte(f.GetContent()), &d); err != nil {
			t.Fatal(err)
		}
		for _, s := range d.Services {
			for _, tool := range s.Tools {
				// Sizes as tools/list sends them: compact JSON.
				listed[tool.Name] = compactLen(t, tool.Input)
				full[tool.Name] = listed[tool.Name]
				if len(tool.Full) > 0 {
					full[tool.Name] = compactLen(t, tool.Full)
				}
			}
		}
	}
	return listed, full, warns
}

// TestSchemaBudgetHoldsTheLargestSchemas generates the corpus files with
// the largest input schemas: with the default budget every tool's input
// schema in tools/list is within it, get_write_schema keeps the complete
// schema (as large as without a budget), and the warnings and the sizes
// before and after are exactly testdata/budget.txt.
func TestSchemaBudgetHoldsTheLargestSchemas(t *testing.T) {
	skipWithoutCorpus(t)
	var report strings.Builder
	for _, file := range budgetFiles {
		off, _, _ := budgetRun(t, file, gen.Config{SchemaBudget: -1})
		listed, full, warns := budgetRun(t, file, gen.Config{})
		maxBefore, maxAfter, over := 0, 0, 0
		for name, before := range off {
			maxBefore, maxAfter = max(maxBefore, before), max(maxAfter, listed[name])
			if before > gen.DefaultSchemaBudget {
				over++
			}
			if listed[name] > gen.DefaultSchemaBudget {
				t.Errorf("%s: tool %s: input schema %d bytes, over the budget of %d", file, name, listed[name], gen.DefaultSchemaBudget)
			}
			if full[name] != before {
				t.Errorf("%s: tool %s: get_write_schema's schema is %d bytes, want the complete %d", file, name, full[name], before)
			}
		}
		fmt.Fprintf(&report, "== %s: %d tools, %d over %d bytes; largest input schema %d bytes, now %d\n", file, len(off), over, gen.DefaultSchemaBudget, maxBefore, maxAfter)
		for _, w := range warns {
			report.WriteString(w + "\n")
		}
	}
	const path = "testdata/budget.txt"
	if *update {
		if err := os.WriteFile(path, []byte(report.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if report.String() != string(want) {
		t.Errorf("budget figures differ from %s (go test ./realworld -run TestSchemaBudgetHoldsTheLargestSchemas -update to accept):\n%s", path, report.String())
	}
}

// compactLen is the length of raw as compact JSON.
func compactLen(t *testing.T, raw json.RawMessage) int {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.Len()
}
