package gen_test

import "testing"

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
