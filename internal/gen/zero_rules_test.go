package gen_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// A buf.validate rule that fails on a field's zero value refuses the field
// whenever the agent omits it (the request check sees the zero value), so
// the schema lists it as required; a field whose rules pass at zero, that
// has presence, or that says IGNORE_IF_ZERO_VALUE stays optional.
func TestRulesFailingOnZeroMakeTheFieldRequired(t *testing.T) {
	src := `import "buf/validate/validate.proto";` + service + `
message Req {
  repeated string tags = 1 [(buf.validate.field).repeated.min_items = 1];
  map<string, string> labels = 2 [(buf.validate.field).map.min_pairs = 1];
  double discount = 3 [(buf.validate.field).double = {gt: 0 lt: 1}];
  int32 days = 4 [(buf.validate.field).int32 = {gte: 0 lte: 120}];
  string email = 5 [(buf.validate.field).string.email = true];
  string code = 6 [(buf.validate.field).string = {pattern: "^[A-Z]*$"}];
  string vat = 7 [(buf.validate.field).string = {pattern: "^[A-Z]{2}$"}];
  optional int32 limit = 8 [(buf.validate.field).int32.gt = 0];
  string note = 9 [(buf.validate.field).ignore = IGNORE_IF_ZERO_VALUE, (buf.validate.field).string.min_len = 3];
  int32 outside = 10 [(buf.validate.field).int32 = {gt: 10 lt: 5}];
  int32 beyond = 11 [(buf.validate.field).int32 = {gt: 10 lt: 20}];
  repeated string ids = 12 [(buf.validate.field).repeated.max_items = 3];
  string country = 13 [(buf.validate.field).string = {in: ["DE", "FR"]}];
  string size = 14 [(mcpwrite.v1.field).agent = {default: "\"M\""}, (buf.validate.field).string.min_len = 1];
  option (buf.validate.message).oneof = {fields: ["phone", "fax"]};
  string phone = 15 [(buf.validate.field).string.min_len = 5];
  string fax = 16 [(buf.validate.field).string.min_len = 5, (buf.validate.field).ignore = IGNORE_UNSPECIFIED];
  string sku = 17 [(buf.validate.field).cel = {id: "sku.set" message: "sku is required" expression: "this.size() > 0"}];
  int64 qty = 18 [(buf.validate.field).cel = {id: "qty.small" expression: "this <= 10 ? '' : 'at most 10'"}];
  repeated string lines = 19 [(buf.validate.field).cel = {id: "lines.some" expression: "size(this) > 0"}];
  string memo = 20 [(buf.validate.field).ignore = IGNORE_IF_ZERO_VALUE, (buf.validate.field).cel = {id: "memo.set" expression: "this != ''"}];
  optional string ref = 21 [(buf.validate.field).cel = {id: "ref.set" expression: "this != ''"}];
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
	var in struct {
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(doc.Services[0].Tools[0].InputSchema, &in); err != nil {
		t.Fatal(err)
	}
	// phone is in a message oneof (IGNORE_IF_ZERO_VALUE implied); fax sets
	// ignore itself, so its rule applies to the zero value.
	// A CEL rule is evaluated on the zero value as the request check does:
	// sku and lines fail there; qty's passes at 0; memo ignores its zero
	// value and ref has presence.
	want := []string{"tags", "labels", "discount", "email", "vat", "beyond", "country", "fax", "sku", "lines"}
	if !reflect.DeepEqual(in.Required, want) {
		t.Errorf("required = %q, want %q", in.Required, want)
	}
}

// A required_when field stays optional by design; a rule that fails on its
// zero value would refuse it whenever it is omitted, so the plugin refuses
// the combination and names the fix.
func TestRulesFailingOnZeroConflictWithRequiredWhen(t *testing.T) {
	cases := []struct{ field, want string }{
		{
			`string reason = 2 [(mcpwrite.v1.field).agent = {required_when: {field: "mode" equals: ["\"strict\""]}}, (buf.validate.field).string.min_len = 3];`,
			`bad.proto:16:3: message bad.v1.Req: field reason: (buf.validate.field).string.min_len 3 fails on the zero value, so the request check refuses the field whenever it is omitted, which required_when allows; add (buf.validate.field).ignore = IGNORE_IF_ZERO_VALUE or make the field optional`,
		},
		{
			`string code = 2 [(mcpwrite.v1.field).agent = {required_when: {field: "mode" equals: ["\"strict\""]}}, (buf.validate.field).cel = {id: "code.set" expression: "this != ''"}];`,
			`bad.proto:16:3: message bad.v1.Req: field code: (buf.validate.field).cel "code.set" fails on the zero value, so the request check refuses the field whenever it is omitted, which required_when allows; add (buf.validate.field).ignore = IGNORE_IF_ZERO_VALUE or make the field optional`,
		},
		{
			`repeated string reasons = 2 [(mcpwrite.v1.field).agent = {required_when: {field: "mode" equals: ["\"strict\""]}}, (buf.validate.field).repeated.min_items = 1];`,
			`bad.proto:16:3: message bad.v1.Req: field reasons: (buf.validate.field).repeated.min_items 1 fails on the zero value, so the request check refuses the field whenever it is omitted, which required_when allows; add (buf.validate.field).ignore = IGNORE_IF_ZERO_VALUE`,
		},
	}
	for _, tt := range cases {
		got, n := generate(t, `import "buf/validate/validate.proto";`+service+`
message Req {
  string mode = 1;
  `+tt.field+`
}
`, "")
		if got != tt.want || n != 0 {
			t.Errorf("error = %q (%d files)\nwant %q and no files", got, n, tt.want)
		}
	}
}

// Limits the portable subset cannot carry (64-bit ranges on decimal
// strings, Duration and Timestamp ranges, FieldMask paths) are stated in the
// field's description, with the values exactly as the rules give them.
func TestLimitsBeyondTheSubsetAreStatedInWords(t *testing.T) {
	src := `import "buf/validate/validate.proto";
import "google/protobuf/duration.proto";
import "google/protobuf/timestamp.proto";
import "google/protobuf/field_mask.proto";` + service + `
message Req {
  int64 big = 1 [(buf.validate.field).int64 = {gte: -9007199254740993 lte: 9223372036854775807}];
  google.protobuf.Duration ttl = 2 [(buf.validate.field).duration = {gte: {seconds: 1} lt: {seconds: 3600 nanos: 500000000}}];
  google.protobuf.Timestamp at = 3 [(buf.validate.field).timestamp = {gt_now: true}];
  google.protobuf.Timestamp since = 4 [(buf.validate.field).timestamp = {gte: {seconds: 1704067200}}];
  google.protobuf.FieldMask mask = 5 [(buf.validate.field).field_mask = {in: ["name", "title"]}];
  uint64 count = 6 [(buf.validate.field).uint64 = {gt: 18446744073709551610}];
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
	var in struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(doc.Services[0].Tools[0].InputSchema, &in); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"big":   "Must be at least -9007199254740993 and at most 9223372036854775807.",
		"ttl":   "Must be at least 1s and less than 3600.5s.",
		"at":    "Must be in the future.",
		"since": "Must be at or after 2024-01-01T00:00:00Z.",
		"mask":  "Paths must be among name, title.",
		"count": "Must be greater than 18446744073709551610.",
	}
	for name, w := range want {
		if got := in.Properties[name].Description; got != w {
			t.Errorf("%s description = %q, want %q", name, got, w)
		}
	}
}
