package gen_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// toolInput is the input schema property of the named tool in the
// document generated from src.
func toolInput(t *testing.T, src, tool, property string) map[string]any {
	t.Helper()
	resp, err := plugintest.Run(request(t, src, ""))
	if err != nil || resp.GetError() != "" {
		t.Fatalf("run: %v %s", err, resp.GetError())
	}
	for _, f := range resp.File {
		if !strings.HasSuffix(f.GetName(), ".mcpwrite.json") {
			continue
		}
		var doc schemadoc.Document
		if err := json.Unmarshal([]byte(f.GetContent()), &doc); err != nil {
			t.Fatal(err)
		}
		for _, d := range doc.Services[0].Tools {
			if d.Name != tool {
				continue
			}
			var in struct {
				Properties map[string]map[string]any `json:"properties"`
			}
			if err := json.Unmarshal(d.InputSchema, &in); err != nil {
				t.Fatal(err)
			}
			return in.Properties[property]
		}
	}
	t.Fatalf("no tool %s", tool)
	return nil
}

// An update_mask lists the paths the decoder's check takes: the resource's
// fields but its identity and the OUTPUT_ONLY, IDENTIFIER and IMMUTABLE
// ones, dotted through singular messages to any depth (a recursive one and
// a well-known type end a path), a map's key after the map; each in both
// spellings, the description in the service's naming.
func TestUpdateMaskStatesThePathsOfTheResource(t *testing.T) {
	src := `
import "google/protobuf/field_mask.proto";
service S {
  option (mcpwrite.v1.service) = {expose: ALL field_naming: JSON_NAME};
  rpc UpdateBook(UpdateBookRequest) returns (Book);
}
message Book {
  string name = 1;
  string display_title = 2;
  string create_time = 3 [(google.api.field_behavior) = OUTPUT_ONLY];
  string isbn = 4 [(google.api.field_behavior) = IMMUTABLE];
  Shelf shelf = 5;
  map<string, string> labels = 6;
  repeated string tags = 7;
}
message Shelf { string room_code = 1; Shelf parent = 2; Room room = 3; }
message Room { Wing wing = 1; google.protobuf.FieldMask seen = 2; }
message Wing { string floor_name = 1; }
message UpdateBookRequest {
  Book book = 1;
  google.protobuf.FieldMask update_mask = 2;
}`
	got := toolInput(t, src, "update_book", "updateMask")
	const path = `(display_title|displayTitle|shelf|shelf\.room_code|shelf\.roomCode|shelf\.parent|shelf\.room|shelf\.room\.wing|shelf\.room\.wing\.floor_name|shelf\.room\.wing\.floorName|shelf\.room\.seen|(labels)(\.[A-Za-z_][A-Za-z0-9_]*)?|tags)`
	if want := `^(\*|` + path + `( *, *` + path + `)*)?$`; got["pattern"] != want {
		t.Errorf("pattern = %v\nwant      %s", got["pattern"], want)
	}
	if want := `Omit it to update exactly the fields set in book. Comma-separated paths of book: displayTitle, shelf, shelf.roomCode, shelf.parent, shelf.room, shelf.room.wing, shelf.room.wing.floorName, shelf.room.seen, labels[.key], tags; "*" alone replaces the whole resource.`; got["description"] != want {
		t.Errorf("description = %v\nwant          %s", got["description"], want)
	}
}

// A FieldMask outside an update takes any paths the decoder reads.
func TestFieldMaskPatternIsThePathSyntax(t *testing.T) {
	src := `import "google/protobuf/field_mask.proto";` + service + `
message Req { google.protobuf.FieldMask fields = 1; }`
	got := toolInput(t, src, "do", "fields")
	const p = `[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*`
	if want := `^(\*|` + p + `( *, *` + p + `)*)?$`; got["pattern"] != want {
		t.Errorf("pattern = %v, want %s", got["pattern"], want)
	}
}

// A field the server fills unless the agent sends it states the string
// and enum rules the request check applies to the agent's value.
func TestOverridableFieldStatesItsRules(t *testing.T) {
	src := `import "buf/validate/validate.proto";` + service + `
enum Tier { TIER_UNSPECIFIED = 0; TIER_FREE = 1; TIER_PRO = 2; TIER_GOLD = 3; }
message Req {
  string region = 1 [(mcpwrite.v1.field).derived = {constant: "\"eu\"" overridable: true}, (buf.validate.field).string = {in: ["eu", "us"]}];
  string code = 2 [(mcpwrite.v1.field).derived = {constant: "\"AB\"" overridable: true}, (buf.validate.field).string = {min_len: 2 max_len: 4 pattern: "^[A-Z]+$" not_in: ["XX"]}];
  Tier tier = 3 [(mcpwrite.v1.field).derived = {constant: "\"TIER_FREE\"" overridable: true}, (buf.validate.field).enum = {not_in: [3]}];
}`
	region := toolInput(t, src, "do", "region")
	if got, _ := json.Marshal(region["enum"]); string(got) != `["eu","us"]` {
		t.Errorf("region enum = %s", got)
	}
	code := toolInput(t, src, "do", "code")
	if code["minLength"] != 2.0 || code["maxLength"] != 4.0 || code["pattern"] != "^[A-Z]+$" {
		t.Errorf("code = %v", code)
	}
	if want := `Optional: constant "AB" when omitted. Must not be any of "XX".`; code["description"] != want {
		t.Errorf("code description = %q, want %q", code["description"], want)
	}
	tier := toolInput(t, src, "do", "tier")
	if got, _ := json.Marshal(tier["enum"]); string(got) != `["Free","Pro"]` {
		t.Errorf("tier enum = %s", got)
	}
}

// An overridable field's numeric, Duration and Timestamp rules are stated as
// an agent field's: inclusive and exclusive bounds as keywords, numeric in,
// not_in and const in words, 64-bit ranges (decimal strings) and Duration
// and Timestamp rules in words; bool.const and byte counts as keywords.
func TestOverridableFieldStatesItsNumberAndTimeRules(t *testing.T) {
	src := `import "buf/validate/validate.proto";
import "google/protobuf/duration.proto";
import "google/protobuf/timestamp.proto";` + service + `
message Req {
  optional int32 priority = 1 [(mcpwrite.v1.field).derived = {constant: "3" overridable: true}, (buf.validate.field).int32 = {gte: 1 lte: 5 not_in: [4]}];
  optional double ratio = 2 [(mcpwrite.v1.field).derived = {constant: "0.5" overridable: true}, (buf.validate.field).double = {gt: 0 lt: 1}];
  optional uint32 tier = 3 [(mcpwrite.v1.field).derived = {constant: "1" overridable: true}, (buf.validate.field).uint32 = {in: [1, 2, 3]}];
  optional int64 quota = 4 [(mcpwrite.v1.field).derived = {constant: "1000" overridable: true}, (buf.validate.field).int64 = {gte: 1 lte: 9007199254740993}];
  google.protobuf.Timestamp seen_at = 5 [(mcpwrite.v1.field).generated = {kind: NOW overridable: true}, (buf.validate.field).timestamp = {gt: {seconds: 946684800}}];
  google.protobuf.Duration grace = 6 [(mcpwrite.v1.field).derived = {resolver: "grace" overridable: true}, (buf.validate.field).duration = {gte: {seconds: 1} lte: {seconds: 3600}}];
  optional int32 channel = 7 [(mcpwrite.v1.field).derived = {constant: "2" overridable: true}, (buf.validate.field).int32.const = 2];
  optional bool audited = 8 [(mcpwrite.v1.field).derived = {constant: "true" overridable: true}, (buf.validate.field).bool.const = true];
  optional bytes salt = 9 [(mcpwrite.v1.field).derived = {constant: "\"AAAA\"" overridable: true}, (buf.validate.field).bytes.len = 3];
}`
	props, _ := inputSchemaOf(t, src, "do")
	for name, want := range map[string]string{
		"priority": `{"description":"Optional: constant 3 when omitted. Must not be any of 4.","maximum":5,"minimum":1,"type":"integer"}`,
		"ratio":    `{"description":"Optional: constant 0.5 when omitted.","exclusiveMaximum":1,"exclusiveMinimum":0,"type":"number"}`,
		"tier":     `{"description":"Optional: constant 1 when omitted. Must be one of 1, 2, 3.","minimum":0,"type":"integer"}`,
		"quota":    `{"description":"Optional: constant 1000 when omitted. Must be at least 1 and at most 9007199254740993.","pattern":"^-?[0-9]+$","type":"string"}`,
		"seen_at":  `{"description":"Optional: the current time when omitted. Must be after 2000-01-01T00:00:00Z.","format":"date-time","type":"string"}`,
		"grace":    `{"description":"Optional: resolved by the server (grace) when omitted. Must be at least 1s and at most 3600s.","pattern":"^-?[0-9]+(\\.[0-9]{1,9})?s$","type":"string"}`,
		"channel":  `{"const":2,"description":"Optional: constant 2 when omitted. Must be 2.","type":"integer"}`,
		"audited":  `{"const":true,"description":"Optional: constant true when omitted.","type":"boolean"}`,
		"salt":     `{"description":"Optional: constant \"AAAA\" when omitted. Must be exactly 3 bytes (base64).","maxLength":4,"minLength":4,"pattern":"^(?:(?:[A-Za-z0-9+/]{4})|(?:[A-Za-z0-9_-]{4}))$","type":"string"}`,
	} {
		if props[name] != want {
			t.Errorf("%s = %s\nwant %s", name, props[name], want)
		}
	}
}
