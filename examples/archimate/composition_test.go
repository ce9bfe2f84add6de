package archimate_test

import (
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// Seed §4.1: parent_id is the "Parent element ID for composition
// relationship". createElement with a parent makes the Composition from
// the parent to the new element, a relationship like any other: deleting
// the parent names it among what is lost, refuses without cascade, and
// removes it with cascade.
func TestParentIDComposesTheNewElementIntoItsParent(t *testing.T) {
	repo := domain.New()
	s, err := server.New(repo, runtime.WithRequestContextFunc(runtime.StaticRequestContext(devRC)))
	if err != nil {
		t.Fatal(err)
	}
	cs := mcptest.Connect(t, s, mcptest.Options{})
	parentOut, _ := call(t, cs, "createElement", `{"type":"ApplicationComponent","name":"OrderAPI"}`)
	parent := createdID(t, parentOut)
	childOut, isErr := call(t, cs, "createElement", `{"type":"ApplicationComponent","name":"OrderAPI Auth","parent_id":"`+parent+`"}`)
	if isErr {
		t.Fatalf("create with parent_id: %v", childOut)
	}
	child := createdID(t, childOut)
	rel, ok := repo.Relationship(devRC.TenantID, child+"-composition")
	if !ok || rel.GetType() != archimatev1.RelationshipType_RELATIONSHIP_TYPE_COMPOSITION || rel.GetSourceId() != parent || rel.GetTargetId() != child {
		t.Fatalf("composition = %v (found %v), want Composition %s -> %s", rel, ok, parent, child)
	}

	out, isErr := call(t, cs, "deleteElement", `{"id":"`+parent+`","cascade":false}`)
	e, _ := out["error"].(map[string]any)
	if !isErr || e["message"] != "element "+parent+" has 1 relationships; delete with cascade true" {
		t.Fatalf("delete of the parent without cascade: %v", out)
	}
	out, _ = call(t, cs, "deleteElement", `{"id":"`+parent+`"}`)
	p, _ := out["proposal"].(map[string]any)
	if p == nil || p["will_lose"] != "element OrderAPI and 1 relationship" {
		t.Fatalf("delete proposal of the parent: %v", out)
	}
	applied, isErr := call(t, cs, "applyProposal", `{"proposal_id":"`+p["proposal_id"].(string)+`"}`)
	if isErr {
		t.Fatalf("apply: %v", applied)
	}
	if got, _ := applied["deleted_relationships"].([]any); len(got) != 1 || got[0] != child+"-composition" {
		t.Fatalf("deleted relationships = %v, want the composition", applied)
	}
	if c, ok := repo.Element(devRC.TenantID, child); !ok || c.GetParentId() != "" || c.GetVersion() != 2 {
		t.Fatalf("the part after its whole was deleted: %v (found %v), want kept without parent_id at version 2", c, ok)
	}
}
