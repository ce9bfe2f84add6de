package archimate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
)

// The schema asks for maps as lists of {key, value} entries (what strict
// tool-calling modes can express); the decoder takes that form and, for
// clients written against the object form, the object.
func TestPropertiesAsEntriesOrObject(t *testing.T) {
	for _, tt := range []struct{ name, props string }{
		{"entries", `[{"key":"team","value":"payments"},{"key":"tier","value":"1"}]`},
		{"object", `{"team":"payments","tier":"1"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cs, repo := session(t, devRC)
			if out, isErr := call(t, cs, "createElement", `{"type":"Node","name":"db-1","description":"d","properties":`+tt.props+`}`); isErr {
				t.Fatalf("create: %v", out)
			}
			got := repo.Received()[0].(*archimatev1.CreateElementRequest).GetProperties()
			if diff := cmp.Diff(map[string]string{"team": "payments", "tier": "1"}, got); diff != "" {
				t.Fatalf("properties (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPropertyEntriesAreCheckedLikeKeys(t *testing.T) {
	cs, repo := session(t, devRC)
	out, isErr := call(t, cs, "createElement", `{"type":"Node","name":"db-1","properties":[{"key":"team","value":"a"},{"key":"team","value":"b"},{"key":1,"value":"x"},{"value":"y"},{"key":"k","value":"v","extra":true}]}`)
	if !isErr {
		t.Fatalf("want an error, got %v", out)
	}
	want := []string{
		"VALIDATION_ERROR@properties[1].key",
		"INVALID_TYPE@properties[2].key",
		"MISSING_REQUIRED_FIELD@properties[3].key",
		"UNKNOWN_FIELD@properties[4].extra",
	}
	if diff := cmp.Diff(want, errorCodes(out)); diff != "" {
		t.Fatalf("errors (-want +got):\n%s", diff)
	}
	if len(repo.Received()) != 0 {
		t.Fatal("the handler ran")
	}
}

func errorCodes(out map[string]any) []string {
	var got []string
	for _, e := range out["errors"].([]any) {
		m := e.(map[string]any)
		f, _ := m["field"].(string)
		got = append(got, m["code"].(string)+"@"+f)
	}
	return got
}
