package archimate_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
)

// Agents name elements the way people do ("Billing Service" -> lookup ID):
// source_id and target_id take an element's id or its name, and the domain
// receives ids.
func TestRelationshipEndsMayBeNamed(t *testing.T) {
	cs, repo := session(t, devRC)
	engine := createdID(t, mustOK(t, cs, "createElement", `{"type":"ApplicationComponent","name":"Billing Engine"}`))
	service := createdID(t, mustOK(t, cs, "createElement", `{"type":"ApplicationService","name":"Billing Service"}`))

	out := mustOK(t, cs, "createRelationship", `{"type":"Realization","source_id":"billing engine","target_id":"Billing Service","description":"The engine realizes the service"}`)
	rel := out["relationship"].(map[string]any)
	if rel["source_id"] != engine || rel["target_id"] != service || rel["type"] != "Realization" {
		t.Fatalf("relationship %v, want %s -> %s", rel, engine, service)
	}
	req := repo.Received()[2].(*archimatev1.CreateRelationshipRequest)
	if req.GetSourceId() != engine || req.GetTargetId() != service ||
		req.GetSourceType() != archimatev1.ElementType_ELEMENT_TYPE_APPLICATION_COMPONENT || req.GetTargetType() != archimatev1.ElementType_ELEMENT_TYPE_APPLICATION_SERVICE {
		t.Fatalf("domain received %v", req)
	}
	// An id still works as before.
	out = mustOK(t, cs, "createRelationship", `{"type":"Serving","source_id":"`+service+`","target_id":"`+engine+`","description":"x"}`)
	if rel := out["relationship"].(map[string]any); rel["source_id"] != service || rel["target_id"] != engine {
		t.Fatalf("by id: %v", rel)
	}
}

// A name that could mean two elements is never guessed: the answer lists
// both, and nothing reaches the domain. Every reference problem of the call
// is reported at once.
func TestAmbiguousElementNameNeedsDisambiguation(t *testing.T) {
	cs, repo := session(t, devRC)
	svc := createdID(t, mustOK(t, cs, "createElement", `{"type":"ApplicationService","name":"Billing Service"}`))
	comp := createdID(t, mustOK(t, cs, "createElement", `{"type":"ApplicationComponent","name":"BillingService"}`))
	first, second := map[string]any{"id": svc, "name": "Billing Service", "type": "ApplicationService"}, map[string]any{"id": comp, "name": "BillingService", "type": "ApplicationComponent"}
	if comp < svc {
		first, second = second, first
	}

	out, isErr := call(t, cs, "createRelationship", `{"type":"Serving","source_id":"billing-service","target_id":"Biling Servce"}`)
	if !isErr {
		t.Fatalf("ambiguous name accepted: %v", out)
	}
	ambiguous := map[string]any{
		"code": "NEEDS_DISAMBIGUATION", "message": `"billing…" names 2 elements; send the id of the one you mean`, "field": "source_id",
		"suggestions": map[string]any{
			"valid_values": []any{first["id"], second["id"]},
			"hint":         "ask the user which element they mean if the candidates do not tell",
			"candidates":   []any{first, second},
		},
	}
	unknown := map[string]any{
		"code": "ELEMENT_NOT_FOUND", "message": "Element 'Biling Servce' not found", "field": "target_id",
		"suggestions": map[string]any{
			"hint":             `Use an id returned by createElement; these elements have a name or id close to "Biling Servce"`,
			"similar_elements": []any{map[string]any{"id": svc, "name": "Billing Service", "type": "ApplicationService"}, map[string]any{"id": comp, "name": "BillingService", "type": "ApplicationComponent"}},
		},
	}
	if diff := cmp.Diff(map[string]any{"success": false, "error": ambiguous, "errors": []any{ambiguous, unknown}}, out); diff != "" {
		t.Fatalf("answer (-want +got):\n%s", diff)
	}
	if n := len(repo.Received()); n != 2 {
		t.Fatalf("domain received %d requests, want only the 2 creates", n)
	}
	// A dry run answers the same before anything is written.
	out, isErr = call(t, cs, "validateWrite", `{"operation":"createRelationship","payload":{"type":"Serving","source_id":"billing-service","target_id":"Biling Servce","description":"x"}}`)
	if diff := cmp.Diff(map[string]any{"success": true, "valid": false, "errors": []any{ambiguous, unknown}, "warnings": []any{}, "suggestions": []any{}}, out); isErr || diff != "" {
		t.Fatalf("validateWrite isError=%v (-want +got):\n%s", isErr, diff)
	}
	// The exact name is no longer ambiguous, and either id settles it.
	out = mustOK(t, cs, "createRelationship", `{"type":"Realization","source_id":"BillingService","target_id":"`+svc+`","description":"x"}`)
	if rel := out["relationship"].(map[string]any); rel["source_id"] != comp || rel["target_id"] != svc {
		t.Fatalf("exact name: %v", rel)
	}
}

// The input schema says that a name is welcome, and getWriteSchema lists the
// reference fields.
func TestReferenceFieldsAreDescribed(t *testing.T) {
	cs, _ := session(t, devRC)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]any{}
	for _, tool := range res.Tools {
		if tool.Name == "createRelationship" {
			props := tool.InputSchema.(map[string]any)["properties"].(map[string]any)
			got["source_id"], got["target_id"] = props["source_id"], props["target_id"]
		}
	}
	want := map[string]any{
		"source_id": map[string]any{"type": "string", "description": "Source element. The element's id, or its name when no other element has it."},
		"target_id": map[string]any{"type": "string", "description": "Target element. The element's id, or its name when no other element has it."},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("tools/list (-want +got):\n%s", diff)
	}
	doc, isErr := call(t, cs, "getWriteSchema", `{"operation":"createRelationship"}`)
	if isErr {
		t.Fatalf("getWriteSchema: %v", doc)
	}
	refs, _ := json.Marshal(doc["references"])
	if string(refs) != `[{"field":"source_id","kind":"element"},{"field":"target_id","kind":"element"}]` {
		t.Fatalf("references %s", refs)
	}
}

// mustOK calls a tool that must succeed.
func mustOK(t *testing.T, cs *mcp.ClientSession, tool, args string) map[string]any {
	t.Helper()
	out, isErr := call(t, cs, tool, args)
	if isErr {
		t.Fatalf("%s %s: %v", tool, args, out)
	}
	return out
}
