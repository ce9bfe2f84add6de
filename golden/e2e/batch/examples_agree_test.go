package batch_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/batch/gen/batch/v1/batchv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// The plugin's check of a tool example and the generated decoder agree:
// each input of the table, given to import_notes as a tool example, is
// refused at generation exactly when the decoder (runtime.NewPreparer's
// Decode, what an agent's call goes through) refuses it.
func TestToolExampleCheckAgreesWithTheDecoder(t *testing.T) {
	table := []struct {
		name, input string
		accepted    bool
	}{
		{"one note", `{"notes":[{"kind":"Task","title":"Buy milk"}]}`, true},
		{"a synonym spelling of the alias", `{"notes":[{"kind":"task","title":"Buy milk"},{"kind":"KIND_IDEA","title":"Idea"}]}`, true},
		{"with a tag", `{"notes":[{"kind":"Idea","title":"x","client_request_id":"k1"}],"tags":{"red":{"label":"Red"}}}`, true},
		{"unknown enum alias", `{"notes":[{"kind":"Chore","title":"Buy milk"}]}`, false},
		{"too many items", `{"notes":[{"kind":"Task","title":"a"},{"kind":"Task","title":"b"},{"kind":"Task","title":"c"},{"kind":"Task","title":"d"}]}`, false},
		{"no items", `{"notes":[]}`, false},
		{"title too long", `{"notes":[{"kind":"Task","title":"` + strings.Repeat("x", 101) + `"}]}`, false},
		{"required title left out", `{"notes":[{"kind":"Task"}]}`, false},
		{"required notes left out", `{}`, false},
		{"an item that is not an object", `{"notes":["Buy milk"]}`, false},
		{"tags as {key, value} entries", `{"notes":[{"kind":"Task","title":"x"}],"tags":[{"key":"red","value":{"label":"Red"}}]}`, true},
		{"a tag without its required label", `{"notes":[{"kind":"Task","title":"x"}],"tags":{"red":{}}}`, false},
		{"a tag entry given twice", `{"notes":[{"kind":"Task","title":"x"}],"tags":[{"key":"red","value":{"label":"Red"}},{"key":"red","value":{"label":"Rot"}}]}`, false},
		{"a tag entry without its value", `{"notes":[{"kind":"Task","title":"x"}],"tags":[{"key":"red"}]}`, false},
		{"tags that are neither object nor entries", `{"notes":[{"kind":"Task","title":"x"}],"tags":"red"}`, false},
		{"a note key the note does not have", `{"notes":[{"kind":"Task","title":"x","colour":"red"}]}`, false},
		{"a null item, which the decoder skips", `{"notes":[{"kind":"Task","title":"x"},null]}`, true},
	}
	src, err := os.ReadFile(filepath.Join("proto", "batch", "v1", "batch.proto"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := runtime.NewPreparer(batchv1mcpwrite.NewNoteService(&handler{}))
	if err != nil {
		t.Fatal(err)
	}
	const option = `option (mcpwrite.v1.tool) = {kind: CREATE result: "notes"};`
	if !strings.Contains(string(src), option) {
		t.Fatalf("batch.proto no longer has %s", option)
	}
	for _, tc := range table {
		_, es := p.Decode("import_notes", []byte(tc.input))
		decoded := len(es) == 0
		dir := t.TempDir()
		withExample := strings.Replace(string(src), option,
			`option (mcpwrite.v1.tool) = {kind: CREATE result: "notes" examples: [{input: `+strconv.Quote(tc.input)+`}]};`, 1)
		if err := os.MkdirAll(filepath.Join(dir, "batch", "v1"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "batch", "v1", "batch.proto"), []byte(withExample), 0o644); err != nil {
			t.Fatal(err)
		}
		req, err := plugintest.Request([]string{dir, "../../../annotations"}, []string{"batch/v1/batch.proto"}, "paths=source_relative")
		if err != nil {
			t.Fatalf("%s: compile: %v", tc.name, err)
		}
		resp, err := plugintest.Run(req)
		if err != nil {
			t.Fatalf("%s: run: %v", tc.name, err)
		}
		generated := resp.GetError() == ""
		if decoded != tc.accepted || generated != tc.accepted {
			t.Errorf("%s: decoder accepts %v (%v), plugin accepts %v (%s); want both %v", tc.name, decoded, es, generated, resp.GetError(), tc.accepted)
		}
	}
}
