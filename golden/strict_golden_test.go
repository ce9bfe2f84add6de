package golden_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/gen"
)

// Every write tool of every golden case (bytes, well-known types, maps,
// proto2, editions, ...) converts to OpenAI strict mode, and its input and
// output schemas pass the portability lint: the representations hold beyond
// the five examples.
func TestEveryGoldenToolConvertsToStrictMode(t *testing.T) {
	docs, err := filepath.Glob("testdata/*/want/*/*/*/*.mcpwrite.json")
	if err != nil || len(docs) == 0 {
		t.Fatalf("no golden schema documents (%v)", err)
	}
	total := 0
	for _, path := range docs {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Services []struct {
				Tools []struct {
					Name         string          `json:"name"`
					InputSchema  json.RawMessage `json:"input_schema"`
					OutputSchema json.RawMessage `json:"output_schema"`
				} `json:"tools"`
			} `json:"services"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, svc := range doc.Services {
			for _, tool := range svc.Tools {
				total++
				if _, err := gen.ToOpenAIStrict(tool.InputSchema); err != nil {
					t.Errorf("%s %s: not strict-convertible: %v", path, tool.Name, err)
				}
				for _, msg := range gen.LintSchema(tool.Name, tool.InputSchema) {
					t.Errorf("%s: %s", path, msg)
				}
				for _, msg := range gen.LintOutputSchema(tool.Name, tool.OutputSchema) {
					t.Errorf("%s: %s", path, msg)
				}
			}
		}
	}
	t.Logf("%d golden documents, %d tools checked", len(docs), total)
}
