package archimate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
)

func createdID(t *testing.T, out map[string]any) string {
	t.Helper()
	for _, k := range []string{"element", "relationship"} {
		if e, ok := out[k].(map[string]any); ok {
			return e["id"].(string)
		}
	}
	t.Fatalf("no entity in %v", out)
	return ""
}

func TestInvalidRelationshipPairIsRefusedWithAlternatives(t *testing.T) {
	cs, repo := session(t, devRC)
	capOut, _ := call(t, cs, "createElement", `{"type":"Capability","name":"Fulfillment"}`)
	compOut, _ := call(t, cs, "createElement", `{"type":"ApplicationComponent","name":"OrderService"}`)
	capID, compID := createdID(t, capOut), createdID(t, compOut)

	out, isErr := call(t, cs, "createRelationship", `{"type":"Realization","source_id":"`+capID+`","target_id":"`+compID+`"}`)
	if !isErr {
		t.Fatalf("invalid pair accepted: %v", out)
	}
	want := map[string]any{
		"code":    "INVALID_RELATIONSHIP",
		"message": "Cannot create 'Realization' from Capability to ApplicationComponent",
		"field":   "type",
		"suggestions": map[string]any{
			"hint":                "Realization goes from implementation to specification (e.g., ApplicationComponent realizes ApplicationService)",
			"valid_relationships": []any{"Serving", "Assignment"},
		},
	}
	if diff := cmp.Diff(want, out["error"]); diff != "" {
		t.Fatalf("error (-want +got):\n%s", diff)
	}
	if n := len(repo.Received()); n != 2 {
		t.Fatalf("domain received %d requests, want only the 2 creates", n)
	}
	out, isErr = call(t, cs, "createRelationship", `{"type":"Serving","source_id":"`+capID+`","target_id":"`+compID+`"}`)
	if isErr {
		t.Fatalf("valid pair refused: %v", out)
	}
	req := repo.Received()[2].(*archimatev1.CreateRelationshipRequest)
	if req.GetSourceType() != archimatev1.ElementType_ELEMENT_TYPE_CAPABILITY || req.GetTargetType() != archimatev1.ElementType_ELEMENT_TYPE_APPLICATION_COMPONENT {
		t.Fatalf("resolved types = %v -> %v", req.GetSourceType(), req.GetTargetType())
	}
}

func TestRelationshipToAMissingElementNamesIt(t *testing.T) {
	cs, _ := session(t, devRC)
	compOut, _ := call(t, cs, "createElement", `{"type":"ApplicationComponent","name":"OrderService"}`)
	compID := createdID(t, compOut)
	out, isErr := call(t, cs, "createRelationship", `{"type":"Serving","source_id":"`+compID+`","target_id":"elem-123"}`)
	if !isErr {
		t.Fatalf("missing target accepted: %v", out)
	}
	want := map[string]any{
		"code": "ELEMENT_NOT_FOUND", "message": "Element 'elem-123' not found", "field": "target_id",
		"suggestions": map[string]any{
			"hint":             `Use an id returned by createElement; nothing in your model is named like "elem-123", so these are the most recent elements`,
			"similar_elements": []any{map[string]any{"id": compID, "name": "OrderService", "type": "ApplicationComponent"}},
		},
	}
	if diff := cmp.Diff(want, out["error"]); diff != "" {
		t.Fatalf("error (-want +got):\n%s", diff)
	}
}

// An agent that sends a name no element has gets the elements named like
// it, best first (an exact name resolves: refs_test.go).
func TestMissingElementSuggestsElementsNamedLikeIt(t *testing.T) {
	cs, _ := session(t, devRC)
	ids := map[string]string{}
	for _, n := range []string{"OrderService", "OrderProcessor", "Billing", "Shipping"} {
		out, _ := call(t, cs, "createElement", `{"type":"ApplicationComponent","name":"`+n+`"}`)
		ids[n] = createdID(t, out)
	}
	el := func(n string) map[string]any {
		return map[string]any{"id": ids[n], "name": n, "type": "ApplicationComponent"}
	}
	for _, tt := range []struct {
		target, hint string
		similar      []any
	}{
		{"OrderServce", `Use an id returned by createElement; the similar elements have names close to "OrderServce"`, []any{el("OrderService"), el("OrderProcessor")}},
	} {
		out, isErr := call(t, cs, "createRelationship", `{"type":"Serving","source_id":"`+ids["Billing"]+`","target_id":"`+tt.target+`"}`)
		if !isErr {
			t.Fatalf("%s accepted: %v", tt.target, out)
		}
		want := map[string]any{
			"code": "ELEMENT_NOT_FOUND", "message": "Element '" + tt.target + "' not found", "field": "target_id",
			"suggestions": map[string]any{"hint": tt.hint, "similar_elements": tt.similar},
		}
		if diff := cmp.Diff(want, out["error"]); diff != "" {
			t.Fatalf("%s: error (-want +got):\n%s", tt.target, diff)
		}
	}
}

func TestRelationshipTypesDiscoveryFiltersByPair(t *testing.T) {
	cs, _ := session(t, devRC)
	out, isErr := call(t, cs, "getRelationshipTypes", `{"source_type":"Capability","target_type":"ApplicationComponent"}`)
	if isErr {
		t.Fatalf("isError: %v", out)
	}
	want := []any{
		map[string]any{"value": "Serving", "description": "Source serves target", "valid_pairs": []any{map[string]any{"source": "Capability", "target": "ApplicationComponent"}}},
		map[string]any{"value": "Assignment", "description": "Source is assigned to target", "valid_pairs": []any{map[string]any{"source": "Capability", "target": "ApplicationComponent"}}},
	}
	if diff := cmp.Diff(want, out["values"]); diff != "" {
		t.Fatalf("values (-want +got):\n%s", diff)
	}
	out, isErr = call(t, cs, "getRelationshipTypes", `{"source_type":"AppComponent"}`)
	if !isErr {
		t.Fatalf("unknown source type accepted: %v", out)
	}
	e := out["error"].(map[string]any)
	if e["field"] != "source_type" || e["suggestions"].(map[string]any)["did_you_mean"].([]any)[0] != "ApplicationComponent" {
		t.Fatalf("error = %v", e)
	}
}

func TestRequestScopedIDSurvivesLostCaches(t *testing.T) {
	ids := make([]string, 2)
	for i := range ids {
		// A fresh server each time: every idempotency cache is gone.
		cs, _ := session(t, devRC)
		a, _ := call(t, cs, "createElement", `{"type":"ApplicationComponent","name":"A"}`)
		b, _ := call(t, cs, "createElement", `{"type":"ApplicationService","name":"B"}`)
		out, isErr := call(t, cs, "createRelationship", `{"type":"Realization","source_id":"`+createdID(t, a)+`","target_id":"`+createdID(t, b)+`","client_request_id":"rel-key-1"}`)
		if isErr {
			t.Fatalf("isError: %v", out)
		}
		ids[i] = createdID(t, out)
	}
	if ids[0] != ids[1] || len(ids[0]) != len("rel-")+36 || ids[0][:4] != "rel-" {
		t.Fatalf("request-scoped ids %q and %q must be equal, prefixed UUIDs", ids[0], ids[1])
	}
	cs, _ := session(t, runtime2RC)
	a, _ := call(t, cs, "createElement", `{"type":"ApplicationComponent","name":"A"}`)
	b, _ := call(t, cs, "createElement", `{"type":"ApplicationService","name":"B"}`)
	out, _ := call(t, cs, "createRelationship", `{"type":"Realization","source_id":"`+createdID(t, a)+`","target_id":"`+createdID(t, b)+`","client_request_id":"rel-key-1"}`)
	if createdID(t, out) == ids[0] {
		t.Fatalf("another tenant's request-scoped id collides: %s", ids[0])
	}
}

func TestEveryMissingReferenceIsReportedAtOnce(t *testing.T) {
	cs, repo := session(t, devRC)
	out, isErr := call(t, cs, "createRelationship", `{"type":"Serving","source_id":"elem-1","target_id":"elem-2"}`)
	if !isErr {
		t.Fatalf("missing elements accepted: %v", out)
	}
	var got []string
	for _, e := range out["errors"].([]any) {
		m := e.(map[string]any)
		got = append(got, m["code"].(string)+" "+m["field"].(string)+": "+m["message"].(string))
	}
	want := []string{
		"ELEMENT_NOT_FOUND source_id: Element 'elem-1' not found",
		"ELEMENT_NOT_FOUND target_id: Element 'elem-2' not found",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("errors (-want +got):\n%s", diff)
	}
	if len(repo.Received()) != 0 {
		t.Fatal("the domain received a request with unresolved references")
	}
}

// An invalid type answers, beside did-you-mean, the types of the layer the
// agent most likely meant (suggestions.valid_types_for_context).
func TestInvalidTypeListsTheTypesValidInContext(t *testing.T) {
	cs, _ := session(t, devRC)
	out, isErr := call(t, cs, "createElement", `{"type":"AppComponent","name":"X"}`)
	if !isErr {
		t.Fatalf("accepted: %v", out)
	}
	sg := out["error"].(map[string]any)["suggestions"].(map[string]any)
	want := []any{"ApplicationComponent", "ApplicationService", "ApplicationInterface", "DataObject"}
	if diff := cmp.Diff(want, sg["valid_types_for_context"]); diff != "" || sg["did_you_mean"].([]any)[0] != "ApplicationComponent" {
		t.Fatalf("suggestions %v (-want +got):\n%s", sg, diff)
	}
}
