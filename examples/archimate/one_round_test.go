package archimate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// One round of repair past the references: when an argument does not
// decode, the pair check and the value resolvers still run on what did,
// and what they refuse is answered with the decode problem; nothing
// reaches the domain's write.
func TestLaterStageProblemsJoinDecodeProblems(t *testing.T) {
	cs, repo := session(t, devRC)
	capOut, _ := call(t, cs, "createElement", `{"type":"Capability","name":"Fulfillment"}`)
	compOut, _ := call(t, cs, "createElement", `{"type":"ApplicationComponent","name":"OrderService"}`)
	capID, compID := createdID(t, capOut), createdID(t, compOut)
	nameType := map[string]any{"code": "INVALID_TYPE", "field": "name", "message": "expected string, got number"}
	tests := []struct {
		name, tool, args string
		want             []any
	}{
		{
			"an invalid pair with a decode problem", "createRelationship",
			`{"type":"Realization","source_id":"` + capID + `","target_id":"` + compID + `","name":7}`,
			[]any{nameType, map[string]any{
				"code": "INVALID_RELATIONSHIP", "field": "type", "message": "Cannot create 'Realization' from Capability to ApplicationComponent",
				"suggestions": map[string]any{
					"hint":                "Realization goes from implementation to specification (e.g., ApplicationComponent realizes ApplicationService)",
					"valid_relationships": []any{"Serving", "Assignment"},
				},
			}},
		},
		{
			"an end in error: the pair check waits", "createRelationship",
			`{"type":"Realization","source_id":"` + capID + `","target_id":7}`,
			[]any{map[string]any{"code": "INVALID_TYPE", "field": "target_id", "message": "expected string, got number"}},
		},
		{
			"an id the version resolver does not find, with a decode problem", "updateElement",
			`{"id":"` + compID[:len(compID)-1] + `","name":7}`,
			[]any{nameType, map[string]any{
				"code": "ELEMENT_NOT_FOUND", "field": "id", "message": "Element '" + compID[:len(compID)-1] + "' not found",
				"suggestions": map[string]any{
					"hint":             `Use an id returned by createElement; these elements have a name or id close to "` + compID[:len(compID)-1] + `"`,
					"similar_elements": []any{map[string]any{"id": compID, "name": "OrderService", "type": "ApplicationComponent"}},
				},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, isErr := call(t, cs, tt.tool, tt.args)
			if !isErr {
				t.Fatalf("accepted: %v", out)
			}
			if diff := cmp.Diff(tt.want, out["errors"]); diff != "" {
				t.Fatalf("errors (-want +got):\n%s", diff)
			}
		})
	}
	if n := len(repo.Received()); n != 2 {
		t.Fatalf("domain received %d requests, want only the 2 creates", n)
	}
}
