package gen_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/types/pluginpb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/gen"
	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
)

// header starts every misuse proto; bad.proto sits at the import root so
// error messages name it as "bad.proto".
const header = `syntax = "proto3";
package bad.v1;
import "google/protobuf/any.proto";
import "google/protobuf/struct.proto";
import "google/api/field_behavior.proto";
import "mcpwrite/v1/mcpwrite.proto";
option go_package = "example.com/bad/v1;badv1";
`

// service is the usual one-tool service over Req and Resp.
const service = `
service S {
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE}; }
}
message Resp { string id = 1; }
`

// layerEnums are a target enum (Layer) and a source enum (Kind) for from_enum.
const layerEnums = `
enum Layer {
  LAYER_UNSPECIFIED = 0;
  LAYER_X = 1;
  LAYER_Y = 2;
}
`

// request compiles src as bad.proto with the annotations on the import path.
func request(t *testing.T, src, param string) *pluginpb.CodeGeneratorRequest {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.proto"), []byte(header+src), 0o644); err != nil {
		t.Fatal(err)
	}
	req, err := plugintest.Request([]string{dir, "../../annotations", "../../third_party/protovalidate"}, []string{"bad.proto"}, param)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return req
}

// generate runs the plugin on src and returns the reported error and the
// number of files emitted.
func generate(t *testing.T, src, param string) (string, int) {
	t.Helper()
	resp, err := plugintest.Run(request(t, src, param))
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return resp.GetError(), len(resp.File)
}

func TestMisuseIsReportedWithFileMessageAndFieldContext(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want string
	}{
		{
			name: "from_enum names a missing field",
			src: service + layerEnums + `
message Req {
  Layer layer = 1 [(mcpwrite.v1.field).derived = {from_enum: "kind"}];
}`,
			want: `bad.proto:21:3: message bad.v1.Req: field layer: from_enum names "kind", which is not a field of bad.v1.Req; name a sibling enum field (there is none; add one)`,
		},
		{
			name: "from_enum with an empty name",
			src: service + layerEnums + `
message Req {
  Layer layer = 1 [(mcpwrite.v1.field).derived = {from_enum: ""}];
}`,
			want: `bad.proto:21:3: message bad.v1.Req: field layer: derived.from_enum needs the name of a sibling enum field, e.g. [(mcpwrite.v1.field).derived = {from_enum: "kind"}]`,
		},
		{
			name: "from_enum names a non-enum field",
			src: service + layerEnums + `
message Req {
  string kind = 1;
  Layer layer = 2 [(mcpwrite.v1.field).derived = {from_enum: "kind"}];
}`,
			want: `bad.proto:22:3: message bad.v1.Req: field layer: from_enum names "kind", which is a string field, not an enum field; name a sibling enum field (there is none; add one)`,
		},
		{
			name: "from_enum fills a non-enum field",
			src: service + `
enum Kind {
  KIND_UNSPECIFIED = 0;
  KIND_A = 1;
}
message Req {
  Kind kind = 1;
  string layer = 2 [(mcpwrite.v1.field).derived = {from_enum: "kind"}];
}`,
			want: `bad.proto:20:3: message bad.v1.Req: field layer: derived.from_enum fills an enum field, not a string field; fill this field from context, a resolver or a constant instead, e.g. [(mcpwrite.v1.field).derived = {resolver: "layer"}]`,
		},
		{
			name: "a source value lacks implies",
			src: service + layerEnums + `
enum Kind {
  KIND_UNSPECIFIED = 0;
  KIND_A = 1 [(mcpwrite.v1.value) = {implies: "bad.v1.Layer.LAYER_X"}];
  KIND_B = 2;
}
message Req {
  Kind kind = 1;
  Layer layer = 2 [(mcpwrite.v1.field).derived = {from_enum: "kind"}];
}`,
			want: `bad.proto:27:3: message bad.v1.Req: field layer: from_enum "kind": value KIND_B has no implies entry for bad.v1.Layer; add one to KIND_B, e.g. [(mcpwrite.v1.value).implies = "bad.v1.Layer.LAYER_Y"]`,
		},
		{
			name: "implies names an unknown value",
			src: service + layerEnums + `
enum Kind {
  KIND_UNSPECIFIED = 0;
  KIND_A = 1 [(mcpwrite.v1.value) = {implies: ["bad.v1.Layer.LAYER_X", "bad.v1.Layer.LAYER_NOPE"]}];
}
message Req {
  Kind kind = 1;
  Layer layer = 2 [(mcpwrite.v1.field).derived = {from_enum: "kind"}];
}`,
			want: `bad.proto:20:1: enum bad.v1.Kind: value KIND_A: implies "bad.v1.Layer.LAYER_NOPE" is not a known enum value; name a value of an enum this file declares or imports, as package.Enum.VALUE`,
		},
		{
			name: "implies is not fully qualified",
			src: service + layerEnums + `
enum Kind {
  KIND_UNSPECIFIED = 0;
  KIND_A = 1 [(mcpwrite.v1.value) = {implies: ["bad.v1.Layer.LAYER_X", "LAYER_Y"]}];
}
message Req {
  Kind kind = 1;
  Layer layer = 2 [(mcpwrite.v1.field).derived = {from_enum: "kind"}];
}`,
			want: `bad.proto:20:1: enum bad.v1.Kind: value KIND_A: implies "LAYER_Y" must be a fully-qualified enum value such as pkg.Enum.VALUE; write the enum's full name before the value, e.g. "bad.v1.Enum.LAYER_Y"`,
		},
		{
			name: "derived without a source",
			src: service + `
message Req {
  string owner = 1 [(mcpwrite.v1.field).derived = {overridable: true}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field owner: derived needs a source: from_enum, context, resolver or constant, e.g. [(mcpwrite.v1.field).derived = {context: TENANT_ID}]`,
		},
		{
			name: "generated UUID on a bool",
			src: service + `
message Req {
  bool id = 1 [(mcpwrite.v1.field).generated = {kind: UUID_V4}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field id: generated UUID_V4 fills a string field, not a bool field; make the field a string, or remove its generated option`,
		},
		{
			name: "generated NOW on an int32",
			src: service + `
message Req {
  int32 at = 1 [(mcpwrite.v1.field).generated = {kind: NOW}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field at: generated NOW fills a google.protobuf.Timestamp, string or int64 field, not an int32 field; make the field a google.protobuf.Timestamp, or remove its generated option`,
		},
		{
			name: "generated without a kind",
			src: service + `
message Req {
  string id = 1 [(mcpwrite.v1.field).generated = {prefix: "x_"}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field id: generated needs a kind: UUID_V4, UUID_V7, ULID, NOW, CONTENT_HASH or REQUEST_SCOPED, e.g. [(mcpwrite.v1.field).generated = {kind: UUID_V7}]`,
		},
		{
			name: "generated on a repeated field",
			src: service + `
message Req {
  repeated string ids = 1 [(mcpwrite.v1.field).generated = {kind: UUID_V7}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field ids: generated fills a singular field, not a repeated field; annotate a singular field, or make the items' field generated inside the item message`,
		},
		{
			name: "prefix on a NOW int64",
			src: service + `
message Req {
  int64 at = 1 [(mcpwrite.v1.field).generated = {kind: NOW prefix: "t"}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field at: prefix applies to string fields only; remove prefix from its (mcpwrite.v1.field).generated option`,
		},
		{
			name: "CONTENT_HASH without from",
			src: service + `
message Req {
  string key = 1 [(mcpwrite.v1.field).generated = {kind: CONTENT_HASH}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field key: generated CONTENT_HASH needs from: the sibling fields to hash, e.g. [(mcpwrite.v1.field).generated = {kind: CONTENT_HASH, from: ["name"]}]`,
		},
		{
			name: "from without CONTENT_HASH",
			src: service + `
message Req {
  string name = 1;
  string key = 2 [(mcpwrite.v1.field).generated = {kind: ULID from: "name"}];
}`,
			want: `bad.proto:16:3: message bad.v1.Req: field key: from applies to CONTENT_HASH only, not ULID; remove from, or set kind: CONTENT_HASH`,
		},
		{
			name: "CONTENT_HASH from an unknown field",
			src: service + `
message Req {
  string name = 1;
  string key = 2 [(mcpwrite.v1.field).generated = {kind: CONTENT_HASH from: ["name", "nmae"]}];
}`,
			want: `bad.proto:16:3: message bad.v1.Req: field key: CONTENT_HASH from names "nmae", which is not a field of bad.v1.Req; name sibling fields (name)`,
		},
		{
			name: "CONTENT_HASH from a message field",
			src: service + `
message Addr { string city = 1; }
message Req {
  Addr addr = 1;
  string key = 2 [(mcpwrite.v1.field).generated = {kind: CONTENT_HASH from: "addr"}];
}`,
			want: `bad.proto:17:3: message bad.v1.Req: field key: CONTENT_HASH from names "addr", which is message bad.v1.Addr; hash scalar or enum fields`,
		},
		{
			name: "CONTENT_HASH hashes itself",
			src: service + `
message Req {
  string name = 1;
  string key = 2 [(mcpwrite.v1.field).generated = {kind: CONTENT_HASH from: ["name", "key"]}];
}`,
			want: `bad.proto:16:3: message bad.v1.Req: field key: CONTENT_HASH cannot hash the field it fills; remove "key" from from`,
		},
		{
			name: "a resolver used with two Go types",
			src: service + `
message Req {
  string owner = 1 [(mcpwrite.v1.field).derived = {resolver: "owner"}];
  int32 owner_rank = 2 [(mcpwrite.v1.field).derived = {resolver: "owner"}];
}`,
			want: `bad.proto:16:3: message bad.v1.Req: field owner_rank: resolver "owner" returns int32 here but string for bad.v1.Req.owner; give this field's resolver a name of its own, e.g. [(mcpwrite.v1.field).derived = {resolver: "owner_owner_rank"}]`,
		},
		{
			name: "a resolver name that is not snake_case",
			src: service + `
message Req {
  string model_id = 1 [(mcpwrite.v1.field).derived = {resolver: "ActiveModel"}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field model_id: resolver name "ActiveModel" must be snake_case, e.g. active_model`,
		},
		{
			name: "context on a non-string field",
			src: service + `
message Req {
  int64 tenant = 1 [(mcpwrite.v1.field).derived = {context: TENANT_ID}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field tenant: derived.context TENANT_ID fills a string field, not an int64 field; make the field a string, or fill it with a resolver, e.g. [(mcpwrite.v1.field).derived = {resolver: "tenant"}]`,
		},
		{
			name: "a constant that is not JSON",
			src: service + `
message Req {
  string schema = 1 [(mcpwrite.v1.field).derived = {constant: "v1"}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field schema: constant v1: not a JSON literal; write it as protojson writes the field, e.g. [(mcpwrite.v1.field).derived = {constant: "\"text\""}]`,
		},
		{
			name: "a constant of the wrong type",
			src: service + `
message Req {
  string schema = 1 [(mcpwrite.v1.field).derived = {constant: "1"}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field schema: constant 1: want a JSON string for a string field; write it as protojson writes the field, e.g. [(mcpwrite.v1.field).derived = {constant: "\"text\""}]`,
		},
		{
			name: "a constant out of range",
			src: service + `
message Req {
  int32 revision = 1 [(mcpwrite.v1.field).derived = {constant: "3000000000"}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field revision: constant 3000000000: 3000000000 is not a valid int32; write it as protojson writes the field, e.g. [(mcpwrite.v1.field).derived = {constant: "1"}]`,
		},
		{
			name: "a constant naming an unknown enum value",
			src: service + layerEnums + `
message Req {
  Layer layer = 1 [(mcpwrite.v1.field).derived = {constant: "\"LAYER_Z\""}];
}`,
			want: `bad.proto:21:3: message bad.v1.Req: field layer: constant "LAYER_Z": "LAYER_Z" is not a value of bad.v1.Layer; write it as protojson writes the field, e.g. [(mcpwrite.v1.field).derived = {constant: "\"LAYER_Y\""}]`,
		},
		{
			name: "overridable on a message",
			src: service + `
message Owner { string id = 1; }
message Req {
  Owner owner = 1 [(mcpwrite.v1.field).derived = {resolver: "owner" overridable: true}];
}`,
			want: `bad.proto:16:3: message bad.v1.Req: field owner: overridable applies to scalar, enum and well-known fields, not message bad.v1.Owner; remove overridable: true`,
		},
		{
			name: "enum_alias on a non-enum field",
			src: service + `
message Req {
  string kind = 1 [(mcpwrite.v1.field).enum_alias = {required: true}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field kind: enum_alias needs an enum field, got a string field; annotate this field with [(mcpwrite.v1.field).agent = {}] instead`,
		},
		{
			name: "an enum_alias default that is no alias",
			src: service + layerEnums + `
message Req {
  Layer layer = 1 [(mcpwrite.v1.field).enum_alias = {default: "Z"}];
}`,
			want: `bad.proto:21:3: message bad.v1.Req: field layer: default "Z" is not an alias of bad.v1.Layer (valid: X, Y); e.g. [(mcpwrite.v1.field).enum_alias = {default: "X"}]`,
		},
		{
			name: "min_length on an int field",
			src: service + `
message Req {
  int32 count = 1 [(mcpwrite.v1.field).agent = {min_length: 1}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field count: min_length, max_length and pattern apply to string fields, not an int32 field; remove them, or use minimum and maximum on a number`,
		},
		{
			name: "minimum on a string",
			src: service + `
message Req {
  string name = 1 [(mcpwrite.v1.field).agent = {minimum: 1}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field name: minimum and maximum apply to numeric fields, not a string field; remove them, or use min_length and max_length on a string`,
		},
		{
			name: "min_items on a singular field",
			src: service + `
message Req {
  string name = 1 [(mcpwrite.v1.field).agent = {min_items: 1}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field name: min_items and max_items apply to repeated and google.protobuf.ListValue fields, not a string field; remove them`,
		},
		{
			name: "min_length greater than max_length",
			src: service + `
message Req {
  string name = 1 [(mcpwrite.v1.field).agent = {min_length: 5 max_length: 2}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field name: min_length 5 is greater than max_length 2; lower min_length or raise max_length`,
		},
		{
			name: "minimum greater than maximum",
			src: service + `
message Req {
  double ratio = 1 [(mcpwrite.v1.field).agent = {minimum: 1.5 maximum: 0.5}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field ratio: minimum 1.5 is greater than maximum 0.5; lower minimum or raise maximum`,
		},
		{
			name: "min_items greater than max_items",
			src: service + `
message Req {
  repeated string tags = 1 [(mcpwrite.v1.field).agent = {min_items: 3 max_items: 1}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field tags: min_items 3 is greater than max_items 1; lower min_items or raise max_items`,
		},
		{
			name: "an invalid RE2 pattern",
			src: service + `
message Req {
  string name = 1 [(mcpwrite.v1.field).agent = {pattern: "a(b"}];
}`,
			want: "bad.proto:15:3: message bad.v1.Req: field name: pattern \"a(b\" is not a valid RE2 expression: error parsing regexp: missing closing ): `a(b`; correct it, e.g. [(mcpwrite.v1.field).agent = {pattern: \"^[a-z0-9-]+$\"}]",
		},
		{
			name: "a default on a required field",
			src: service + `
message Req {
  bool cascade = 1 [(mcpwrite.v1.field).agent = {required: true default: "true"}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field cascade: a required field cannot have a default; remove default or required`,
		},
		{
			name: "a default of the wrong type",
			src: service + `
message Req {
  bool cascade = 1 [(mcpwrite.v1.field).agent = {default: "\"yes\""}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field cascade: default "yes": want true or false for a bool field; write it as protojson writes the field, e.g. [(mcpwrite.v1.field).agent = {default: "true"}]`,
		},
		{
			name: "a default on a oneof member",
			src: service + `
message Req {
  oneof target {
    string id = 1 [(mcpwrite.v1.field).agent = {default: "\"x\""}];
    string name = 2;
  }
}`,
			want: `bad.proto:16:5: message bad.v1.Req: field id: oneof members cannot have a default; remove default (the agent chooses a member)`,
		},
		{
			name: "a field example that is not JSON",
			src: service + `
message Req {
  string name = 1 [(mcpwrite.v1.field).agent = {examples: "Ada"}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field name: example Ada is not a JSON literal; for a string write example: "\"Ada\""`,
		},
		{
			name: "an invalid agent name",
			src: service + `
message Req {
  string name = 1 [(mcpwrite.v1.field).agent = {name: "full name"}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field name: agent name "full name" must match ^[a-zA-Z0-9_-]{1,64}$; e.g. [(mcpwrite.v1.field).agent = {name: "full_name"}]`,
		},
		{
			name: "duplicate agent names",
			src: service + `
message Req {
  string parent_id = 1;
  string parent = 2 [(mcpwrite.v1.field).agent = {name: "parent_id"}];
}`,
			want: `bad.proto:16:3: message bad.v1.Req: field parent: agent name "parent_id" is already used by field parent_id; give this field a name of its own, e.g. [(mcpwrite.v1.field).agent = {name: "parent_id_parent"}]`,
		},
		{
			name: "duplicate tool names",
			src: `
service S {
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {name: "write"}; }
  rpc Other(Req) returns (Resp) { option (mcpwrite.v1.tool) = {name: "write"}; }
}
message Resp { string id = 1; }
message Req { string name = 1; }`,
			want: `bad.proto:9:1: service bad.v1.S: tool name "write" is used by both method Do and method Other; give one a name of its own, e.g. option (mcpwrite.v1.tool) = {name: "write_2"}`,
		},
		{
			name: "a tool name that collides with a service tool",
			src: `
service S {
  rpc ValidateWrite(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: ACTION}; }
}
message Resp { string id = 1; }
message Req { string name = 1; }`,
			want: `bad.proto:9:1: service bad.v1.S: tool name "validate_write" is used by both method ValidateWrite and the validate tool; give one a name of its own, e.g. option (mcpwrite.v1.tool) = {name: "validate_write_2"}`,
		},
		{
			name: "an invalid tool name",
			src: `
service S {
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {name: "do it"}; }
}
message Resp { string id = 1; }
message Req { string name = 1; }`,
			want: `bad.proto:9:1: service bad.v1.S: tool name "do it" (method Do) must match ^[a-zA-Z0-9_-]{1,64}$; use letters, digits, _ and - only in its name option or the tool_prefix, e.g. "do_it"`,
		},
		{
			name: "an invalid tool_prefix",
			src: `
service S {
  option (mcpwrite.v1.service) = {tool_prefix: "crm."};
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {name: "crm_do"}; }
}
message Resp { string id = 1; }
message Req { string name = 1; }`,
			want: "bad.proto:9:1: service bad.v1.S: tool_prefix \"crm.\" must match ^[a-zA-Z0-9_-]+$; e.g. option (mcpwrite.v1.service) = {tool_prefix: \"crm_\"}\n" +
				"bad.proto:9:1: service bad.v1.S: tool name \"crm.validate_write\" (the validate tool) must match ^[a-zA-Z0-9_-]{1,64}$; use letters, digits, _ and - only in its name option or the tool_prefix, e.g. \"crm_validate_write\"\n" +
				"bad.proto:9:1: service bad.v1.S: tool name \"crm.get_write_schema\" (the schema tool) must match ^[a-zA-Z0-9_-]{1,64}$; use letters, digits, _ and - only in its name option or the tool_prefix, e.g. \"crm_get_write_schema\"\n" +
				// Do is destructive by default (no evidence it is safe), so
				// it is confirmed and the service has the proposal tools.
				"bad.proto:9:1: service bad.v1.S: tool name \"crm.apply_proposal\" (the apply tool) must match ^[a-zA-Z0-9_-]{1,64}$; use letters, digits, _ and - only in its name option or the tool_prefix, e.g. \"crm_apply_proposal\"\n" +
				"bad.proto:9:1: service bad.v1.S: tool name \"crm.discard_proposal\" (the discard tool) must match ^[a-zA-Z0-9_-]{1,64}$; use letters, digits, _ and - only in its name option or the tool_prefix, e.g. \"crm_discard_proposal\"",
		},
		{
			name: "next_steps naming an unknown tool",
			src: `
service S {
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {next_steps: ["validate_write", "do_more"]}; }
}
message Resp { string id = 1; }
message Req { string name = 1; }`,
			want: `bad.proto:10:3: method bad.v1.S.Do: next_steps names unknown tool "do_more"; name a tool of service S (do)`,
		},
		{
			name: "result naming an unknown response field",
			src: `
service S {
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {result: "element"}; }
}
message Resp { string id = 1; }
message Req { string name = 1; }`,
			want: `bad.proto:10:3: method bad.v1.S.Do: result "element" is not a field of bad.v1.Resp; name one of its fields (id)`,
		},
		{
			name: "google.protobuf.Any agent-supplied",
			src: service + `
message Req {
  google.protobuf.Any payload = 1;
}`,
			want: `bad.proto:15:3: tool do: payload: google.protobuf.Any cannot be agent-supplied without a candidate type (its comment names none, and package bad.v1 declares no other message to pack) (declared in bad.proto, message bad.v1.Req); name the types bad.v1.Req.payload takes in its comment (e.g. type.googleapis.com/bad.v1.Message), or mark the field hidden or derived with a resolver`,
		},
		{
			name: "recursion_depth on a message that does not contain itself",
			src: service + `
message Leaf {
  string name = 1;
}
message Req {
  Leaf leaf = 1 [(mcpwrite.v1.field).agent = {recursion_depth: 2}];
}`,
			want: `bad.proto:18:3: message bad.v1.Req: field leaf: recursion_depth applies to a field of a recursive message; bad.v1.Leaf does not contain itself, so its schema is complete without it: drop recursion_depth`,
		},
		{
			name: "recursion_depth on a scalar",
			src: service + `
message Req {
  string name = 1 [(mcpwrite.v1.field).agent = {recursion_depth: 2}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field name: recursion_depth applies to a field of a recursive message, not a string field; drop recursion_depth`,
		},
		{
			name: "recursion_depth past the maximum",
			src: service + `
message Node {
  string name = 1;
  repeated Node children = 2 [(mcpwrite.v1.field).agent = {recursion_depth: 9}];
}
message Req {
  Node root = 1;
}`,
			want: `bad.proto:16:3: message bad.v1.Node: field children: recursion_depth 9 is out of range: use 1 to 8 (the schema spells out that many levels of bad.v1.Node)`,
		},
		{
			name: "recursion_depth zero",
			src: service + `
message Node {
  string name = 1;
  repeated Node children = 2 [(mcpwrite.v1.field).agent = {recursion_depth: 0}];
}
message Req {
  Node root = 1;
}`,
			want: `bad.proto:16:3: message bad.v1.Node: field children: recursion_depth 0 is out of range: use 1 to 8 (the schema spells out that many levels of bad.v1.Node)`,
		},
		{
			name: "a tool option on a streaming method",
			src: `
service S {
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE}; }
  rpc Watch(Req) returns (stream Resp) { option (mcpwrite.v1.tool) = {kind: ACTION}; }
}
message Resp { string id = 1; }
message Req { string name = 1; }`,
			want: `bad.proto:11:3: method bad.v1.S.Watch: streaming methods cannot be tools; remove the (mcpwrite.v1.tool) option`,
		},
		{
			name: "an extra alias naming an unknown value",
			src: service + `
enum Status {
  STATUS_UNSPECIFIED = 0;
  STATUS_TODO = 1;
}
message Req {
  Status status = 1 [(mcpwrite.v1.field).enum_alias = {extra: {key: "Later" value: "STATUS_LATER"}}];
}`,
			want: `bad.proto:19:3: message bad.v1.Req: field status: extra alias "Later" names "STATUS_LATER", which is not a value of bad.v1.Status; name one of its values (STATUS_UNSPECIFIED, STATUS_TODO)`,
		},
		{
			name: "two values whose aliases collide",
			src: service + `
enum Status {
  STATUS_UNSPECIFIED = 0;
  STATUS_IN_PROGRESS = 1;
  STATUS_ACTIVE = 2 [(mcpwrite.v1.value) = {synonyms: "in-progress"}];
}
message Req {
  Status status = 1;
}`,
			want: `bad.proto:14:1: enum bad.v1.Status: alias or synonym "in-progress" of STATUS_ACTIVE collides with STATUS_IN_PROGRESS; give STATUS_ACTIVE an alias of its own, e.g. [(mcpwrite.v1.value).alias = "STATUS_ACTIVE"], or drop the synonym`,
		},
		{
			// The plugin folds names exactly as the runtime matches them
			// (runtime/suggest.Normalize), punctuation included.
			name: "aliases that collide once punctuation is folded",
			src: service + `
enum Status {
  STATUS_UNSPECIFIED = 0;
  STATUS_IN_PROGRESS = 1;
  STATUS_ACTIVE = 2 [(mcpwrite.v1.value) = {synonyms: "in/progress!"}];
}
message Req {
  Status status = 1;
}`,
			want: `bad.proto:14:1: enum bad.v1.Status: alias or synonym "in/progress!" of STATUS_ACTIVE collides with STATUS_IN_PROGRESS; give STATUS_ACTIVE an alias of its own, e.g. [(mcpwrite.v1.value).alias = "STATUS_ACTIVE"], or drop the synonym`,
		},
		{
			name: "an enum offering no value",
			src: service + `
enum Status {
  STATUS_UNSPECIFIED = 0;
  STATUS_OLD = 1 [(mcpwrite.v1.value) = {hidden: true}];
}
message Req {
  Status status = 1;
}`,
			want: `bad.proto:14:1: enum bad.v1.Status: offers no value to agents (every value is hidden or UNSPECIFIED); add a value, or remove [(mcpwrite.v1.value).hidden = true] from one`,
		},
		{
			name: "group_by naming an unknown enum",
			src: service + `
enum Kind {
  option (mcpwrite.v1.enum) = {discovery: true group_by: "bad.v1.Nope"};
  KIND_UNSPECIFIED = 0;
  KIND_A = 1;
}
message Req {
  Kind kind = 1;
}`,
			want: `bad.proto:14:1: enum bad.v1.Kind: group_by "bad.v1.Nope" is not an enum known to this build; import the file that declares it and write its full name, package.Enum`,
		},
		{
			name: "group_by without implies",
			src: service + layerEnums + `
enum Kind {
  option (mcpwrite.v1.enum) = {discovery: true group_by: "bad.v1.Layer"};
  KIND_UNSPECIFIED = 0;
  KIND_A = 1 [(mcpwrite.v1.value) = {implies: "bad.v1.Layer.LAYER_X"}];
  KIND_B = 2;
}
message Req {
  Kind kind = 1;
}`,
			want: `bad.proto:20:1: enum bad.v1.Kind: value KIND_B: group_by bad.v1.Layer needs an implies entry naming one of its values, e.g. [(mcpwrite.v1.value).implies = "bad.v1.Layer.LAYER_Y"]`,
		},
		{
			name: "generated on a real oneof member",
			src: service + `
message Req {
  oneof ref {
    string id = 1 [(mcpwrite.v1.field).generated = {kind: UUID_V7}];
    string name = 2;
  }
}`,
			want: `bad.proto:16:5: message bad.v1.Req: field id: oneof members are chosen by the agent; generated cannot fill one`,
		},
		{
			name: "derived on a real oneof member",
			src: service + `
message Req {
  oneof ref {
    string id = 1;
    string tenant = 2 [(mcpwrite.v1.field).derived = {context: TENANT_ID}];
  }
}`,
			want: `bad.proto:17:5: message bad.v1.Req: field tenant: oneof members are chosen by the agent; derived cannot fill one`,
		},
		{
			name: "an example input with an unknown field",
			src: `
service S {
  rpc Do(Req) returns (Resp) {
    option (mcpwrite.v1.tool) = {examples: {input: "{\"nmae\":\"Ada\",\"dry_run\":true}"}};
  }
}
message Resp { string id = 1; }
message Req { string name = 1; }`,
			want: `bad.proto:10:3: method bad.v1.S.Do: example 1: "nmae" is not an input field of do; use its input fields (name)`,
		},
		{
			name: "an example input that is not an object",
			src: `
service S {
  rpc Do(Req) returns (Resp) {
    option (mcpwrite.v1.tool) = {examples: {input: "{\"name\":\"Ada\"}"} examples: {input: "[1]"}};
  }
}
message Resp { string id = 1; }
message Req { string name = 1; }`,
			want: `bad.proto:10:3: method bad.v1.S.Do: example 2: input is not a JSON object; write the tool's arguments as one, e.g. input: "{\"name\":\"text\"}"`,
		},
		{
			name: "OUTPUT_ONLY together with an annotation",
			src: service + `
message Req {
  string id = 1 [(google.api.field_behavior) = OUTPUT_ONLY, (mcpwrite.v1.field).generated = {kind: UUID_V7}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field id: field is google.api.field_behavior OUTPUT_ONLY but annotated for input; drop one of them`,
		},
		{
			name: "a field example that is not JSON beside a hidden Any",
			src: service + `
message Req {
  google.protobuf.Any payload = 1 [(mcpwrite.v1.field).hidden = true];
  google.protobuf.Struct attrs = 2;
  string name = 3 [(mcpwrite.v1.field).agent = {examples: "{"}];
}`,
			want: `bad.proto:17:3: message bad.v1.Req: field name: example { is not a JSON literal; for a string write example: "\"{\""`,
		},
		{
			name: "a required oneof with a hidden member",
			src: service + `
message Req {
  oneof target {
    option (mcpwrite.v1.oneof) = {required: true};
    string task_id = 1 [(mcpwrite.v1.field).hidden = true];
    string parent_id = 2;
  }
}`,
			want: `bad.proto:17:5: message bad.v1.Req: field task_id: the agent cannot set this member of oneof target, which is (mcpwrite.v1.oneof).required; make every member agent-supplied, or drop required`,
		},
		{
			name: "a required oneof with a derived member",
			src: service + `
message Req {
  oneof target {
    option (mcpwrite.v1.oneof) = {required: true};
    string task_id = 1;
    string owner = 2 [(mcpwrite.v1.field).derived = {context: PRINCIPAL_ID}];
  }
}`,
			want: `bad.proto:18:5: message bad.v1.Req: field owner: oneof members are chosen by the agent; derived cannot fill one`,
		},
		{
			name: "a buf.validate message oneof naming a missing field",
			src: `import "buf/validate/validate.proto";` + service + `
message Req {
  option (buf.validate.message).oneof = {fields: ["email", "phone"]};
  string email = 1;
}`,
			want: `bad.proto:14:1: message bad.v1.Req: (buf.validate.message).oneof names "phone", which is not a field of bad.v1.Req; name fields of the message (email)`,
		},
		{
			name: "an mcpwrite max_length that contradicts buf.validate max_len",
			src: `import "buf/validate/validate.proto";` + service + `
message Req {
  string name = 1 [
    (mcpwrite.v1.field).agent = {max_length: 200},
    (buf.validate.field).string.max_len = 100
  ];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field name: (mcpwrite.v1.field).agent.max_length 200 contradicts (buf.validate.field).string.max_len 100; state the rule once, in buf.validate`,
		},
		{
			name: "an mcpwrite minimum that contradicts buf.validate gte",
			src: `import "buf/validate/validate.proto";` + service + `
message Req {
  int32 count = 1 [
    (mcpwrite.v1.field).agent = {minimum: 1},
    (buf.validate.field).int32.gte = 5
  ];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field count: (mcpwrite.v1.field).agent.minimum 1 contradicts (buf.validate.field).int32.gte 5; state the rule once, in buf.validate`,
		},
		{
			name: "an mcpwrite pattern that contradicts buf.validate pattern",
			src: `import "buf/validate/validate.proto";` + service + `
message Req {
  string code = 1 [
    (mcpwrite.v1.field).agent = {pattern: "^[a-z]+$"},
    (buf.validate.field).string.pattern = "^[A-Z]+$"
  ];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field code: (mcpwrite.v1.field).agent.pattern "^[a-z]+$" contradicts (buf.validate.field).string.pattern "^[A-Z]+$"; state the rule once, in buf.validate`,
		},
		{
			name: "an mcpwrite max_items that contradicts buf.validate repeated.max_items",
			src: `import "buf/validate/validate.proto";` + service + `
message Req {
  repeated string tags = 1 [
    (mcpwrite.v1.field).agent = {max_items: 10},
    (buf.validate.field).repeated.max_items = 3
  ];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field tags: (mcpwrite.v1.field).agent.max_items 10 contradicts (buf.validate.field).repeated.max_items 3; state the rule once, in buf.validate`,
		},
		{
			name: "buf.validate enum rules that leave no alias",
			src: `import "buf/validate/validate.proto";` + service + layerEnums + `
message Req {
  Layer layer = 1 [(buf.validate.field).enum = {not_in: [1, 2]}];
}`,
			want: `bad.proto:21:3: message bad.v1.Req: field layer: (buf.validate.field).enum leaves no alias of bad.v1.Layer the agent could send; let the rule allow at least one offered value`,
		},
		{
			name: "buf.validate string rules on an int32 field",
			src: `import "buf/validate/validate.proto";` + service + `
message Req {
  int32 count = 1 [(buf.validate.field).string.min_len = 1];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field count: (buf.validate.field).string rules do not apply to an int32 field; use int32 rules`,
		},
		{
			name: "buf.validate number rules on the string items of a repeated field",
			src: `import "buf/validate/validate.proto";` + service + `
message Req {
  repeated string tags = 1 [(buf.validate.field).repeated.items.int64.gte = 1];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field tags: (buf.validate.field).repeated.items.int64 rules do not apply to string items; use string rules`,
		},
		{
			name: "a buf.validate required oneof with a hidden member",
			src: `import "buf/validate/validate.proto";` + service + `
message Req {
  oneof target {
    option (buf.validate.oneof).required = true;
    string task_id = 1 [(mcpwrite.v1.field).hidden = true];
    string parent_id = 2;
  }
}`,
			want: `bad.proto:17:5: message bad.v1.Req: field task_id: the agent cannot set this member of oneof target, which is (buf.validate.oneof).required; make every member agent-supplied, or drop required`,
		},
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		if seen[tc.name] {
			t.Fatalf("duplicate case %q", tc.name)
		}
		seen[tc.name] = true
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

func TestSeveralMistakesAreReportedTogetherInFileOrder(t *testing.T) {
	src := `
service S {
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {next_steps: "nope"}; }
}
message Resp { string id = 1; }
message Req {
  bool id = 1 [(mcpwrite.v1.field).generated = {kind: UUID_V7}];
  int32 count = 2 [(mcpwrite.v1.field).agent = {min_length: 1}];
  string schema = 3 [(mcpwrite.v1.field).derived = {constant: "1"}];
}`
	want := strings.Join([]string{
		`bad.proto:14:3: message bad.v1.Req: field id: generated UUID_V7 fills a string field, not a bool field; make the field a string, or remove its generated option`,
		`bad.proto:15:3: message bad.v1.Req: field count: min_length, max_length and pattern apply to string fields, not an int32 field; remove them, or use minimum and maximum on a number`,
		`bad.proto:16:3: message bad.v1.Req: field schema: constant 1: want a JSON string for a string field; write it as protojson writes the field, e.g. [(mcpwrite.v1.field).derived = {constant: "\"text\""}]`,
		`bad.proto:10:3: method bad.v1.S.Do: next_steps names unknown tool "nope"; name a tool of service S (do)`,
	}, "\n")
	got, files := generate(t, src, "")
	if got != want {
		t.Errorf("error:\n got: %s\nwant: %s", got, want)
	}
	if files != 0 {
		t.Errorf("emitted %d files next to an error; want none", files)
	}
}

func TestConfigSetRejectsUnknownParametersAndBadValues(t *testing.T) {
	cases := []struct {
		name, value string
		want        string
		strict      bool
	}{
		{name: "strict", value: "", strict: true},
		{name: "strict", value: "true", strict: true},
		{name: "strict", value: "false", strict: false},
		{name: "strict", value: "yes", want: `parameter strict: want true or false, got "yes"`},
		{name: "review", value: "all", want: `parameter review: want true, false or only, got "all"`},
		{name: "sdk", value: "go-sdk"},
		{name: "sdk", value: "mcp-go"},
		{name: "sdk", value: "mcpgo", want: `parameter sdk: want go-sdk (github.com/modelcontextprotocol/go-sdk, the default) or mcp-go (github.com/mark3labs/mcp-go), got "mcpgo"`},
		{name: "sdk", value: "", want: `parameter sdk: want go-sdk (github.com/modelcontextprotocol/go-sdk, the default) or mcp-go (github.com/mark3labs/mcp-go), got ""`},
		{name: "strcit", value: "true", want: `unknown parameter "strcit" (known: strict, vendor_notes, connect, review, schema_budget, sdk)`},
	}
	for _, tc := range cases {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			c := gen.Config{Strict: !tc.strict}
			if tc.name == "sdk" && tc.value == "go-sdk" {
				c.SDK = gen.SDKMCPGo // go-sdk must set it back
			}
			err := c.Set(tc.name, tc.value)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Fatalf("Set error = %q, want %q", got, tc.want)
			}
			if tc.want == "" && tc.name == "strict" && c.Strict != tc.strict {
				t.Errorf("Strict = %v, want %v", c.Strict, tc.strict)
			}
			if tc.want == "" && tc.name == "sdk" && c.SDK != map[string]gen.SDK{"go-sdk": gen.SDKGo, "mcp-go": gen.SDKMCPGo}[tc.value] {
				t.Errorf("SDK = %v after sdk=%s", c.SDK, tc.value)
			}
		})
	}
}

func TestPluginRejectsABadParameterBeforeGenerating(t *testing.T) {
	cases := map[string]string{
		"strict=maybe":                     `parameter strict: want true or false, got "maybe"`,
		"paths=source_relative,sdk=Mcp-Go": `parameter sdk: want go-sdk (github.com/modelcontextprotocol/go-sdk, the default) or mcp-go (github.com/mark3labs/mcp-go), got "Mcp-Go"`,
		"paths=source_relative,colour=on":  `unknown parameter "colour" (known: strict, vendor_notes, connect, review, schema_budget, sdk)`,
	}
	for param, want := range cases {
		t.Run(param, func(t *testing.T) {
			_, err := plugintest.Run(request(t, service+"message Req { string name = 1; }", param))
			if err == nil || err.Error() != want {
				t.Fatalf("error = %v, want %q", err, want)
			}
		})
	}
}

// openStruct has one portability finding: objects nested deeper than the
// portable limit. (A google.protobuf.Struct, once an open object, is now
// JSON text in a string and has no finding.)
const openStruct = service + `
message Req {
  google.protobuf.Struct attrs = 1;
  L1 a = 2;
}
message L1 { L2 b = 1; }
message L2 { L3 c = 1; }
message L3 { L4 d = 1; }
message L4 { L5 e = 1; }
message L5 { string f = 1; }`

const openStructWarning = "bad.proto:10:3: tool do: a.b.c.d.e nests objects 6 deep (portable limit 5)"

func TestStrictTurnsPortabilityWarningsIntoErrors(t *testing.T) {
	got, files := generate(t, openStruct, "strict=true")
	if got != openStructWarning {
		t.Errorf("strict error:\n got: %s\nwant: %s", got, openStructWarning)
	}
	if files != 0 {
		t.Errorf("strict run emitted %d files; want none", files)
	}
	got, files = generate(t, openStruct, "strict=false")
	if got != "" || files != 2 {
		t.Errorf("lenient run: error %q and %d files; want no error and 2 files", got, files)
	}
}

func TestLenientRunWritesPortabilityWarnings(t *testing.T) {
	p, err := protogen.Options{}.New(request(t, openStruct, ""))
	if err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	if err := gen.Generate(p, gen.Config{Warn: &warn}); err != nil {
		t.Fatalf("Generate: %v", err)
	}
	want := "protoc-gen-mcpwrite: warning: " + openStructWarning + "\n"
	if warn.String() != want {
		t.Errorf("warnings:\n got: %q\nwant: %q", warn.String(), want)
	}
	if n := len(gen.Response(p).File); n != 2 {
		t.Errorf("emitted %d files; want the .mcpwrite.go and .mcpwrite.json", n)
	}
}

// Response takes a run's formatted Go files: asked again, it answers an
// error instead of a response that lacks them.
func TestResponseTwiceIsAnError(t *testing.T) {
	p, err := protogen.Options{}.New(request(t, openStruct, ""))
	if err != nil {
		t.Fatal(err)
	}
	if err := gen.Generate(p, gen.Config{Warn: io.Discard}); err != nil {
		t.Fatalf("Generate: %v", err)
	}
	if r := gen.Response(p); r.Error != nil || len(r.File) != 2 {
		t.Fatalf("first Response: error %q, %d files; want the .mcpwrite.go and .mcpwrite.json", r.GetError(), len(r.File))
	}
	want := "gen.Response: the run has no formatted Go files for its JSON documents (Response was called twice, or Generate failed)"
	if r := gen.Response(p); r.GetError() != want || len(r.File) != 0 {
		t.Errorf("second Response: error %q, %d files; want %q and none", r.GetError(), len(r.File), want)
	}
}

// opEnum is the operation enum conditions read in the required_when cases.
const opEnum = `
enum Op {
  OP_UNSPECIFIED = 0;
  OP_PROMOTE = 1;
  OP_EXTRACT = 2 [(mcpwrite.v1.value) = {synonyms: ["split"]}];
}
`

func TestRequiredWhenMisuseIsReportedWithFieldContext(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want string
	}{
		{
			name: "no field",
			src: service + `
message Req {
  string parent_id = 1 [(mcpwrite.v1.field).agent = {required_when: {equals: "\"x\""}}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field parent_id: required_when needs field: the sibling field whose value makes this one required, e.g. required_when: {field: "mode" equals: "\"x\""}`,
		},
		{
			name: "no values",
			src: service + opEnum + `
message Req {
  Op operation = 1;
  string parent_id = 2 [(mcpwrite.v1.field).agent = {required_when: {field: "operation"}}];
}`,
			want: `bad.proto:22:3: message bad.v1.Req: field parent_id: required_when needs equals: the values of operation (JSON literals, enum aliases) that make this field required, e.g. required_when: {field: "operation" equals: "\"x\""}`,
		},
		{
			name: "a field that is not there",
			src: service + `
message Req {
  string parent_id = 1 [(mcpwrite.v1.field).agent = {required_when: {field: "operation" equals: "\"extract\""}}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field parent_id: required_when names "operation", which is not a field of bad.v1.Req; name a sibling field (there is none; add one)`,
		},
		{
			name: "the field itself",
			src: service + `
message Req {
  string parent_id = 1 [(mcpwrite.v1.field).agent = {required_when: {field: "parent_id" equals: "\"x\""}}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field parent_id: required_when cannot name the field it belongs to; name a sibling field (there is none; add one)`,
		},
		{
			name: "a server-filled field",
			src: service + `
message Req {
  string owner = 1 [(mcpwrite.v1.field).derived = {context: PRINCIPAL_ID}];
  string parent_id = 2 [(mcpwrite.v1.field).agent = {required_when: {field: "owner" equals: "\"ada\""}}];
}`,
			want: `bad.proto:16:3: message bad.v1.Req: field parent_id: required_when names "owner", which the server fills; a condition reads a field the agent sets`,
		},
		{
			name: "a hidden field",
			src: service + `
message Req {
  string mode = 1 [(mcpwrite.v1.field).hidden = true];
  string parent_id = 2 [(mcpwrite.v1.field).agent = {required_when: {field: "mode" equals: "\"x\""}}];
}`,
			want: `bad.proto:16:3: message bad.v1.Req: field parent_id: required_when names "mode", which is hidden; a condition reads a field the agent sets`,
		},
		{
			name: "a repeated field",
			src: service + `
message Req {
  repeated string tags = 1;
  string parent_id = 2 [(mcpwrite.v1.field).agent = {required_when: {field: "tags" equals: "\"x\""}}];
}`,
			want: `bad.proto:16:3: message bad.v1.Req: field parent_id: required_when names "tags", which is a repeated field; a condition reads a singular scalar or enum field`,
		},
		{
			name: "a message field",
			src: service + `
message Req {
  Resp target = 1;
  string parent_id = 2 [(mcpwrite.v1.field).agent = {required_when: {field: "target" equals: "\"x\""}}];
}`,
			want: `bad.proto:16:3: message bad.v1.Req: field parent_id: required_when names "target", which is message bad.v1.Resp; a condition reads a singular scalar or enum field`,
		},
		{
			name: "an unknown alias",
			src: service + opEnum + `
message Req {
  Op operation = 1 [(mcpwrite.v1.field).enum_alias = {style: SNAKE}];
  string parent_id = 2 [(mcpwrite.v1.field).agent = {required_when: {field: "operation" equals: "\"extrct\""}}];
}`,
			want: `bad.proto:22:3: message bad.v1.Req: field parent_id: required_when value "extrct" is not an alias of bad.v1.Op (valid: promote, extract); e.g. equals: "\"promote\""`,
		},
		{
			name: "an enum value by its constant name",
			src: service + opEnum + `
message Req {
  Op operation = 1 [(mcpwrite.v1.field).enum_alias = {style: SNAKE}];
  string parent_id = 2 [(mcpwrite.v1.field).agent = {required_when: {field: "operation" equals: "\"OP_EXTRACT\""}}];
}`,
			want: `bad.proto:22:3: message bad.v1.Req: field parent_id: required_when value "OP_EXTRACT" is not an alias of bad.v1.Op (valid: promote, extract); e.g. equals: "\"promote\""`,
		},
		{
			name: "an enum value that is not a JSON string",
			src: service + opEnum + `
message Req {
  Op operation = 1;
  string parent_id = 2 [(mcpwrite.v1.field).agent = {required_when: {field: "operation" equals: "extract"}}];
}`,
			want: `bad.proto:22:3: message bad.v1.Req: field parent_id: required_when value extract: want an alias of bad.v1.Op as a JSON string, e.g. "\"Promote\""`,
		},
		{
			name: "a value of the wrong type",
			src: service + `
message Req {
  bool blocked = 1;
  string reason = 2 [(mcpwrite.v1.field).agent = {required_when: {field: "blocked" equals: "\"yes\""}}];
}`,
			want: `bad.proto:16:3: message bad.v1.Req: field reason: required_when value "yes" for blocked: want true or false for a bool field; write it as protojson writes blocked, e.g. equals: "true"`,
		},
		{
			name: "the same value twice",
			src: service + opEnum + `
message Req {
  Op operation = 1 [(mcpwrite.v1.field).enum_alias = {style: SNAKE}];
  string parent_id = 2 [(mcpwrite.v1.field).agent = {required_when: {field: "operation" equals: ["\"extract\"", "\"split\""]}}];
}`,
			want: `bad.proto:22:3: message bad.v1.Req: field parent_id: required_when lists "extract" and "split", which are the same value of operation; list each value once`,
		},
		{
			name: "also required",
			src: service + opEnum + `
message Req {
  Op operation = 1;
  string parent_id = 2 [(mcpwrite.v1.field).agent = {required: true required_when: {field: "operation" equals: "\"Extract\""}}];
}`,
			want: `bad.proto:22:3: message bad.v1.Req: field parent_id: a required field cannot also have required_when; drop one of them`,
		},
		{
			name: "with a default",
			src: service + opEnum + `
message Req {
  Op operation = 1;
  string parent_id = 2 [(mcpwrite.v1.field).agent = {default: "\"root\"" required_when: {field: "operation" equals: "\"Extract\""}}];
}`,
			want: `bad.proto:22:3: message bad.v1.Req: field parent_id: a field with a default is never absent, so required_when cannot apply; drop one of them`,
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

func TestReferenceMisuseIsReportedWithFieldContext(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want string
	}{
		{
			name: "on a non-string field",
			src: service + `
message Req {
  int64 source = 1 [(mcpwrite.v1.field).agent = {reference: {resolver: "element_ref" kind: "element"}}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field source: reference resolves a singular string field, not an int64 field; move reference to a string field that holds the entity's id`,
		},
		{
			name: "on a repeated field",
			src: service + `
message Req {
  repeated string sources = 1 [(mcpwrite.v1.field).agent = {reference: {resolver: "element_ref" kind: "element"}}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field sources: reference resolves a singular string field, not a repeated field; move reference to a string field that holds the entity's id`,
		},
		{
			name: "without a resolver",
			src: service + `
message Req {
  string source_id = 1 [(mcpwrite.v1.field).agent = {reference: {kind: "element"}}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field source_id: reference needs resolver: a snake_case name such as element_ref, got ""; e.g. [(mcpwrite.v1.field).agent = {reference: {resolver: "element_ref" kind: "element"}}]`,
		},
		{
			name: "a resolver name that is not snake_case",
			src: service + `
message Req {
  string source_id = 1 [(mcpwrite.v1.field).agent = {reference: {resolver: "ElementRef" kind: "element"}}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field source_id: reference needs resolver: a snake_case name such as element_ref, got "ElementRef"; e.g. [(mcpwrite.v1.field).agent = {reference: {resolver: "element_ref" kind: "element"}}]`,
		},
		{
			name: "without a kind",
			src: service + `
message Req {
  string source_id = 1 [(mcpwrite.v1.field).agent = {reference: {resolver: "element_ref"}}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field source_id: reference needs kind: what the field names, e.g. [(mcpwrite.v1.field).agent = {reference: {resolver: "element_ref" kind: "element"}}]`,
		},
		{
			name: "with a default",
			src: service + `
message Req {
  string source_id = 1 [(mcpwrite.v1.field).agent = {default: "\"x\"" reference: {resolver: "element_ref" kind: "element"}}];
}`,
			want: `bad.proto:15:3: message bad.v1.Req: field source_id: a reference cannot have a default; name the entity in the request`,
		},
		{
			name: "a value resolver's name",
			src: service + `
message Req {
  string model_id = 1 [(mcpwrite.v1.field).derived = {resolver: "active_model"}];
  string source_id = 2 [(mcpwrite.v1.field).agent = {reference: {resolver: "active_model" kind: "element"}}];
}`,
			want: `bad.proto:16:3: message bad.v1.Req: field source_id: resolver "active_model" fills bad.v1.Req.model_id as a value resolver; a reference resolver needs its own name`,
		},
		{
			name: "a reference resolver's name for a value",
			src: service + `
message Req {
  string source_id = 1 [(mcpwrite.v1.field).agent = {reference: {resolver: "element_ref" kind: "element"}}];
  string source_type = 2 [(mcpwrite.v1.field).derived = {resolver: "element_ref"}];
}`,
			want: `bad.proto:16:3: message bad.v1.Req: field source_type: resolver "element_ref" resolves references for bad.v1.Req.source_id; a value resolver needs its own name`,
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
