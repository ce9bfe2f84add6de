package gen_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

const zeroService = `
service S {
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE}; }
}
message Req { string name = 1; }
message Summary {
  bool required = 1 [(mcpwrite.v1.field).emit_zero_value = true];
  string type = 2;
}
message Resp {
  string id = 1;
  bool deduplicated = 2 [(mcpwrite.v1.field).emit_zero_value = true];
  map<string, Summary> fields = 3;
}
`

// emit_zero_value fields are listed in the document for the runtime, and
// the output schema states them: required inside a nested object, "Always
// present" at the top, where an error answer carries none of them.
func TestEmitZeroValueFieldsAreListedAndStated(t *testing.T) {
	resp, err := plugintest.Run(request(t, zeroService, ""))
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
	svc := doc.Services[0]
	if want := []string{"bad.v1.Resp.deduplicated", "bad.v1.Summary.required"}; svc.ZeroValues || !reflect.DeepEqual(svc.ZeroValueFields, want) {
		t.Errorf("zero values %v, fields %q; want false and %q", svc.ZeroValues, svc.ZeroValueFields, want)
	}
	var out struct {
		Required   []string `json:"required"`
		Properties struct {
			Deduplicated struct {
				Description string `json:"description"`
			} `json:"deduplicated"`
			Fields struct {
				AdditionalProperties struct {
					Required []string `json:"required"`
				} `json:"additionalProperties"`
			} `json:"fields"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(svc.Tools[0].OutputSchema, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out.Required, []string{"success"}) || out.Properties.Deduplicated.Description != "Always present when the call succeeds." ||
		!reflect.DeepEqual(out.Properties.Fields.AdditionalProperties.Required, []string{"required"}) {
		t.Errorf("output schema: %s", svc.Tools[0].OutputSchema)
	}
}

// A field with presence has no zero value to write.
func TestEmitZeroValueOnAFieldWithPresenceIsRefused(t *testing.T) {
	got, n := generate(t, `
service S {
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE}; }
}
message Req { string name = 1; }
message Resp { optional int32 total = 1 [(mcpwrite.v1.field).emit_zero_value = true]; }
`, "")
	want := "bad.proto:13:16: message bad.v1.Resp: field total: emit_zero_value applies to fields without presence (a scalar that is not optional, a list, a map); this field is written whenever it is set, so drop the option"
	if got != want || n != 0 {
		t.Errorf("error = %q (%d files)\nwant %q", got, n, want)
	}
}
