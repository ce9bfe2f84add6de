package archimate_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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
	parent, child := composeAndDeleteTheParent(t, cs, func(parent, child string) {
		rel, ok := repo.Relationship(devRC.TenantID, child+"-composition")
		if !ok || rel.GetType() != archimatev1.RelationshipType_RELATIONSHIP_TYPE_COMPOSITION || rel.GetSourceId() != parent || rel.GetTargetId() != child {
			t.Fatalf("composition = %v (found %v), want Composition %s -> %s", rel, ok, parent, child)
		}
	})
	if _, ok := repo.Relationship(devRC.TenantID, child+"-composition"); ok {
		t.Fatal("the composition outlived its parent")
	}
	if c, ok := repo.Element(devRC.TenantID, child); !ok || c.GetParentId() != "" || c.GetVersion() != 2 {
		t.Fatalf("the part after its whole %s was deleted: %v (found %v), want kept without parent_id at version 2", parent, c, ok)
	}
}

// The same through the PostgreSQL domain, which applies writes with the
// in-memory domain's rules: its delete reads the parts of the deleted
// element (by parent_id) and clears their parent_id, at version 2.
func TestParentIDComposesTheNewElementIntoItsParentInPostgreSQL(t *testing.T) {
	pool, idem, repo, idemTable := pgRepo(t)
	prefix := strings.TrimSuffix(idemTable, "_idem")
	_, child := composeAndDeleteTheParent(t, pgSession(t, repo, idem), func(parent, child string) {
		var typ, src, dst string
		if err := pool.QueryRow(context.Background(), `SELECT type::text, source_id, target_id FROM `+prefix+`_relationships WHERE tenant = $1 AND id = $2`,
			devRC.TenantID, child+"-composition").Scan(&typ, &src, &dst); err != nil || typ != "RELATIONSHIP_TYPE_COMPOSITION" || src != parent || dst != child {
			t.Fatalf("composition row: %s %s -> %s (%v), want RELATIONSHIP_TYPE_COMPOSITION %s -> %s", typ, src, dst, err, parent, child)
		}
	})
	var left int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM `+prefix+`_relationships WHERE tenant = $1 AND id = $2`,
		devRC.TenantID, child+"-composition").Scan(&left); err != nil || left != 0 {
		t.Fatalf("composition rows after the parent was deleted: %d (%v), want 0", left, err)
	}
	var parentID string
	var version int
	if err := pool.QueryRow(context.Background(), `SELECT parent_id, version FROM `+prefix+`_elements WHERE tenant = $1 AND id = $2`,
		devRC.TenantID, child).Scan(&parentID, &version); err != nil || parentID != "" || version != 2 {
		t.Fatalf("the part after its whole was deleted: parent_id %q, version %d (%v), want kept without parent_id at version 2", parentID, version, err)
	}
}

// composeAndDeleteTheParent creates OrderAPI and a part of it through
// parent_id, checks the composition (composed), then deletes OrderAPI: refused without
// cascade, proposed naming the relationship, applied removing it.
func composeAndDeleteTheParent(t *testing.T, cs *mcp.ClientSession, composed func(parent, child string)) (parent, child string) {
	t.Helper()
	parentOut, _ := call(t, cs, "createElement", `{"type":"ApplicationComponent","name":"OrderAPI"}`)
	parent = createdID(t, parentOut)
	childOut, isErr := call(t, cs, "createElement", `{"type":"ApplicationComponent","name":"OrderAPI Auth","parent_id":"`+parent+`"}`)
	if isErr {
		t.Fatalf("create with parent_id: %v", childOut)
	}
	child = createdID(t, childOut)
	composed(parent, child)
	rel, isErr := call(t, cs, "createRelationship", `{"type":"Serving","source_id":"`+child+`","target_id":"`+parent+`"}`)
	if isErr {
		t.Fatalf("serving: %v", rel)
	}
	out, isErr := call(t, cs, "deleteElement", `{"id":"`+parent+`","cascade":false}`)
	e, _ := out["error"].(map[string]any)
	if !isErr || e["message"] != "element "+parent+" has 2 relationships; delete with cascade true" {
		t.Fatalf("delete of the parent without cascade: %v", out)
	}
	out, _ = call(t, cs, "deleteElement", `{"id":"`+parent+`"}`)
	p, _ := out["proposal"].(map[string]any)
	if p == nil || p["will_lose"] != "element OrderAPI and 2 relationships" {
		t.Fatalf("delete proposal of the parent: %v", out)
	}
	applied, isErr := call(t, cs, "applyProposal", `{"proposal_id":"`+p["proposal_id"].(string)+`"}`)
	if isErr {
		t.Fatalf("apply: %v", applied)
	}
	got, _ := applied["deleted_relationships"].([]any)
	composition := false
	for _, id := range got {
		composition = composition || id == child+"-composition"
	}
	if len(got) != 2 || !composition {
		t.Fatalf("deleted relationships = %v, want the serving and the composition %s-composition", applied, child)
	}
	return parent, child
}
