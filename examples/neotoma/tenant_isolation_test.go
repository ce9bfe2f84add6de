package neotoma_test

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1/neotomav1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// Two tenants whose users share a name: entity ids hash the user name, so
// both compute the same ids for the same material, and each must still get
// its own entities.
var (
	isoA = runtime.RequestContext{TenantID: "tenant-a", PrincipalID: "user-1"}
	isoB = runtime.RequestContext{TenantID: "tenant-b", PrincipalID: "user-1"}
)

// isoServer is one memory the two tenants share. Tenant A confirms merges
// through proposals as usual; tenant B's writes run directly, so every
// probe reaches the domain handler itself.
func isoServer(t *testing.T) (*domain.Memory, *mcp.ClientSession, *mcp.ClientSession) {
	t.Helper()
	mem := domain.New(func() time.Time { return fixedNow })
	who := map[string]runtime.RequestContext{"agent-a": isoA, "agent-b": isoB}
	s := mcp.NewServer(&mcp.Implementation{Name: "neotoma", Version: "test"}, nil)
	err := neotomav1mcpwrite.RegisterMemoryServiceTools(s, mem,
		runtime.WithErrorHook(domain.ErrorHook),
		runtime.WithVocabulary(mem.EntityTypeVocabulary()),
		runtime.WithPolicy(func(_ context.Context, pc runtime.PolicyCall) runtime.Confirmation {
			if pc.RequestContext.TenantID == isoB.TenantID {
				return runtime.ConfirmDirect
			}
			return ""
		}),
		runtime.WithRequestContextFunc(mcptest.ContextByClientName(who)))
	if err != nil {
		t.Fatal(err)
	}
	return mem, mcptest.Connect(t, s, mcptest.Options{ClientName: "agent-a"}), mcptest.Connect(t, s, mcptest.Options{ClientName: "agent-b"})
}

// isoMasked is the answer masked for comparison (mcptest.Masked): ids replaced,
// the generated values of a validate_write preview removed.
func isoMasked(t *testing.T, r mcptest.Result, ids ...string) any {
	t.Helper()
	return mcptest.Masked(t, r, []string{"observation_id", "corrected_at", "created_at", "id", "correlation_id"}, ids...)
}

// A second tenant can neither read, overwrite nor learn of the first
// tenant's entities through any tool: every answer to tenant B about A's
// ids is the answer about an id that never existed, the same material
// stored by B makes B's own entities, and A's entities stay as they were.
func TestTenantIsolationThroughEveryTool(t *testing.T) {
	mem, a, b := isoServer(t)
	const invoice = `{"entities":[{"entity_type":"invoice","invoice_number":"INV-9","amount":1250.5}]}`
	const person = `{"entities":[{"entity_type":"person","canonical_name":"Ada Lovelace","email":"ada@example.org"},{"entity_type":"person","canonical_name":"A. Lovelace","phone":"+44 1"}]}`
	// Tenant A registers an entity type of its own and stores a file.
	mustSucceed(t, a, "register_schema", `{"entity_type":"meal","schema_definition":{"fields":{"name":{"type":"string"}}},"reducer_config":{"merge_policies":{}},"activate":true}`)
	mustSucceed(t, a, "update_schema_incremental", `{"entity_type":"meal","fields_to_add":[{"field_name":"calories","field_type":"number"}]}`)
	mustSucceed(t, a, "store", `{"entities":[{"entity_type":"meal","name":"Porridge","calories":350}]}`)
	file := mustSucceed(t, a, "store", `{"file_content":"Q2FsbCBBZGEgYWJvdXQgdGhlIFEzIGludm9pY2Uu","mime_type":"text/plain","interpret":false}`)["source_id"].(string)
	inv := mustSucceed(t, a, "store", invoice)["entities"].([]any)[0].(map[string]any)["entity_id"].(string)
	people := mustSucceed(t, a, "store", person)["entities"].([]any)
	p1, p2 := people[0].(map[string]any)["entity_id"].(string), people[1].(map[string]any)["entity_id"].(string)
	mustSucceed(t, a, "create_relationship", `{"relationship_type":"refers_to","source_entity_id":"`+inv+`","target_entity_id":"`+p1+`"}`)
	pending := mustSucceed(t, a, "merge_entities", `{"from_entity_id":"`+p2+`","to_entity_id":"`+p1+`"}`)["proposal"].(map[string]any)["proposal_id"].(string)
	before := map[string]map[string]any{}
	for _, id := range []string{inv, p1, p2} {
		snap, found := mem.Snapshot(isoA.TenantID, isoA.PrincipalID, id)
		if !found {
			t.Fatalf("tenant A has no entity %s", id)
		}
		before[id] = snap
	}

	// Tenant B stores material of its own.
	own := mustSucceed(t, b, "store", `{"entities":[{"entity_type":"person","canonical_name":"Hank Scorpio","email":"hank@globex.example"}]}`)["entities"].([]any)[0].(map[string]any)["entity_id"].(string)

	const never, never2 = "ent_0000000000000000000000000000dead", "ent_0000000000000000000000000000beef"
	probes := []struct {
		tool, args      string
		foreign, absent []string
	}{
		{"correct", `{"entity_id":"{0}","entity_type":"invoice","field":"amount","value":1}`, []string{inv}, []string{never}},
		{"correct", `{"entity_id":"{0}","entity_type":"person","field":"email","value":"eve@example.org"}`, []string{p1}, []string{never}},
		{"merge_entities", `{"from_entity_id":"{0}","to_entity_id":"{1}"}`, []string{p2, p1}, []string{never, never2}},
		{"merge_entities", `{"from_entity_id":"{0}","to_entity_id":"` + own + `"}`, []string{p1}, []string{never}},
		{"merge_entities", `{"from_entity_id":"` + own + `","to_entity_id":"{0}"}`, []string{p1}, []string{never}},
		{"create_relationship", `{"relationship_type":"refers_to","source_entity_id":"{0}","target_entity_id":"{1}"}`, []string{inv, p1}, []string{never, never2}},
		{"create_relationship", `{"relationship_type":"part_of","source_entity_id":"` + own + `","target_entity_id":"{0}"}`, []string{p1}, []string{never}},
		{"validate_write", `{"operation":"correct","payload":{"entity_id":"{0}","entity_type":"invoice","field":"amount","value":1}}`, []string{inv}, []string{never}},
		{"validate_write", `{"operation":"merge_entities","payload":{"from_entity_id":"{0}","to_entity_id":"{1}"}}`, []string{p2, p1}, []string{never, never2}},
		{"reinterpret", `{"source_id":"{0}","interpretation_config":{"model_id":"m2"}}`, []string{file}, []string{"src_00000000000000000000000000000000"}},
		{"retrieve_entity_snapshot", `{"entity_id":"{0}"}`, []string{inv}, []string{never}},
		{"list_observations", `{"entity_id":"{0}"}`, []string{p1}, []string{never}},
		{"list_relationships", `{"entity_id":"{0}"}`, []string{inv}, []string{never}},
		{"retrieve_field_provenance", `{"entity_id":"{0}","field":"amount"}`, []string{inv}, []string{never}},
		{"retrieve_related_entities", `{"entity_id":"{0}"}`, []string{inv}, []string{never}},
		{"get_relationship_snapshot", `{"relationship_type":"refers_to","source_entity_id":"{0}","target_entity_id":"{1}"}`, []string{inv, p1}, []string{never, never2}},
		{"analyze_schema_candidates", `{"entity_type":"{0}"}`, []string{"meal"}, []string{"mexq"}},
		{"get_schema_recommendations", `{"entity_type":"{0}"}`, []string{"meal"}, []string{"mexq"}},
		{"retrieve_graph_neighborhood", `{"node_id":"{0}"}`, []string{inv}, []string{never}},
		{"retrieve_graph_neighborhood", `{"node_id":"{0}","node_type":"source"}`, []string{file}, []string{"src_00000000000000000000000000000000"}},
		{"retrieve_file_url", `{"file_path":"neotoma://files/{0}"}`, []string{file}, []string{"src_00000000000000000000000000000000"}},
		// A's entity type is unknown to B, like a type nobody registered.
		{"retrieve_entities", `{"entity_type":"{0}"}`, []string{"meal"}, []string{"mexq"}},
		{"update_schema_incremental", `{"entity_type":"{0}","fields_to_add":[{"field_name":"fibre","field_type":"number"}]}`, []string{"meal"}, []string{"mexq"}},
		{"store", `{"entities":[{"entity_type":"{0}","name":"Porridge"}]}`, []string{"meal"}, []string{"mexq"}},
		{"apply_proposal", `{"proposal_id":"{0}"}`, []string{pending}, []string{"prop-never-existed"}},
		{"discard_proposal", `{"proposal_id":"{0}"}`, []string{pending}, []string{"prop-never-existed"}},
	}
	covered := map[string]bool{}
	with := func(args string, ids []string) string {
		for i, id := range ids {
			args = strings.ReplaceAll(args, "{"+strconv.Itoa(i)+"}", id)
		}
		return args
	}
	for _, p := range probes {
		covered[p.tool] = true
		absent := mcptest.Call(t, b, p.tool, with(p.args, p.absent))
		got := mcptest.Call(t, b, p.tool, with(p.args, p.foreign))
		if !got.IsError && p.tool != "validate_write" {
			t.Errorf("%s %s succeeded for tenant B: %s", p.tool, with(p.args, p.foreign), got.Text)
		}
		if diff := cmp.Diff(isoMasked(t, absent, p.absent...), isoMasked(t, got, p.foreign...)); diff != "" {
			t.Errorf("%s %s: tenant A's ids answer differently from ids that never existed (-never +A's):\n%s", p.tool, p.args, diff)
		}
	}

	// The same material stored by B makes B's own entities: created, not
	// deduplicated into A's, under ids of B's tenant that cannot be linked
	// to A's (source and entity ids are scoped to the tenant; the content
	// hash is the content's).
	aOut := mustSucceed(t, a, "store", invoice)
	out := mustSucceed(t, b, "store", invoice)
	e := out["entities"].([]any)[0].(map[string]any)
	bInv, _ := e["entity_id"].(string)
	if bInv == "" || bInv == inv || e["created"] != true || out["deduplicated"] != false ||
		out["source_id"] == aOut["source_id"] || out["content_hash"] != aOut["content_hash"] {
		t.Errorf("B's store of A's material: %v (A's: %v)", out, aOut)
	}
	if snap, _ := mem.Snapshot(isoB.TenantID, isoB.PrincipalID, bInv); !cmp.Equal(snap, map[string]any{"invoice_number": "INV-9", "amount": 1250.5}) {
		t.Errorf("B's entity %s = %v", bInv, snap)
	}
	if snap, found := mem.Snapshot(isoB.TenantID, isoB.PrincipalID, inv); found {
		t.Errorf("B holds A's entity id %s: %v", inv, snap)
	}
	// B's timeline holds none of A's events.
	covered["list_timeline_events"] = true
	mustSucceed(t, a, "store", `{"entities":[{"entity_type":"task","title":"File taxes","due_date":"2026-04-15"}]}`)
	if got := mustSucceed(t, b, "list_timeline_events", `{}`); !cmp.Equal(got["events"], []any{}) {
		t.Errorf("B sees A's events: %v", got)
	}
	if got := mustSucceed(t, a, "list_timeline_events", `{}`); got["total"] != 1.0 {
		t.Errorf("A's events: %v", got)
	}
	// B finds none of A's entities by identifier.
	covered["retrieve_entity_by_identifier"] = true
	if got := mustSucceed(t, b, "retrieve_entity_by_identifier", `{"identifier":"Ada Lovelace"}`); !cmp.Equal(got["entities"], []any{}) {
		t.Errorf("B finds A's person: %v", got)
	}
	if got := mustSucceed(t, a, "retrieve_entity_by_identifier", `{"identifier":"Ada Lovelace"}`); got["total"] != 1.0 {
		t.Errorf("A does not find its own person: %v", got)
	}
	// B lists only its own entities, and A's type is B's to register.
	covered["retrieve_entities"] = true
	if got := mustSucceed(t, b, "retrieve_entities", `{"include_snapshots":false}`); got["total"] != 2.0 {
		t.Errorf("B's entities: %v", got)
	}
	covered["register_schema"] = true
	if got := mustSucceed(t, b, "register_schema", `{"entity_type":"meal","schema_definition":{"fields":{"title":{"type":"string"}}},"reducer_config":{"merge_policies":{}}}`); got["scope"] != "global" || got["activated"] != false {
		t.Errorf("B's registration of meal: %v", got)
	}
	covered["list_entity_types"] = true
	if got := strings.Join(mem.EntityTypes(context.Background(), isoA.TenantID), ","); !strings.Contains(got, "meal") {
		t.Errorf("tenant A's types %s lack its meal", got)
	}
	if got, want := mem.EntityTypes(context.Background(), isoB.TenantID), domain.BuiltinEntityTypes(); !cmp.Equal(got, want) {
		t.Errorf("tenant B's types = %v, want the built-in ones %v (its meal is not active)", got, want)
	}
	ta, tb := mustSucceed(t, a, "list_entity_types", `{"keyword":"meal"}`), mustSucceed(t, b, "list_entity_types", `{"keyword":"meal"}`)
	if ta["total"] != 1.0 || tb["total"] != 0.0 || !cmp.Equal(tb["entity_types"], []any{}) {
		t.Errorf("list_entity_types meal: A %v, B %v", ta, tb)
	}
	for _, tc := range [][2]string{{"list_relationship_types", `{}`}, {"get_write_schema", `{"operation":"store"}`}} {
		covered[tc[0]] = true
		if ra, rb := mcptest.Call(t, a, tc[0], tc[1]), mcptest.Call(t, b, tc[0], tc[1]); ra.Text != rb.Text {
			t.Errorf("%s answers the tenants differently:\n A: %s\n B: %s", tc[0], ra.Text, rb.Text)
		}
	}

	for id, want := range before {
		if got, _ := mem.Snapshot(isoA.TenantID, isoA.PrincipalID, id); !cmp.Equal(want, got) {
			t.Errorf("tenant A's %s changed: %v -> %v", id, want, got)
		}
	}
	if out := mustSucceed(t, a, "apply_proposal", `{"proposal_id":"`+pending+`"}`); out["from_entity_id"] != p2 || out["observations_moved"] != 1.0 {
		t.Errorf("A's pending merge: %v", out)
	}

	res, err := b.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, tool := range res.Tools {
		if !covered[tool.Name] {
			missing = append(missing, tool.Name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("tools not probed across tenants: %v", missing)
	}
}
