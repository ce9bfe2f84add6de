package gen_test

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
)

// An example the server would refuse when an agent copies it is a
// generation error naming the example and the field: an unknown enum
// alias, a number out of range, a string too long or off its pattern, a
// required field left out, a nested message of the wrong shape.
func TestToolExamplesAreCheckedAsTheDecoderChecksACall(t *testing.T) {
	src := `
service S {
  rpc Do(Req) returns (Resp) {
    option (mcpwrite.v1.tool) = {
      kind: CREATE
      examples: [{description: "A good one" input: "{\"name\":\"Ada\",\"layer\":\"X\",\"size\":3,\"addr\":{\"zip\":\"12345\"}}"},
                 {description: "Copied wrong" input: "{\"name\":\"Ada Lovelace\",\"layer\":\"Z\",\"size\":30,\"addr\":{\"zip\":\"1234x\"}}"},
                 {input: "{\"layer\":\"layer_y\",\"addr\":\"12345\"}"}]
    };
  }
}
message Resp { string id = 1; }
enum Layer {
  LAYER_UNSPECIFIED = 0;
  LAYER_X = 1;
  LAYER_Y = 2;
}
message Addr { string zip = 1 [(mcpwrite.v1.field).agent = {pattern: "^[0-9]{5}$"}]; }
message Req {
  string name = 1 [(mcpwrite.v1.field).agent = {required: true max_length: 5 examples: "\"Ada Lovelace\""}];
  Layer layer = 2 [(mcpwrite.v1.field).enum_alias = {}];
  int32 size = 3 [(mcpwrite.v1.field).agent = {minimum: 1 maximum: 10}];
  Addr addr = 4;
}`
	got, files := generate(t, src, "")
	want := `bad.proto:27:3: message bad.v1.Req: field name: example "Ada Lovelace": name: must be at most 5 characters, got 12; correct the example, the server would refuse it
bad.proto:10:3: method bad.v1.S.Do: example 2 ("Copied wrong"): name: must be at most 5 characters, got 12; correct the example's input, the server would refuse it
bad.proto:10:3: method bad.v1.S.Do: example 2 ("Copied wrong"): layer: "Z" is not a value of bad.v1.Layer (valid: X, Y); correct the example's input, the server would refuse it
bad.proto:10:3: method bad.v1.S.Do: example 2 ("Copied wrong"): size: must be at most 10, got 30; correct the example's input, the server would refuse it
bad.proto:10:3: method bad.v1.S.Do: example 2 ("Copied wrong"): addr.zip: "1234x" does not match ^[0-9]{5}$; correct the example's input, the server would refuse it
bad.proto:10:3: method bad.v1.S.Do: example 3 ("Example 3"): name: missing required field; correct the example's input, the server would refuse it
bad.proto:10:3: method bad.v1.S.Do: example 3 ("Example 3"): addr: expected an object; correct the example's input, the server would refuse it`
	if got != want || files != 0 {
		t.Errorf("error (%d files):\n got: %s\nwant: %s", files, got, want)
	}
}

// Maps (as an object and as {key, value} entries), recursive levels sent
// as JSON text, oneofs, required_when and nested keys are checked as the
// decoder checks them: each bad example fails generation naming the
// example and the field, and the good ones generate.
func TestToolExampleShapesAreCheckedAsTheDecoderChecksThem(t *testing.T) {
	const msgs = `
message Resp { string id = 1; }
enum Op {
  OP_UNSPECIFIED = 0;
  OP_MOVE = 1;
  OP_COPY = 2;
}
message Node {
  string title = 1 [(mcpwrite.v1.field).agent = {max_length: 5}];
  repeated Node children = 2;
}
message Tag { string label = 1 [(mcpwrite.v1.field).agent = {required: true}]; }
message Req {
  map<string, Tag> tags = 1;
  map<int32, string> tiers = 2 [(mcpwrite.v1.field).agent = {max_length: 3}];
  Node root = 3;
  oneof target {
    option (mcpwrite.v1.oneof) = {required: true};
    string task_id = 4;
    string project_id = 5;
  }
  Op op = 6 [(mcpwrite.v1.field).enum_alias = {}];
  string parent_id = 7 [(mcpwrite.v1.field).agent = {required_when: {field: "op" equals: "\"Move\""}}];
}`
	tool := func(examples ...string) string {
		var xs []string
		for _, e := range examples {
			xs = append(xs, `{input: `+strconv.Quote(e)+`}`)
		}
		return `
service S {
  rpc Do(Req) returns (Resp) {
    option (mcpwrite.v1.tool) = {kind: CREATE examples: [` + strings.Join(xs, ", ") + `]};
  }
}` + msgs
	}
	good := []string{
		`{"task_id":"t1"}`,
		`{"project_id":"p1","tags":{"red":{"label":"Red"}},"tiers":{"1":"a","-2":"bcd"}}`,
		`{"task_id":"t1","tags":[{"key":"red","value":{"label":"Red"}}]}`,
		`{"task_id":"t1","root":{"title":"a","children":[{"title":"b","children":["{\"title\":\"c\"}"]}]}}`,
		`{"task_id":"t1","root":{"children":[null,"null"]}}`,
		`{"task_id":"t1","op":"Move","parent_id":"x"}`,
		`{"task_id":"t1","op":"Copy"}`,
		`{"task_id":"t1","op":"OP_COPY","project_id":null}`,
	}
	if got, files := generate(t, tool(good...), ""); got != "" || files == 0 {
		t.Fatalf("good examples: error %q (%d files)", got, files)
	}
	bad := []string{
		`{"task_id":"t1","project_id":"p1"}`,
		`{"tags":{}}`,
		`{"task_id":"t1","tags":{"red":{}},"tiers":{"01":"a","x":"b","3":"toolong"}}`,
		`{"task_id":"t1","tags":[{"key":"red"},{"key":"red","value":{"label":"R"}},{"key":"red","value":{"label":"R"}},{"value":{}},"red"]}`,
		`{"task_id":"t1","tags":"red"}`,
		`{"task_id":"t1","root":{"children":[{"title":"b","children":["{\"title\":\"toolong\",\"kids\":[]}"]}]}}`,
		`{"task_id":"t1","root":{"children":["{\"title\":", "[1]"]}}`,
		`{"task_id":"t1","op":"Move"}`,
		`{"task_id":"t1","op":"OP_MOVE","parent_id":null}`,
	}
	got, files := generate(t, tool(bad...), "")
	const at = `bad.proto:10:3: method bad.v1.S.Do: `
	const fix = `; correct the example's input, the server would refuse it`
	want := []string{
		`example 1 ("Example 1"): project_id: set only one of task_id, project_id, not task_id and project_id`,
		`example 2 ("Example 2"): task_id: set exactly one of task_id, project_id`,
		`example 3 ("Example 3"): tags.red.label: missing required field`,
		`example 3 ("Example 3"): tiers.01: map key "01" is not a valid int32: write the number as 1`,
		`example 3 ("Example 3"): tiers.3: must be at most 3 characters, got 7`,
		`example 3 ("Example 3"): tiers.x: map key "x" is not a valid int32`,
		`example 4 ("Example 4"): tags[0].value: missing required field`,
		`example 4 ("Example 4"): tags[2].key: key "red" is given twice`,
		`example 4 ("Example 4"): tags[3].key: missing required field`,
		`example 4 ("Example 4"): tags[4]: expected an object`,
		`example 5 ("Example 5"): tags: expected an object (or a list of {key, value} entries)`,
		`example 6 ("Example 6"): root.children[0].children[0].kids: unknown field "kids"`,
		`example 6 ("Example 6"): root.children[0].children[0].title: must be at most 5 characters, got 7`,
		`example 7 ("Example 7"): root.children[0]: expected JSON text of an object: unexpected end of JSON input`,
		`example 7 ("Example 7"): root.children[1]: expected JSON text of an object, got JSON text of an array`,
		`example 8 ("Example 8"): parent_id: parent_id is required when op is "Move"`,
		`example 9 ("Example 9"): parent_id: parent_id is required when op is "Move"`,
	}
	for i := range want {
		want[i] = at + want[i] + fix
	}
	if got != strings.Join(want, "\n") || files != 0 {
		t.Errorf("bad examples (%d files):\n got: %s\nwant: %s", files, got, strings.Join(want, "\n"))
	}
}

// A list's or a map's own example is its whole value, checked once the
// item's model is complete; the minimal example getWriteSchema makes from
// required fields' examples is checked as a tool example is.
func TestWholeValueAndMinimalExamplesAreChecked(t *testing.T) {
	src := service + `
message Req {
  repeated string tags = 1 [(mcpwrite.v1.field).agent = {max_items: 2 max_length: 3 examples: "[\"a\",\"b\",\"toolong\"]"}];
  map<string, int32> sizes = 2 [(mcpwrite.v1.field).agent = {maximum: 9 examples: "{\"s\":10}"}];
  string a = 3 [(mcpwrite.v1.field).agent = {required: true examples: "\"x\""}];
  oneof pick {
    string b = 4;
    string c = 5;
  }
  string d = 6 [(mcpwrite.v1.field).agent = {required_when: {field: "a" equals: "\"x\""}}];
}`
	got, files := generate(t, src, "")
	want := `bad.proto:15:3: message bad.v1.Req: field tags: example ["a","b","toolong"]: tags: must have at most 2 items, got 3; correct the example, the server would refuse it
bad.proto:15:3: message bad.v1.Req: field tags: example ["a","b","toolong"]: tags[2]: must be at most 3 characters, got 7; correct the example, the server would refuse it
bad.proto:16:3: message bad.v1.Req: field sizes: example {"s":10}: sizes.s: must be at most 9, got 10; correct the example, the server would refuse it
bad.proto:10:3: method bad.v1.S.Do: minimal valid input {"a":"x"}, made from the required fields' examples: d: d is required when a is "x"; correct those fields' examples or add a tool example, the server would refuse it`
	if got != want || files != 0 {
		t.Errorf("error (%d files):\n got: %s\nwant: %s", files, got, want)
	}
}

// A tool example's pair_check is checked as the early check runs it (with
// a constant the server fills as one end), and the minimal example made
// from field examples takes a declared pair instead of the first aliases.
func TestToolExamplePairsAreCheckedAndTheMinimalExamplePairsUp(t *testing.T) {
	const rest = `
enum PartKind {
  PART_KIND_UNSPECIFIED = 0;
  PART_KIND_BOLT = 1;
  PART_KIND_NUT = 2;
  PART_KIND_FRAME = 3;
}
enum LinkType {
  option (mcpwrite.v1.enum) = {pairs_of: "bad.v1.PartKind"};
  LINK_TYPE_UNSPECIFIED = 0;
  LINK_TYPE_SCREW = 1 [(mcpwrite.v1.value) = {valid_pairs: {source: "Bolt" target: "Nut"}}];
  LINK_TYPE_MOUNT = 2 [(mcpwrite.v1.value) = {valid_pairs: {source: "Bolt" target: "Frame"}}];
}
message Resp { string id = 1; }
message LinkReq {
  LinkType link = 1 [(mcpwrite.v1.field).enum_alias = {required: true}];
  PartKind from_kind = 2 [(mcpwrite.v1.field).enum_alias = {required: true}];
  PartKind to_kind = 3 [(mcpwrite.v1.field).enum_alias = {required: true}];
}
message AttachReq {
  LinkType link = 1 [(mcpwrite.v1.field).enum_alias = {required: true}];
  PartKind part_kind = 2 [(mcpwrite.v1.field).enum_alias = {required: true}];
  PartKind frame_kind = 3 [(mcpwrite.v1.field).derived = {constant: "\"PART_KIND_FRAME\""}];
}`
	src := `
service S {
  rpc Link(LinkReq) returns (Resp) {
    option (mcpwrite.v1.tool) = {kind: CREATE pair_check: {type: "link" source: "from_kind" target: "to_kind"}
      examples: [{input: "{\"link\":\"Screw\",\"from_kind\":\"Bolt\",\"to_kind\":\"Nut\"}"}, {input: "{\"link\":\"Screw\",\"from_kind\":\"Nut\",\"to_kind\":\"Bolt\"}"}]};
  }
  rpc Attach(AttachReq) returns (Resp) {
    option (mcpwrite.v1.tool) = {kind: CREATE pair_check: {type: "link" source: "part_kind" target: "frame_kind"}
      examples: [{input: "{\"link\":\"Screw\",\"part_kind\":\"Bolt\"}"}]};
  }
}` + rest
	got, _ := generate(t, src, "")
	want := `bad.proto:10:3: method bad.v1.S.Link: example 2 ("Example 2"): link: Cannot create 'Screw' from Nut to Bolt; correct the example's input, the server would refuse it
bad.proto:14:3: method bad.v1.S.Attach: example 1 ("Example 1"): link: Cannot create 'Screw' from Bolt to Frame; correct the example's input, the server would refuse it`
	if got != want {
		t.Errorf("error:\n got: %s\nwant: %s", got, want)
	}
	minimal := `
service S {
  rpc Link(LinkReq) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE pair_check: {type: "link" source: "from_kind" target: "to_kind"}}; }
  rpc Attach(AttachReq) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE pair_check: {type: "link" source: "part_kind" target: "frame_kind"}}; }
}` + rest
	resp, err := plugintest.Run(request(t, minimal, ""))
	if err != nil || resp.GetError() != "" {
		t.Fatalf("minimal examples: %v %s", err, resp.GetError())
	}
	var doc struct {
		Services []struct {
			Tools []struct {
				Name     string
				Examples []struct{ Input json.RawMessage }
			}
		}
	}
	for _, f := range resp.File {
		if strings.HasSuffix(f.GetName(), ".json") {
			if err := json.Unmarshal([]byte(f.GetContent()), &doc); err != nil {
				t.Fatal(err)
			}
		}
	}
	var inputs []string
	for _, tool := range doc.Services[0].Tools {
		for _, ex := range tool.Examples {
			var c bytes.Buffer
			_ = json.Compact(&c, ex.Input)
			inputs = append(inputs, tool.Name+" "+c.String())
		}
	}
	if w := []string{`link {"from_kind":"Bolt","link":"Screw","to_kind":"Nut"}`, `attach {"link":"Mount","part_kind":"Bolt"}`}; strings.Join(inputs, "\n") != strings.Join(w, "\n") {
		t.Errorf("minimal examples:\n got: %q\nwant: %q", inputs, w)
	}
}
