package gen_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// inputSchemaOf is the input schema of the named tool generated from src:
// each property as JSON (keys sorted) and the required list.
func inputSchemaOf(t *testing.T, src, tool string) (map[string]string, []string) {
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
				Properties map[string]any `json:"properties"`
				Required   []string       `json:"required"`
			}
			if err := json.Unmarshal(d.InputSchema, &in); err != nil {
				t.Fatal(err)
			}
			props := map[string]string{}
			for k, v := range in.Properties {
				b, _ := json.Marshal(v)
				props[k] = string(b)
			}
			return props, in.Required
		}
	}
	t.Fatalf("no tool %s", tool)
	return nil, nil
}

// bool.const is the schema's const; a const true on a field without
// presence fails on the zero value, so the field is required. bytes.len,
// min_len and max_len are the lengths of the base64 (the shortest, unpadded
// form of the fewest bytes; the padded form of the most), a pattern
// admitting exactly the encodings of those counts, and a sentence; on a
// repeated field they apply to each item.
func TestBoolConstAndByteCountsAreStated(t *testing.T) {
	src := `import "buf/validate/validate.proto";` + service + `
message Req {
  bool accept = 1 [(buf.validate.field).bool.const = true];
  optional bool archived = 2 [(buf.validate.field).bool.const = false];
  bytes print = 3 [(buf.validate.field).bytes.len = 4];
  optional bytes thumb = 4 [(buf.validate.field).bytes = {min_len: 3 max_len: 12}];
  bytes tag = 5 [(buf.validate.field).bytes.max_len = 2];
  repeated bytes keys = 6 [(buf.validate.field).repeated.items.bytes.min_len = 2];
  bytes blob = 7 [(buf.validate.field).bytes = {min_len: 3001 max_len: 6000}, (buf.validate.field).ignore = IGNORE_IF_ZERO_VALUE];
}`
	props, required := inputSchemaOf(t, src, "do")
	if got, want := strings.Join(required, ","), "accept,print"; got != want {
		t.Errorf("required = %s, want %s", got, want)
	}
	const std, url = `[A-Za-z0-9+/]`, `[A-Za-z0-9_-]`
	pattern := func(p string) string {
		b, _ := json.Marshal(strings.NewReplacer("S", std, "U", url).Replace(p))
		return string(b)
	}
	for name, want := range map[string]string{
		"accept":   `{"const":true,"type":"boolean"}`,
		"archived": `{"const":false,"type":"boolean"}`,
		"print":    `{"description":"Must be exactly 4 bytes (base64).","maxLength":8,"minLength":6,"pattern":` + pattern(`^(?:(?:S{4})S{2}(?:==)?|(?:U{4})U{2}(?:==)?)$`) + `,"type":"string"}`,
		"thumb":    `{"description":"Must be 3 to 12 bytes (base64).","maxLength":16,"minLength":4,"pattern":` + pattern(`^(?:(?:S{4}){1,4}|(?:S{4}){1,3}S{2}(?:==)?|(?:S{4}){1,3}S{3}=?|(?:U{4}){1,4}|(?:U{4}){1,3}U{2}(?:==)?|(?:U{4}){1,3}U{3}=?)$`) + `,"type":"string"}`,
		"tag":      `{"description":"Must be at most 2 bytes (base64).","maxLength":4,"pattern":` + pattern(`^(?:|S{2}(?:==)?|S{3}=?|U{2}(?:==)?|U{3}=?)$`) + `,"type":"string"}`,
		"keys":     `{"description":"Must be at least 2 bytes (base64).","items":{"minLength":3,"pattern":` + pattern(`^(?:(?:S{4})+|(?:S{4})+S{2}(?:==)?|(?:S{4})*S{3}=?|(?:U{4})+|(?:U{4})+U{2}(?:==)?|(?:U{4})*U{3}=?)$`) + `,"type":"string"},"type":"array"}`,
		// Counts past what RE2 repeats: the lengths and the words.
		"blob": `{"description":"Must be 3001 to 6000 bytes (base64).","maxLength":8000,"minLength":4002,"pattern":` + pattern(`^(?:(?:S{4})*(?:S{2}(?:==)?|S{3}=?)?|(?:U{4})*(?:U{2}(?:==)?|U{3}=?)?)$`) + `,"type":"string"}`,
	} {
		if props[name] != want {
			t.Errorf("%s = %s\nwant %s", name, props[name], want)
		}
	}
}

// An integer map key's pattern admits each key in its one decimal form, the
// form the decoder reads ("07", "+7" and "-0" are refused).
func TestIntegerMapKeyPatternsAdmitOneFormPerKey(t *testing.T) {
	src := service + `
message Req {
  map<int32, string> tiers = 1;
  map<uint64, string> counts = 2;
}`
	props, _ := inputSchemaOf(t, src, "do")
	for name, want := range map[string]string{
		"tiers":  `{"description":"Entries of {key, value}, each key at most once.","items":{"additionalProperties":false,"properties":{"key":{"pattern":"^(0|-?[1-9][0-9]*)$","type":"string"},"value":{"type":"string"}},"required":["key","value"],"type":"object"},"type":"array"}`,
		"counts": `{"description":"Entries of {key, value}, each key at most once.","items":{"additionalProperties":false,"properties":{"key":{"pattern":"^(0|[1-9][0-9]*)$","type":"string"},"value":{"type":"string"}},"required":["key","value"],"type":"object"},"type":"array"}`,
	} {
		if props[name] != want {
			t.Errorf("%s = %s\nwant %s", name, props[name], want)
		}
	}
}

// A float field's buf.validate numbers are stated as written (0.1, not the
// float32's exact 0.10000000149011612): an agent that sends 0.1, 0.7 or the
// const meets the schema, and the decoder, reading a float32, takes them.
func TestFloatRulesAreStatedAsWritten(t *testing.T) {
	src := `import "buf/validate/validate.proto";` + service + `
message Req {
  float a = 1 [(buf.validate.field).float.const = 0.1];
  float b = 2 [(buf.validate.field).float = {gte: 0.1, lte: 0.7}];
  float c = 3 [(buf.validate.field).float = {in: [0.1, 0.2], gt: 0.05, lt: 0.9}];
  double d = 4 [(buf.validate.field).double = {gte: 0.1, const: 0.30000001192092896}];
  repeated float e = 5 [(buf.validate.field).repeated.items.float = {not_in: [0.3]}];
}`
	props, _ := inputSchemaOf(t, src, "do")
	for name, want := range map[string]string{
		"a": `{"const":0.1,"description":"Must be 0.1.","type":"number"}`,
		"b": `{"maximum":0.7,"minimum":0.1,"type":"number"}`,
		"c": `{"description":"Must be one of 0.1, 0.2.","exclusiveMaximum":0.9,"exclusiveMinimum":0.05,"type":"number"}`,
		"d": `{"const":0.30000001192092896,"description":"Must be 0.30000001192092896.","minimum":0.1,"type":"number"}`,
		"e": `{"description":"Must not be any of 0.3.","items":{"type":"number"},"type":"array"}`,
	} {
		if props[name] != want {
			t.Errorf("%s = %s\nwant %s", name, props[name], want)
		}
	}
}

// An integer rule's values are stated in decimal digits, exactly: an agent
// sends an int64 as a string of digits, so "2e+06" would be refused, and
// 9007199254740993 is not the double 9.007199254740992e+15.
func TestIntegerRulesAreStatedInDigits(t *testing.T) {
	src := `import "buf/validate/validate.proto";` + service + `
message Req {
  int64 a = 1 [(buf.validate.field).int64.const = 9007199254740993];
  int32 d = 2 [(buf.validate.field).int32.const = 1000000];
  int64 e = 3 [(buf.validate.field).int64 = {in: [2000000, 3], not_in: [5000000]}];
  uint32 u = 4 [(buf.validate.field).uint32 = {not_in: [4000000000]}];
}`
	props, _ := inputSchemaOf(t, src, "do")
	for name, want := range map[string]string{
		"a": `{"description":"Must be 9007199254740993.","pattern":"^-?[0-9]+$","type":"string"}`,
		"d": `{"const":1000000,"description":"Must be 1000000.","type":"integer"}`,
		"e": `{"description":"Must be one of 2000000, 3. Must not be any of 5000000.","pattern":"^-?[0-9]+$","type":"string"}`,
		"u": `{"description":"Must not be any of 4000000000.","minimum":0,"type":"integer"}`,
	} {
		if props[name] != want {
			t.Errorf("%s = %s\nwant %s", name, props[name], want)
		}
	}
}
