package gen_test

import (
	"strconv"
	"strings"
	"testing"
)

// exampleTool is a service whose one tool has the given example inputs,
// over the messages msgs.
func exampleTool(msgs string, inputs ...string) string {
	var xs []string
	for _, in := range inputs {
		xs = append(xs, `{input: `+strconv.Quote(in)+`}`)
	}
	return `import "buf/validate/validate.proto";
import "google/protobuf/timestamp.proto";
import "google/protobuf/duration.proto";
import "google/protobuf/field_mask.proto";
import "google/protobuf/wrappers.proto";
service S {
  rpc Do(Req) returns (Resp) {
    option (mcpwrite.v1.tool) = {kind: CREATE examples: [` + strings.Join(xs, ", ") + `]};
  }
}
message Resp { string id = 1; }` + msgs
}

const pvMessages = `
message Window {
  option (buf.validate.message).cel = {id: "window.order" message: "ends must follow starts" expression: "!has(this.ends) || this.ends > this.starts"};
  google.protobuf.Timestamp starts = 1;
  google.protobuf.Timestamp ends = 2;
}
message Req {
  option (buf.validate.message).cel = {id: "req.tenant" message: "tenant must be set" expression: "this.tenant_id != ''"};
  string email = 1 [(buf.validate.field).string.email = true];
  string color = 2 [(buf.validate.field).string = {in: ["red", "green"]}];
  string sku = 3 [(buf.validate.field).string.prefix = "SKU-"];
  int32 qty = 4 [(buf.validate.field).cel = {id: "qty.even" message: "must be even" expression: "this % 2 == 0"}];
  Window window = 5;
  repeated string tags = 6 [(buf.validate.field).repeated.items.string.not_in = "none"];
  string tenant_id = 7 [(mcpwrite.v1.field).derived = {context: TENANT_ID}, (buf.validate.field).string.min_len = 1];
  string request_id = 8 [(mcpwrite.v1.field).generated = {kind: UUID_V4}, (buf.validate.field).string.uuid = true];
  string note = 9 [(mcpwrite.v1.field).agent = {examples: "\"abc\""}, (buf.validate.field).string.min_len = 3];
}`

// An example breaking a buf.validate rule the decoder does not check over
// the model (in, not_in, formats, affixes, CEL at field and message
// level) is refused at generation as protovalidate refuses the call;
// rules over what the server fills (the tenant, a generated id, a message
// rule of a request holding them) are not the example's.
func TestToolExamplesAreValidatedByProtovalidate(t *testing.T) {
	good := `{"email":"ada@example.com","color":"red","sku":"SKU-1","qty":2,"window":{"starts":"2024-05-01T12:00:00Z","ends":"2024-05-02T12:00:00Z"},"tags":["a"],"note":"abc"}`
	if got, files := generate(t, exampleTool(pvMessages, good), ""); got != "" || files == 0 {
		t.Fatalf("good example: error %q (%d files)", got, files)
	}
	bad := `{"email":"ada","color":"blue","sku":"1","qty":3,"window":{"starts":"2024-05-02T12:00:00Z","ends":"2024-05-01T12:00:00Z"},"tags":["a","none"],"note":"abc"}`
	got, files := generate(t, exampleTool(pvMessages, bad), "")
	const at = `bad.proto:14:3: method bad.v1.S.Do: example 1 ("Example 1"): `
	const fix = `; correct the example's input, the server would refuse it`
	want := []string{
		"email: must be a valid email address (buf.validate rule string.email)",
		"color: must be in list [red, green] (buf.validate rule string.in)",
		"sku: does not have prefix `SKU-` (buf.validate rule string.prefix)",
		"qty: must be even (buf.validate rule qty.even)",
		"window: ends must follow starts (buf.validate rule window.order)",
		"tags[1]: must not be in list [none] (buf.validate rule string.not_in)",
	}
	for i := range want {
		want[i] = at + want[i] + fix
	}
	if got != strings.Join(want, "\n") || files != 0 {
		t.Errorf("bad example (%d files):\n got: %s\nwant: %s", files, got, strings.Join(want, "\n"))
	}
}

// A required rule counts on what the agent supplies only: a field the
// server fills (from the context, generated, hidden) is absent from every
// example, and an overridable field left out is the server's to fill; the
// empty string sent for it decodes to the unset value the server fills
// too; a value the agent does send is checked, once ("title" is reported
// by the decoder's check, not again by protovalidate's required).
func TestExampleRequiredRulesCountOnlyForWhatTheAgentSends(t *testing.T) {
	const msgs = `
message Meta { string trace = 1; }
message Req {
  string title = 1 [(buf.validate.field).required = true];
  string tenant_id = 2 [(mcpwrite.v1.field).derived = {context: TENANT_ID}, (buf.validate.field).required = true];
  string id = 3 [(mcpwrite.v1.field).generated = {kind: UUID_V4 overridable: true}, (buf.validate.field).required = true, (buf.validate.field).string.uuid = true];
  Meta meta = 4 [(mcpwrite.v1.field).hidden = true, (buf.validate.field).required = true];
}`
	got, files := generate(t, exampleTool(msgs, `{"title":"T"}`, `{}`, `{"title":"T","id":"nope"}`, `{"title":"T","id":""}`), "")
	want := `bad.proto:14:3: method bad.v1.S.Do: example 2 ("Example 2"): title: missing required field; correct the example's input, the server would refuse it
bad.proto:14:3: method bad.v1.S.Do: example 3 ("Example 3"): id: must be a valid UUID (buf.validate rule string.uuid); correct the example's input, the server would refuse it`
	if got != want || files != 0 {
		t.Errorf("(%d files):\n got: %s\nwant: %s", files, got, want)
	}
}

// Well-known types, wrappers, 64-bit integers, bytes and every scalar in
// an example are read by the decoder's rules (internal/wellknown for the
// text forms): what it takes generates, what it refuses fails generation
// naming the example and the field.
func TestExampleWellKnownTypesAndScalarsAreReadAsTheDecoderReadsThem(t *testing.T) {
	const msgs = `
message Req {
  google.protobuf.Timestamp at = 1;
  google.protobuf.Duration every = 2;
  google.protobuf.FieldMask fields = 3;
  google.protobuf.Struct attrs = 4;
  google.protobuf.ListValue list = 5;
  google.protobuf.Int64Value big = 6;
  int64 count = 7;
  bytes blob = 8;
  int32 small = 9;
  bool flag = 10;
  string name = 11;
  google.protobuf.Value any_value = 12;
}`
	good := `{"at":"2024-05-01T12:00:00+02:00","every":"90m","fields":"displayName, owner.teamId","attrs":"{\"team\":\"payments\"}","list":[1,"a"],"big":"9007199254740993","count":"-42","blob":"aGk","small":1e2,"flag":true,"name":"x","any_value":"OK"}`
	if got, files := generate(t, exampleTool(msgs, good, `{"every":"-0.25s","attrs":{"a":[1]},"list":"[]","blob":"aGk=","any_value":{"a":null}}`), ""); got != "" || files == 0 {
		t.Fatalf("good examples: error %q (%d files)", got, files)
	}
	bad := []string{
		`{"at":"May 1st","every":"1.5 s","fields":"a..b","attrs":"[1]","list":"{}","big":9,"count":"4.2","blob":"a","small":2147483648,"flag":"true","name":5}`,
		`{"at":"0000-01-01T00:00:00Z","every":"315576000001s","small":1.5,"attrs":"{"}`,
	}
	got, files := generate(t, exampleTool(msgs, bad...), "")
	const at = `bad.proto:14:3: method bad.v1.S.Do: `
	const fix = `; correct the example's input, the server would refuse it`
	want := []string{
		`example 1 ("Example 1"): at: expected an RFC 3339 timestamp such as "2024-05-01T12:00:00Z", got "May 1st"`,
		`example 1 ("Example 1"): every: expected a duration such as "1.5s" or "90m", got "1.5 s"`,
		`example 1 ("Example 1"): fields: expected a field mask such as "name,description", got invalid path "a..b"`,
		`example 1 ("Example 1"): attrs: expected an object, got an array`,
		`example 1 ("Example 1"): list: expected an array, got an object`,
		`example 1 ("Example 1"): big: expected a string (64-bit integers are sent as strings, e.g. "42"), got a number`,
		`example 1 ("Example 1"): count: expected a decimal integer string in the int64 range, got "4.2"`,
		`example 1 ("Example 1"): blob: expected base64 data, got an invalid string`,
		`example 1 ("Example 1"): small: value 2147483648 is out of range for int32 (-2147483648 to 2147483647)`,
		`example 1 ("Example 1"): flag: expected a boolean, got a string`,
		`example 1 ("Example 1"): name: expected a string, got a number`,
		`example 2 ("Example 2"): at: timestamp "0000-01-01T00:00:00Z" is outside 0001-01-01 to 9999-12-31`,
		`example 2 ("Example 2"): every: duration "315576000001s" is outside ±315576000000s`,
		`example 2 ("Example 2"): attrs: must be JSON text (unexpected end of JSON input)`,
		`example 2 ("Example 2"): small: expected an integer, got 1.5`,
	}
	for i := range want {
		want[i] = at + want[i] + fix
	}
	if got != strings.Join(want, "\n") || files != 0 {
		t.Errorf("bad examples (%d files):\n got: %s\nwant: %s", files, got, strings.Join(want, "\n"))
	}
}

// A field's own example, and the minimal example made from required
// fields' examples, go through the same reading and request check as a
// tool example.
func TestFieldAndMinimalExamplesAreValidatedAsRequests(t *testing.T) {
	const msgs = `
message Req {
  string contact = 1 [(mcpwrite.v1.field).agent = {required: true examples: "\"bob\""}, (buf.validate.field).string.email = true];
  google.protobuf.Timestamp due = 2 [(mcpwrite.v1.field).agent = {examples: "\"tomorrow\""}];
  repeated string codes = 3 [(mcpwrite.v1.field).agent = {examples: "[\"AB-1\", \"x\"]"}, (buf.validate.field).repeated.items.string.prefix = "AB-"];
  int64 amount = 4 [(mcpwrite.v1.field).agent = {examples: "12"}];
}`
	src := `import "buf/validate/validate.proto";
import "google/protobuf/timestamp.proto";
service S {
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE}; }
}
message Resp { string id = 1; }` + msgs
	got, files := generate(t, src, "")
	want := `bad.proto:15:3: message bad.v1.Req: field contact: example "bob": contact: must be a valid email address (buf.validate rule string.email); correct the example, the server would refuse it
bad.proto:16:3: message bad.v1.Req: field due: example "tomorrow": due: expected an RFC 3339 timestamp such as "2024-05-01T12:00:00Z", got "tomorrow"; correct the example, the server would refuse it
bad.proto:17:3: message bad.v1.Req: field codes: example ["AB-1","x"]: codes[1]: does not have prefix ` + "`AB-`" + ` (buf.validate rule string.prefix); correct the example, the server would refuse it
bad.proto:18:3: message bad.v1.Req: field amount: example 12: amount: expected a string (64-bit integers are sent as strings, e.g. "42"), got a number; correct the example, the server would refuse it
bad.proto:11:3: method bad.v1.S.Do: minimal valid input {"contact":"bob"}, made from the required fields' examples: contact: must be a valid email address (buf.validate rule string.email); correct those fields' examples or add a tool example, the server would refuse it`
	if got != want || files != 0 {
		t.Errorf("(%d files):\n got: %s\nwant: %s", files, got, want)
	}
}

// A buf.validate rule that does not compile keeps the server's request
// check from starting: generation fails naming the method and the
// request, with or without examples.
func TestRequestRulesThatDoNotCompileFailGeneration(t *testing.T) {
	const msgs = `
message Req {
  string a = 1 [(buf.validate.field).cel = {id: "a.set" message: "a is set" expression: "this != "}];
}`
	got, files := generate(t, exampleTool(msgs), "")
	want := `bad.proto:14:3: method bad.v1.S.Do: the buf.validate rules of bad.v1.Req do not compile: compilation error: failed to compile expression a.set: ERROR: <input>:1:9: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}; correct the rule (the server's request check would not start)`
	if got != want || files != 0 {
		t.Errorf("(%d files):\n got: %s\nwant: %s", files, got, want)
	}
}

// The request check judges a reference by the id the server resolves the
// agent's text to, which only a call has: the example's name is not
// judged by the id's rules, and the tool's other fields still are.
func TestExampleReferencesAreJudgedByTheServer(t *testing.T) {
	const msgs = `
message Req {
  string owner_id = 1 [(mcpwrite.v1.field).agent = {reference: {resolver: "owner_ref" kind: "user"}}, (buf.validate.field).string.uuid = true];
  string email = 2 [(buf.validate.field).string.email = true];
}`
	got, files := generate(t, exampleTool(msgs, `{"owner_id":"Ada Lovelace","email":"ada@example.com"}`, `{"owner_id":"Ada Lovelace","email":"ada"}`), "")
	want := `bad.proto:14:3: method bad.v1.S.Do: example 2 ("Example 2"): email: must be a valid email address (buf.validate rule string.email); correct the example's input, the server would refuse it`
	if got != want || files != 0 {
		t.Errorf("(%d files):\n got: %s\nwant: %s", files, got, want)
	}
}
