package outline_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/outline/gen/outline/v1/outlinev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// The plugin's check of a tool example and the generated decoder agree on
// a recursive tree whose levels come as objects or as JSON text: each
// input, given to create_outline as a tool example, is refused at
// generation exactly when the decoder (runtime.NewPreparer's Decode, what
// an agent's call goes through) refuses it.
func TestToolExampleCheckAgreesWithTheDecoderOnJSONTextLevels(t *testing.T) {
	table := []struct {
		name, input string
		accepted    bool
	}{
		{"three levels as objects", `{"title":"T","sections":[{"title":"a","sections":[{"title":"b","sections":[{"title":"c"}]}]}]}`, true},
		{"a level as JSON text", `{"title":"T","sections":[{"title":"a","sections":["{\"title\":\"b\",\"sections\":[{\"title\":\"c\"}]}"]}]}`, true},
		{"a top-level section as JSON text", `{"title":"T","sections":["{\"title\":\"a\"}"]}`, true},
		{"JSON text of null", `{"title":"T","sections":[{"title":"a","sections":["null"]}]}`, true},
		{"an empty title in JSON text", `{"title":"T","sections":[{"title":"a","sections":["{\"title\":\"\"}"]}]}`, false},
		{"a required title left out in JSON text", `{"title":"T","sections":["{}"]}`, false},
		{"JSON text cut short", `{"title":"T","sections":["{\"title\":"]}`, false},
		{"JSON text of an array", `{"title":"T","sections":["[]"]}`, false},
		{"a key a section does not have, in JSON text", `{"title":"T","sections":["{\"title\":\"a\",\"heading\":\"x\"}"]}`, false},
		{"a level that is a number", `{"title":"T","sections":[{"title":"a","sections":[7]}]}`, false},
	}
	src, err := os.ReadFile(filepath.Join("proto", "outline", "v1", "outline.proto"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := runtime.NewPreparer(outlinev1mcpwrite.NewOutlineService(&handler{}))
	if err != nil {
		t.Fatal(err)
	}
	const option = `result: "outline_id"`
	if !strings.Contains(string(src), option) {
		t.Fatalf("outline.proto no longer has %s", option)
	}
	for _, tc := range table {
		_, es := p.Decode("create_outline", []byte(tc.input))
		decoded := len(es) == 0
		dir := t.TempDir()
		withExample := strings.Replace(string(src), option, option+` examples: [{input: `+strconv.Quote(tc.input)+`}]`, 1)
		if err := os.MkdirAll(filepath.Join(dir, "outline", "v1"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "outline", "v1", "outline.proto"), []byte(withExample), 0o644); err != nil {
			t.Fatal(err)
		}
		req, err := plugintest.Request([]string{dir, "../../../annotations"}, []string{"outline/v1/outline.proto"}, "paths=source_relative")
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
