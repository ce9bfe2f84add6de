package gen

import (
	"encoding/json"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// marshalDoc writes each service's schemadoc.Version, computed on
// json.Marshal's HTML-escaped bytes, and the document mustJSON writes of
// the versioned services, also where strings hold <, >, &, U+2028 and
// escapes.
func TestMarshalDocVersionsAsSchemadoc(t *testing.T) {
	build := func() schemadoc.Document {
		return schemadoc.Document{Source: "a/<b>&c.proto", Services: []schemadoc.Service{
			{Name: "a.S<1>", ValidateTool: "validate_s", Tools: []schemadoc.Tool{{
				Name: "create_x", Method: "a.S.CreateX", Description: "Makes <x> & y\u2028 \"q\" \\u003c",
				InputSchema: json.RawMessage(`{"type":"object","description":"<i>&amp;\u2029","properties":{}}`),
			}}},
			{Name: "a.Empty", Tools: []schemadoc.Tool{}},
			{Name: "a.T", EnumOutput: "ALIAS"},
		}}
	}
	doc := build()
	got := marshalDoc(&doc)

	want := build()
	for i := range want.Services {
		want.Services[i].SchemaVersion = schemadoc.Version(want.Services[i])
		if doc.Services[i].SchemaVersion != want.Services[i].SchemaVersion {
			t.Errorf("service %d: SchemaVersion %q, schemadoc.Version %q", i, doc.Services[i].SchemaVersion, want.Services[i].SchemaVersion)
		}
	}
	if wantRaw := append(indentCompactJSONCap(mustJSON(want), 1), '\n'); string(got) != string(wantRaw) {
		t.Errorf("marshalDoc wrote\n%s\nwant\n%s", got, wantRaw)
	}
}
