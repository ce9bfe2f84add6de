package gen_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

func TestVocabularyMisuseIsReportedWithFieldContext(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want string
	}{
		{
			name: "on an int64 field",
			src: service + `
message Req {
  int64 kind = 1 [(mcpwrite.v1.field).agent = {vocabulary: {name: "entity_type"}}];
}
`,
			want: `bad.proto:15:3: message bad.v1.Req: field kind: vocabulary applies to a string field or a list of strings, not an int64 field; move vocabulary to a string field`,
		},
		{
			name: "on an enum field",
			src: service + layerEnums + `
message Req {
  Layer layer = 1 [(mcpwrite.v1.field).agent = {vocabulary: {name: "layer"}}];
}
`,
			want: `bad.proto:21:3: message bad.v1.Req: field layer: vocabulary applies to a string field or a list of strings, not enum bad.v1.Layer; move vocabulary to a string field`,
		},
		{
			name: "on a map field",
			src: service + `
message Req {
  map<string, string> labels = 1 [(mcpwrite.v1.field).agent = {vocabulary: {name: "label"}}];
}
`,
			want: `bad.proto:15:3: message bad.v1.Req: field labels: vocabulary applies to a string field or a list of strings, not a map field; move vocabulary to a string field`,
		},
		{
			name: "without a name",
			src: service + `
message Req {
  string kind = 1 [(mcpwrite.v1.field).agent = {vocabulary: {discovery_tool: "list_kinds"}}];
}
`,
			want: `bad.proto:15:3: message bad.v1.Req: field kind: vocabulary needs name: a snake_case name such as entity_type, got ""; e.g. [(mcpwrite.v1.field).agent = {vocabulary: {name: "entity_type"}}]`,
		},
		{
			name: "with a name that is not snake_case",
			src: service + `
message Req {
  string kind = 1 [(mcpwrite.v1.field).agent = {vocabulary: {name: "EntityType"}}];
}
`,
			want: `bad.proto:15:3: message bad.v1.Req: field kind: vocabulary needs name: a snake_case name such as entity_type, got "EntityType"; e.g. [(mcpwrite.v1.field).agent = {vocabulary: {name: "entity_type"}}]`,
		},
		{
			name: "combined with a reference",
			src: service + `
message Req {
  string kind = 1 [(mcpwrite.v1.field).agent = {reference: {resolver: "kind_ref" kind: "kind"} vocabulary: {name: "entity_type"}}];
}
`,
			want: `bad.proto:15:3: message bad.v1.Req: field kind: a field cannot take both a reference and a vocabulary: a reference becomes an entity's id, a vocabulary value is kept as the agent names it; drop one of them`,
		},
		{
			name: "with a default",
			src: service + `
message Req {
  string kind = 1 [(mcpwrite.v1.field).agent = {default: "\"person\"" vocabulary: {name: "entity_type"}}];
}
`,
			want: `bad.proto:15:3: message bad.v1.Req: field kind: a vocabulary field cannot have a default: its values are known only while the server runs; drop default`,
		},
		{
			name: "with a discovery tool name no client accepts",
			src: service + `
message Req {
  string kind = 1 [(mcpwrite.v1.field).agent = {vocabulary: {name: "entity_type" discovery_tool: "list entity types"}}];
}
`,
			want: `bad.proto:15:3: message bad.v1.Req: field kind: vocabulary discovery_tool "list entity types" must match ^[a-zA-Z0-9_-]{1,64}$; e.g. discovery_tool: "list_entity_types"`,
		},
		{
			name: "two discovery tools for one vocabulary",
			src: service + `
message Req {
  string kind = 1 [(mcpwrite.v1.field).agent = {vocabulary: {name: "entity_type" discovery_tool: "list_entity_types"}}];
  string other_kind = 2 [(mcpwrite.v1.field).agent = {vocabulary: {name: "entity_type" discovery_tool: "list_types"}}];
}
`,
			want: `bad.proto:16:3: message bad.v1.Req: field other_kind: vocabulary "entity_type" names discovery_tool "list_types" here but "list_entity_types" on bad.v1.Req.kind; name the same tool on every field of the vocabulary, or none`,
		},
		{
			name: "listed nowhere",
			src: `
service S {
  option (mcpwrite.v1.service) = {omit_schema_tool: true};
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE}; }
}
message Resp { string id = 1; }
message Req {
  string kind = 1 [(mcpwrite.v1.field).agent = {vocabulary: {name: "entity_type"}}];
}
`,
			want: `bad.proto:15:3: message bad.v1.Req: field kind: vocabulary "entity_type" would be listed nowhere: the service omits the schema tool, so name a discovery_tool`,
		},
		{
			name: "discovery tool named like a method's tool",
			src: service + `
message Req {
  string kind = 1 [(mcpwrite.v1.field).agent = {vocabulary: {name: "entity_type" discovery_tool: "do"}}];
}
`,
			want: `bad.proto:9:1: service bad.v1.S: tool name "do" is used by both method Do and the discovery tool of vocabulary entity_type; give one a name of its own, e.g. option (mcpwrite.v1.tool) = {name: "do_2"}`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, files := generate(t, tc.src, "")
			if got != tc.want {
				t.Errorf("error:\n got: %s\nwant: %s", got, tc.want)
			}
			if files != 0 {
				t.Errorf("emitted %d files next to an error; want none", files)
			}
		})
	}
}

// Without a discovery tool the description points to the schema tool by
// its configured name, and the document lists no vocabulary tool.
func TestVocabularyIsListedByTheRenamedSchemaTool(t *testing.T) {
	src := `
service S {
  option (mcpwrite.v1.service) = {schema_tool: "describe_write"};
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE}; }
}
message Resp { string id = 1; }
message Req {
  // Kind of thing.
  repeated string kinds = 1 [(mcpwrite.v1.field).agent = {vocabulary: {name: "entity_type"}}];
}
`
	resp, err := plugintest.Run(request(t, src, ""))
	if err != nil || resp.GetError() != "" {
		t.Fatalf("run: %v %s", err, resp.GetError())
	}
	var doc schemadoc.Document
	for _, f := range resp.File {
		if strings.HasSuffix(f.GetName(), ".mcpwrite.json") {
			if err := json.Unmarshal([]byte(f.GetContent()), &doc); err != nil {
				t.Fatal(err)
			}
		}
	}
	s := doc.Services[0]
	if len(s.VocabularyTools) != 0 {
		t.Errorf("vocabulary tools %+v, want none", s.VocabularyTools)
	}
	if want := []schemadoc.VocabularyField{{Field: "kinds", Vocabulary: "entity_type"}}; !reflect.DeepEqual(s.Tools[0].Vocabularies, want) {
		t.Errorf("vocabularies %+v, want %+v", s.Tools[0].Vocabularies, want)
	}
	var in struct {
		Properties map[string]struct {
			Type        string `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(s.Tools[0].InputSchema, &in); err != nil {
		t.Fatal(err)
	}
	got := in.Properties["kinds"]
	want := "Kind of thing. A value of the live vocabulary entity_type (or one of its aliases); describe_write lists the values."
	if got.Type != "array" || got.Description != want {
		t.Errorf("kinds = %+v, want type array and description %q", got, want)
	}
}
