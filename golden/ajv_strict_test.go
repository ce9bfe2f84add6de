package golden_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// strictSchema is one schema for interop/lib/ajv_strict.mjs.
type strictSchema struct {
	Name   string          `json:"name"`
	Kind   string          `json:"kind"`
	Schema json.RawMessage `json:"schema"`
}

// Every input and output schema compiles under Ajv's 2020-12 validator in
// strict mode, as hosts that compile tool schemas strictly do: every tool
// every example lists (write and service tools, as tools/list sends them)
// and every tool of every golden case and e2e case (its committed
// .mcpwrite.json). A branch of anyOf that requires a property it does not
// define (strictRequired), a bound on a string (strictTypes) or an unknown
// keyword is refused. Counts are exact, so a schema that stops being
// checked is noticed.
func TestEverySchemaCompilesUnderAjvStrict(t *testing.T) {
	if testing.Short() {
		t.Skip("runs node")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is needed to compile the schemas with Ajv: %v", err)
	}
	if _, err := os.Stat("../interop/node_modules/ajv-formats"); err != nil {
		t.Fatalf("interop/node_modules is missing ajv-formats: run `cd interop && npm ci --include=dev --prefer-offline` (%v)", err)
	}
	list := exampleToolSchemas(t)
	listed := len(list)
	list = append(list, committedToolSchemas(t)...)
	b, _ := json.Marshal(list)
	in := filepath.Join(t.TempDir(), "schemas.json")
	if err := os.WriteFile(in, b, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(node, "../interop/lib/ajv_strict.mjs", in).CombinedOutput()
	got := strings.TrimSpace(string(out))
	t.Logf("%d schemas listed by the examples, %d committed: %s", listed, len(list)-listed, got)
	const want = "370 schemas compiled, 0 refused"
	if err != nil || got != want || listed != 172 {
		t.Fatalf("Ajv strict: %v\n%s\nwant %q of 172 listed schemas and the committed ones", err, got, want)
	}
}

// exampleToolSchemas are the input and output schemas of every tool the
// examples list.
func exampleToolSchemas(t *testing.T) []strictSchema {
	var list []strictSchema
	for _, name := range exampleServerNames() {
		s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "test"}, nil)
		if err := exampleServers[name](s); err != nil {
			t.Fatalf("%s: register: %v", name, err)
		}
		res, err := mcptest.Connect(t, s, mcptest.Options{}).ListTools(context.Background(), nil)
		if err != nil {
			t.Fatalf("%s: tools/list: %v", name, err)
		}
		for _, tool := range res.Tools {
			in, _ := json.Marshal(tool.InputSchema)
			list = append(list, strictSchema{name + "/" + tool.Name, "input", in})
			if tool.OutputSchema != nil {
				out, _ := json.Marshal(tool.OutputSchema)
				list = append(list, strictSchema{name + "/" + tool.Name, "output", out})
			}
		}
	}
	return list
}

// committedToolSchemas are the input and output schemas of every tool of
// the golden and e2e cases' committed .mcpwrite.json files.
func committedToolSchemas(t *testing.T) []strictSchema {
	var files []string
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		committed := strings.Contains(p, "/want/") || strings.HasPrefix(p, "e2e/")
		if err == nil && !d.IsDir() && committed && strings.HasSuffix(p, ".mcpwrite.json") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	var list []strictSchema
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Services []struct {
				Tools []struct {
					Name   string          `json:"name"`
					Input  json.RawMessage `json:"input_schema"`
					Output json.RawMessage `json:"output_schema"`
				} `json:"tools"`
			} `json:"services"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, s := range doc.Services {
			for _, tool := range s.Tools {
				list = append(list, strictSchema{f + "/" + tool.Name, "input", tool.Input})
				if len(tool.Output) > 0 {
					list = append(list, strictSchema{f + "/" + tool.Name, "output", tool.Output})
				}
			}
		}
	}
	return list
}
