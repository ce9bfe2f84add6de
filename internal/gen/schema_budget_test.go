package gen_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/protobuf/compiler/protogen"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/gen"
)

// TestSchemaBudgetGivesTheDeepestOptionalSubtreesAsJSONText: past
// schema_budget the deepest optional message subtree is JSON text in the
// tool's schema (a required one never is), the document keeps the complete
// schema for get_write_schema, the decoder takes the object or the text,
// and the warning names the path and the bytes before and after.
func TestSchemaBudgetGivesTheDeepestOptionalSubtreesAsJSONText(t *testing.T) {
	long := strings.Repeat("A long description that makes the schema large. ", 8)
	src := `
service S {
  rpc CreateParcel(Req) returns (Req) { option (mcpwrite.v1.tool) = {kind: CREATE}; }
}
message Req {
  // ` + long + `
  Parcel parcel = 1 [(mcpwrite.v1.field).agent.required = true];
}
message Parcel {
  // ` + long + `
  string name = 1;
  // ` + long + `
  Label label = 2;
}
message Label {
  // ` + long + `
  string text = 1;
  // ` + long + `
  string colour = 2;
}`
	if testing.Short() {
		t.Skip()
	}
	for _, c := range []struct {
		param, warn string
		text        bool
	}{
		{"schema_budget=1024", "bad.proto:10:3: tool create_parcel: input schema of 2634 bytes is over the budget of 1024 (schema_budget): 1 optional subtrees are JSON text, the complete schema is in get_write_schema (parcel.label); now 1836 bytes, still over: no optional subtree is left to give as JSON text\n", true},
		{"", "", false},
		{"schema_budget=off", "", false},
	} {
		p, err := protogen.Options{ParamFunc: func(string, string) error { return nil }}.New(request(t, src, c.param))
		if err != nil {
			t.Fatal(err)
		}
		cfg := gen.Config{}
		if c.param != "" {
			name, value, _ := strings.Cut(c.param, "=")
			if err := cfg.Set(name, value); err != nil {
				t.Fatal(err)
			}
		}
		var warn bytes.Buffer
		cfg.Warn = &warn
		if err := gen.Generate(p, cfg); err != nil {
			t.Fatalf("%s: %v", c.param, err)
		}
		var got []string
		for _, l := range strings.SplitAfter(warn.String(), "\n") {
			if strings.Contains(l, "schema_budget") {
				got = append(got, strings.TrimPrefix(l, "protoc-gen-mcpwrite: warning: "))
			}
		}
		if strings.Join(got, "") != c.warn {
			t.Errorf("%q: warnings\n got %q\nwant %q", c.param, got, c.warn)
		}
		var code, doc string
		for _, f := range gen.Response(p).File {
			switch {
			case strings.HasSuffix(f.GetName(), ".mcpwrite.go"):
				code = f.GetContent()
			case strings.HasSuffix(f.GetName(), ".mcpwrite.json"):
				doc = f.GetContent()
			}
		}
		var d struct {
			Services []struct {
				Tools []struct {
					Input json.RawMessage `json:"input_schema"`
					Full  json.RawMessage `json:"full_input_schema"`
				} `json:"tools"`
			} `json:"services"`
		}
		if err := json.Unmarshal([]byte(doc), &d); err != nil {
			t.Fatal(err)
		}
		tool := d.Services[0].Tools[0]
		label := `"label":{"type":"string","description":"` + strings.TrimSpace(long) + ` JSON text of one Label object (or the object itself); get_write_schema gives its complete schema."}`
		var in bytes.Buffer
		if err := json.Compact(&in, tool.Input); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(in.String(), label); got != c.text {
			t.Errorf("%q: label as JSON text %v, want %v:\n%s", c.param, got, c.text, tool.Input)
		}
		if got := len(tool.Full) > 0 && strings.Contains(string(tool.Full), `"colour"`); got != c.text {
			t.Errorf("%q: complete schema for get_write_schema %v, want %v", c.param, got, c.text)
		}
		if got := strings.Contains(code, `d.Subtree(obj.Get("label"), "label")`); got != c.text {
			t.Errorf("%q: decoder takes JSON text of label %v, want %v", c.param, got, c.text)
		}
	}
	for _, bad := range []string{"100", "x", "-1"} {
		var cfg gen.Config
		if err := cfg.Set("schema_budget", bad); err == nil || err.Error() != `parameter schema_budget: want a number of bytes of at least 1024, or off, got "`+bad+`"` {
			t.Errorf("schema_budget=%s: %v", bad, err)
		}
	}
}
