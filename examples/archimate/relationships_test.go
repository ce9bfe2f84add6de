package archimate_test

import (
	"strings"
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

// An id that matches nothing the tenant has, by id or by name, is answered
// without unrelated elements: nothing similar is offered (seed §5.2 shape,
// similarity instead of recency).
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
			"hint": `Use an id returned by createElement; no element in your model has a name or id close to "elem-123"`,
		},
	}
	if diff := cmp.Diff(want, out["error"]); diff != "" {
		t.Fatalf("error (-want +got):\n%s", diff)
	}
}

// An agent that sends a name no element has, or mistypes or truncates an
// id, gets the elements whose name or id is like what it sent, best first
// (an exact name resolves: refs_test.go). Ids that only share their
// creation time with what was sent are not offered.
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
	shipping := ids["Shipping"]
	typo := shipping[:len(shipping)-1] + string("0123456789abcdef"[(strings.IndexByte("0123456789abcdef", shipping[len(shipping)-1])+1)%16])
	for _, tt := range []struct {
		target  string
		similar []any
	}{
		{"OrderServce", []any{el("OrderService"), el("OrderProcessor")}},
		{"processor", []any{el("OrderProcessor")}},
		{"Shiping", []any{el("Shipping")}},
		{typo, []any{el("Shipping")}},
		{strings.ToUpper(shipping[:len(shipping)-2]), []any{el("Shipping")}},
	} {
		out, isErr := call(t, cs, "createRelationship", `{"type":"Serving","source_id":"`+ids["Billing"]+`","target_id":"`+tt.target+`"}`)
		if !isErr {
			t.Fatalf("%s accepted: %v", tt.target, out)
		}
		want := map[string]any{
			"code": "ELEMENT_NOT_FOUND", "message": "Element '" + tt.target + "' not found", "field": "target_id",
			"suggestions": map[string]any{
				"hint":             `Use an id returned by createElement; these elements have a name or id close to "` + tt.target + `"`,
				"similar_elements": tt.similar,
			},
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

// An invalid element type answers as seed §5.2 shows: INVALID_ELEMENT_TYPE
// with did_you_mean, the types of the layer the agent most likely meant
// (valid_types_for_context) and that layer's hint; the full list stays in
// valid_values. validateWrite answers the same entry.
func TestInvalidTypeListsTheTypesValidInContext(t *testing.T) {
	cs, repo := session(t, devRC)
	want := map[string]any{
		"code":    "INVALID_ELEMENT_TYPE",
		"message": "Element type 'AppComponent' is not valid",
		"field":   "type",
		"suggestions": map[string]any{
			"did_you_mean":            []any{"ApplicationComponent", "ApplicationService", "ApplicationInterface"},
			"valid_types_for_context": []any{"ApplicationComponent", "ApplicationService", "ApplicationInterface", "DataObject"},
			"hint":                    "Application layer types start with 'Application' or 'Data'",
			"valid_values": []any{"Capability", "Resource", "CourseOfAction", "ValueStream", "BusinessProcess", "BusinessService", "BusinessActor",
				"ApplicationComponent", "ApplicationService", "ApplicationInterface", "DataObject", "Node", "Device", "SystemSoftware"},
		},
	}
	out, isErr := call(t, cs, "createElement", `{"type":"AppComponent","name":"OrderService"}`)
	if diff := cmp.Diff(map[string]any{"success": false, "error": want, "errors": []any{want}}, out); !isErr || diff != "" {
		t.Fatalf("isError=%v (-want +got):\n%s", isErr, diff)
	}
	out, isErr = call(t, cs, "validateWrite", `{"operation":"createElement","payload":{"type":"AppComponent","name":"OrderService","description":"x"}}`)
	if diff := cmp.Diff([]any{want}, out["errors"]); isErr || out["valid"] != false || diff != "" {
		t.Fatalf("validateWrite isError=%v valid=%v (-want +got):\n%s", isErr, out["valid"], diff)
	}
	// Another layer's guess lists that layer; nothing plausible lists no context.
	out, _ = call(t, cs, "createElement", `{"type":"Capabilities","name":"X"}`)
	sg := out["error"].(map[string]any)["suggestions"].(map[string]any)
	if diff := cmp.Diff([]any{"Capability", "Resource", "CourseOfAction", "ValueStream"}, sg["valid_types_for_context"]); diff != "" ||
		sg["hint"] != "Strategy layer types are Capability, Resource, CourseOfAction and ValueStream" {
		t.Fatalf("strategy context %v (-want +got):\n%s", sg, diff)
	}
	out, _ = call(t, cs, "createElement", `{"type":"Banana","name":"X"}`)
	e := out["error"].(map[string]any)
	if _, has := e["suggestions"].(map[string]any)["valid_types_for_context"]; has || e["code"] != "INVALID_ELEMENT_TYPE" || e["message"] != "Element type 'Banana' is not valid" {
		t.Fatalf("no plausible type: %v", e)
	}
	// The discovery tool's filter is an element type too.
	out, _ = call(t, cs, "getRelationshipTypes", `{"source_type":"AppService"}`)
	e = out["error"].(map[string]any)
	if e["code"] != "INVALID_ELEMENT_TYPE" || e["field"] != "source_type" || !cmp.Equal(e["suggestions"].(map[string]any)["valid_types_for_context"], want["suggestions"].(map[string]any)["valid_types_for_context"]) {
		t.Fatalf("getRelationshipTypes: %v", e)
	}
	if n := len(repo.Received()); n != 0 {
		t.Fatalf("domain received %d requests", n)
	}
}

// A relationship type that does not exist lists, as valid_types_for_context,
// the relationship types valid between the elements source_id and target_id
// name (by id or by name).
func TestInvalidRelationshipTypeListsTheTypesValidBetweenItsEnds(t *testing.T) {
	cs, _ := session(t, devRC)
	capID := createdID(t, mustOK(t, cs, "createElement", `{"type":"Capability","name":"Fulfillment"}`))
	mustOK(t, cs, "createElement", `{"type":"ApplicationComponent","name":"OrderService"}`)
	want := map[string]any{
		"code":    "INVALID_RELATIONSHIP_TYPE",
		"message": "Relationship type 'Realisation' is not valid",
		"field":   "type",
		"suggestions": map[string]any{
			"did_you_mean":            []any{"Realization"},
			"valid_types_for_context": []any{"Serving", "Assignment"},
			"hint":                    "From Capability to ApplicationComponent the valid relationship types are Serving or Assignment",
			"valid_values":            []any{"Realization", "Serving", "Composition", "Aggregation", "Assignment", "Flow", "Triggering"},
		},
	}
	out, isErr := call(t, cs, "createRelationship", `{"type":"Realisation","source_id":"`+capID+`","target_id":"OrderService"}`)
	if diff := cmp.Diff(want, out["error"]); !isErr || diff != "" {
		t.Fatalf("isError=%v (-want +got):\n%s", isErr, diff)
	}
	// Unknown ends: no context to offer, the enum's own hint.
	out, _ = call(t, cs, "createRelationship", `{"type":"Realisation","source_id":"`+capID+`","target_id":"nothing"}`)
	sg := out["error"].(map[string]any)["suggestions"].(map[string]any)
	if _, has := sg["valid_types_for_context"]; has || sg["hint"] != "Realization goes from implementation to specification (e.g., ApplicationComponent realizes ApplicationService)" {
		t.Fatalf("unknown end: %v", sg)
	}
	// Ends no relationship type connects say so.
	mustOK(t, cs, "createElement", `{"type":"Device","name":"Scanner"}`)
	out, _ = call(t, cs, "createRelationship", `{"type":"Uses2","source_id":"Scanner","target_id":"Fulfillment"}`)
	sg = out["error"].(map[string]any)["suggestions"].(map[string]any)
	if diff := cmp.Diff([]any{}, sg["valid_types_for_context"]); diff != "" || sg["hint"] != "No relationship type may go from Device to Capability; getRelationshipTypes lists the valid pairs" {
		t.Fatalf("no pair: %v", sg)
	}
}
