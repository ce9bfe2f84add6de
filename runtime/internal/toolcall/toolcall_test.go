package toolcall

import (
	"encoding/json"
	"testing"
)

// WireSchema drops only insignificant whitespace: encoding/json writes the
// compact schema exactly as it writes the indented one (HTML characters
// escaped the same way), and invalid JSON is returned unchanged.
func TestWireSchema(t *testing.T) {
	indented := json.RawMessage("{\n  \"type\": \"object\",\n  \"properties\": {\n    \"name\": {\n      \"type\": \"string\",\n      \"description\": \"a <b> & \\\"c\\\" \\u00e9 \u00e9\"\n    },\n    \"tags\": { \"type\": \"array\", \"items\": [ 1, 2.50, true, null ] }\n  }\n}\n")
	got := WireSchema(indented)
	want := `{"type":"object","properties":{"name":{"type":"string","description":"a <b> & \"c\" \u00e9 ` + "\u00e9" + `"},"tags":{"type":"array","items":[1,2.50,true,null]}}}`
	if string(got) != want {
		t.Fatalf("WireSchema = %s\nwant %s", got, want)
	}
	type tool struct {
		InputSchema any `json:"inputSchema"`
	}
	a, err := json.Marshal(tool{indented})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(tool{got})
	if err != nil {
		t.Fatal(err)
	}
	if string(a) != string(b) {
		t.Fatalf("on the wire:\n%s\nagainst\n%s", b, a)
	}
	bad := json.RawMessage(`{"type": `)
	if got := WireSchema(bad); string(got) != string(bad) {
		t.Fatalf("WireSchema(invalid) = %q, want it unchanged", got)
	}
}
