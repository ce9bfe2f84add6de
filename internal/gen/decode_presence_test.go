package gen_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
)

// A field with nothing to do when the agent leaves it out is read without
// a presence test: its read answers nothing for an absent or null value.
// A required field (reported missing), a default (set when absent), a
// list, a map, a wrapper, a Struct and a Value keep the test.
func TestDecodeTestsPresenceOnlyWhereAbsenceDoesSomething(t *testing.T) {
	src := service + `
enum Colour {
  COLOUR_UNSPECIFIED = 0;
  COLOUR_RED = 1;
}
message Part { string name = 1; }
message Req {
  string name = 1;
  int32 count = 2;
  Colour colour = 3;
  Part part = 4;
  google.protobuf.Struct attrs = 5;
  google.protobuf.Value extra = 6;
  string title = 7 [(mcpwrite.v1.field).agent = {required: true}];
  optional bool dry = 8 [(mcpwrite.v1.field).agent = {default: "true"}];
  repeated string tags = 9;
  map<string, string> labels = 10;
}`
	resp, err := plugintest.Run(request(t, src, ""))
	if err != nil || resp.GetError() != "" {
		t.Fatalf("run: %v %s", err, resp.GetError())
	}
	var code string
	for _, f := range resp.File {
		if strings.HasSuffix(f.GetName(), ".mcpwrite.go") {
			code = f.GetContent()
		}
	}
	start := strings.Index(code, "func decodeReq(")
	if start < 0 {
		t.Fatalf("no decodeReq in\n%s", code)
	}
	body := code[start:]
	body = body[:strings.Index(body, "\n}\n")]
	var heads []string
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "\tif ") {
			heads = append(heads, strings.TrimPrefix(l, "\t"))
		}
	}
	want := []string{
		`if x, ok := d.String(obj.Get("name"), "name"); ok {`,
		`if x, ok := d.Int32(obj.Get("count"), "count"); ok {`,
		`if x, ok := d.Enum(obj.Get("colour"), "colour", enumColour); ok {`,
		`if o, ok := d.Object(obj.Get("part"), "part"); ok {`,
		`if v := obj.Get("attrs"); v.Present() {`,
		`if v := obj.Get("extra"); v.Present() {`,
		`if v := obj.Get("title"); v.Present() {`,
		`if v := obj.Get("dry"); v.Present() {`,
		`if v := obj.Get("tags"); v.Present() {`,
		`if v := obj.Get("labels"); v.Present() {`,
	}
	if strings.Join(heads, "\n") != strings.Join(want, "\n") {
		t.Errorf("decodeReq reads\n%s\nwant\n%s", strings.Join(heads, "\n"), strings.Join(want, "\n"))
	}
	if !regexp.MustCompile(`(?m)^\t} else \{\n\t\td\.Missing\("title"\)$`).MatchString(body) {
		t.Errorf("title is not reported missing when absent:\n%s", body)
	}
}
