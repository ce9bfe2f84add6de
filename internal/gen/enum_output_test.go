package gen_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// enumOutputSrc has an enum the agent sends (SNAKE aliases), one only
// answers carry, and one with its own output spelling.
const enumOutputSrc = `
service S {
  %s
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE}; }
}
enum Kind {
  KIND_UNSPECIFIED = 0;
  KIND_PART_OF = 1;
}
enum Status {
  STATUS_UNSPECIFIED = 0;
  STATUS_IN_REVIEW = 1;
}
enum Level {
  option (mcpwrite.v1.enum) = {output: PROTO_NAME};
  LEVEL_UNSPECIFIED = 0;
  LEVEL_HIGH = 1;
}
message Req { Kind kind = 1 [(mcpwrite.v1.field).enum_alias = {style: SNAKE}]; }
message Resp { Kind kind = 1; Status status = 2; Level level = 3; }
`

// goOutput runs the plugin and returns the generated Go file.
func goOutput(t *testing.T, src string) string {
	t.Helper()
	resp, err := plugintest.Run(request(t, src, ""))
	if err != nil || resp.GetError() != "" {
		t.Fatalf("run: %v %s", err, resp.GetError())
	}
	for _, f := range resp.File {
		if strings.HasSuffix(f.GetName(), ".mcpwrite.go") {
			return f.GetContent()
		}
	}
	t.Fatal("no .mcpwrite.go")
	return ""
}

// The tables answers render enums with: by default every enum in the
// style the agent enums share (an answer-only enum no longer PascalCase
// beside snake_case aliases); a service's enum_output for all; an enum's
// own output over it; PROTO_NAME leaves the value names.
func TestEnumOutputSpellingIsOneWayPerAnswer(t *testing.T) {
	for _, tt := range []struct {
		name, option string
		want         []string
		absent       []string
	}{
		{"aliases in the shared style", "", []string{
			`"bad.v1.Kind":   enumKindSnake,`, `"bad.v1.Status": enumStatusSnake,`,
			`{Number: 1, Name: "STATUS_IN_REVIEW", Alias: "in_review"}`,
		}, []string{`"bad.v1.Level"`}},
		{"lower snake for the service", `option (mcpwrite.v1.service) = {enum_output: LOWER_SNAKE};`, []string{
			`"bad.v1.Kind":   enumKindOutputLowerSnake,`, `"bad.v1.Status": enumStatusOutputLowerSnake,`,
			`{Number: 1, Name: "KIND_PART_OF", Alias: "part_of"}`,
		}, []string{`"bad.v1.Level"`}},
		{"upper snake for the service", `option (mcpwrite.v1.service) = {enum_output: UPPER_SNAKE};`, []string{
			`"bad.v1.Kind":   enumKindOutputUpperSnake,`, `{Number: 1, Name: "KIND_PART_OF", Alias: "PART_OF"}`,
			`{Number: 1, Name: "STATUS_IN_REVIEW", Alias: "IN_REVIEW"}`,
		}, []string{`"bad.v1.Level"`}},
		{"proto names for the service", `option (mcpwrite.v1.service) = {enum_output: PROTO_NAME};`, nil,
			[]string{`"bad.v1.Kind":`, `"bad.v1.Status":`, `"bad.v1.Level"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(enumOutputSrc, "%s", tt.option, 1)
			out := goOutput(t, src)
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("generated code lacks %s", w)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(out, a) {
					t.Errorf("generated code renders %s with a table; want its value names", a)
				}
			}
		})
	}
}

// The schema document carries the service's enum_output, so the runtime
// spells classifications in answers the same way; "" when the service sets
// none (the document of such a service is unchanged).
func TestEnumOutputIsInTheSchemaDocument(t *testing.T) {
	for _, tt := range []struct{ option, want string }{
		{"", ""},
		{`option (mcpwrite.v1.service) = {enum_output: LOWER_SNAKE};`, "LOWER_SNAKE"},
		{`option (mcpwrite.v1.service) = {enum_output: PROTO_NAME};`, "PROTO_NAME"},
	} {
		resp, err := plugintest.Run(request(t, strings.Replace(enumOutputSrc, "%s", tt.option, 1), ""))
		if err != nil || resp.GetError() != "" {
			t.Fatalf("run: %v %s", err, resp.GetError())
		}
		var doc schemadoc.Document
		for _, f := range resp.File {
			if strings.HasSuffix(f.GetName(), ".mcpwrite.json") {
				if err := json.Unmarshal([]byte(f.GetContent()), &doc); err != nil {
					t.Fatal(err)
				}
				if has := strings.Contains(f.GetContent(), `"enum_output"`); has != (tt.want != "") {
					t.Errorf("%q: document has enum_output %v; want %v", tt.option, has, tt.want != "")
				}
			}
		}
		if len(doc.Services) != 1 || doc.Services[0].EnumOutput != tt.want {
			t.Errorf("%q: services %+v; want one with enum_output %q", tt.option, doc.Services, tt.want)
		}
	}
}
