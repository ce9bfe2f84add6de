package gen

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestVendorNotesNameWhatStrictModesChange(t *testing.T) {
	schema := `{"type":"object","additionalProperties":false,"required":["name","profile"],"properties":{
		"name":{"type":"string","minLength":1,"maxLength":200},
		"code":{"type":"string","pattern":"^[A-Z]+$"},
		"labels":{"type":"object","additionalProperties":{"type":"string"}},
		"profile":{"type":"object","additionalProperties":false,"required":["owner"],"properties":{
			"owner":{"type":"string"},
			"address":{"type":"object","additionalProperties":false,"properties":{"city":{"type":"string"}}}}}}}`
	want := []string{
		"tool t: openai-strict: optional properties must become required and nullable: code, labels, profile.address, profile.address.city",
		"tool t: openai-strict: open objects are not accepted: labels",
		"tool t: anthropic-strict: length, range and item bounds are not enforced while sampling (the server still checks them): name",
		"tool t: anthropic-strict: patterns are not enforced while sampling: code",
		"tool t: nova: objects nest 3 levels; Nova advises at most 2",
	}
	if diff := cmp.Diff(want, VendorNotes("t", []byte(schema))); diff != "" {
		t.Fatalf("notes (-want +got):\n%s", diff)
	}
	if got := VendorNotes("flat", []byte(`{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"type":"string"}}}`)); got != nil {
		t.Fatalf("a flat, all-required schema needs no note, got %v", got)
	}
}
