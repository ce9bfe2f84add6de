package golden_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// goldenExamplesAreAccepted: every example a golden case's getWriteSchema
// document shows (a tool's own, or the minimal one made from field
// examples) is accepted by the generated code an agent's call goes
// through, the same Prepare (or Decode) the agreement calls take. It
// returns how many examples it sent.
func goldenExamplesAreAccepted(t *testing.T, h *helperConn, served map[string]bool) int {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join("testdata", "*", "want", "*", "*", "*", "*.mcpwrite.json"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, path := range docs {
		c := strings.Split(filepath.ToSlash(path), "/")[1]
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc schemadoc.Document
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, s := range doc.Services {
			if !served[c+" "+s.Name] {
				continue
			}
			for _, tool := range s.Tools {
				for _, ex := range tool.Examples {
					n++
					if r := h.call(c, s.Name, tool.Name, string(ex.Input)); r.IsError {
						t.Errorf("%s %s: example %q (%s) is refused: %s", c, tool.Name, ex.Description, ex.Input, r.Text)
					}
				}
			}
		}
	}
	return n
}
