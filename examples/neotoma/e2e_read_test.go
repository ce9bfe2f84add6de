package neotoma_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// The snapshot is the current truth with, per field, the observation it
// comes from: a correction replaces the extracted value's provenance.
func TestRetrieveEntitySnapshotWithProvenance(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	stored := mustSucceed(t, cs, "store", invoiceArgs)
	obs := stored["entities"].([]any)[0].(map[string]any)["observation_id"].(string)
	fix := mustSucceed(t, cs, "correct", `{"entity_id":"`+invoiceID+`","entity_type":"invoice","field":"amount","value":1300}`)["observation_id"].(string)
	out := mustSucceed(t, cs, "retrieve_entity_snapshot", `{"entity_id":"`+invoiceID+`"}`)
	assertJSON(t, out, `{
		"success": true,
		"entity_id": "`+invoiceID+`", "entity_type": "invoice", "schema_version": "1.0", "canonical_name": "INV-2024-001",
		"snapshot": {"invoice_number": "INV-2024-001", "vendor": "Acme Supplies", "amount": 1300, "currency": "EUR"},
		"provenance": {"invoice_number": "`+obs+`", "vendor": "`+obs+`", "amount": "`+fix+`", "currency": "`+obs+`"},
		"computed_at": "2026-03-01T09:00:00Z",
		"observation_count": 2,
		"last_observation_at": "2026-03-01T09:00:00Z",
		"suggestions": ["Call list_observations to list the observations of an entity, newest first: what each source said about it", "Call correct to correct one field of an entity"],
		"warnings": []
	}`)
	// at: the state before anything was observed.
	before := mustSucceed(t, cs, "retrieve_entity_snapshot", `{"entity_id":"`+invoiceID+`","at":"2026-03-01T08:00:00Z"}`)
	if before["snapshot"] != nil && len(before["snapshot"].(map[string]any)) != 0 || before["observation_count"] != nil {
		t.Errorf("snapshot at 08:00 = %v, want empty with no observations", before)
	}
	for _, tool := range []string{"retrieve_entity_snapshot", "list_observations", "list_relationships"} {
		got, isErr := call(t, cs, tool, `{"entity_id":"ent_00000000-0000-8000-8000-000000000000"}`)
		if code, field, _ := errorOf(t, got); !isErr || code != domain.CodeEntityNotFound || field != "entity_id" {
			t.Errorf("%s of an unknown entity = %v", tool, got)
		}
	}
}

// Observations come newest first (the latest on equal times), paged.
func TestListObservationsNewestFirst(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	first := mustSucceed(t, cs, "store", invoiceArgs)["entities"].([]any)[0].(map[string]any)["observation_id"].(string)
	second := mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"invoice","invoice_number":"INV-2024-001","status":"paid"}],"source_priority":50}`)
	src2 := second["source_id"].(string)
	obs2 := second["entities"].([]any)[0].(map[string]any)["observation_id"].(string)
	out := mustSucceed(t, cs, "list_observations", `{"entity_id":"`+invoiceID+`","limit":1}`)
	assertJSON(t, out, `{
		"success": true,
		"observations": [{
			"id": "`+obs2+`", "entity_id": "`+invoiceID+`", "entity_type": "invoice", "schema_version": "1.0",
			"source_id": "`+src2+`", "observed_at": "2026-03-01T09:00:00Z", "specificity_score": 1, "source_priority": 50,
			"fields": {"invoice_number": "INV-2024-001", "status": "paid"}, "created_at": "2026-03-01T09:00:00Z"
		}],
		"total": 2, "limit": 1,
		"suggestions": [],
		"warnings": []
	}`)
	next := mustSucceed(t, cs, "list_observations", `{"entity_id":"`+invoiceID+`","limit":1,"offset":1}`)
	if got := next["observations"].([]any)[0].(map[string]any)["id"]; got != first || next["offset"] != 1.0 {
		t.Errorf("second page = %v, want observation %s", next, first)
	}
}

// Relationships are listed from either end, optionally of one type;
// storing material about a related entity answers its relationships and
// the entities at their other ends.
func TestListRelationshipsAndRelatedEntities(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	person, acme, holding := graph(t, cs)
	partOf := mustSucceed(t, cs, "create_relationship", `{"relationship_type":"part_of","source_entity_id":"`+acme+`","target_entity_id":"`+holding+`"}`)["relationship"]
	refers := mustSucceed(t, cs, "create_relationship", `{"relationship_type":"refers_to","source_entity_id":"`+person+`","target_entity_id":"`+acme+`"}`)["relationship"]
	for _, tt := range []struct {
		args string
		want []any
	}{
		{`{"entity_id":"` + acme + `"}`, []any{refers, partOf}},
		{`{"entity_id":"` + acme + `","direction":"inbound"}`, []any{refers}},
		{`{"entity_id":"` + acme + `","direction":"outbound"}`, []any{partOf}},
		{`{"entity_id":"` + acme + `","relationship_type":"refers_to"}`, []any{refers}},
		{`{"entity_id":"` + holding + `","direction":"outbound"}`, nil},
	} {
		out := mustSucceed(t, cs, "list_relationships", tt.args)
		got, _ := out["relationships"].([]any)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("list_relationships %s (-want +got):\n%s", tt.args, diff)
		}
	}
	bad, isErr := call(t, cs, "list_relationships", `{"entity_id":"`+acme+`","direction":"sideways"}`)
	if code, field, _ := errorOf(t, bad); !isErr || code != runtime.CodeInvalidEnumValue || field != "direction" {
		t.Errorf("direction sideways = %v", bad)
	}

	out := mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"company","name":"Acme","industry":"engines"}]}`)
	if diff := cmp.Diff([]any{refers, partOf}, out["related_relationships"]); diff != "" {
		t.Errorf("related_relationships (-want +got):\n%s", diff)
	}
	want := []any{
		map[string]any{"id": holding, "entity_type": "company", "canonical_name": "Acme Holding", "snapshot": map[string]any{"name": "Acme Holding"}, "observation_count": 1.0, "last_observation_at": "2026-03-01T09:00:00Z"},
		map[string]any{"id": person, "entity_type": "person", "canonical_name": "Ada Lovelace", "snapshot": map[string]any{"name": "Ada Lovelace"}, "observation_count": 1.0, "last_observation_at": "2026-03-01T09:00:00Z"},
	}
	if person < holding { // ordered by id
		want[0], want[1] = want[1], want[0]
	}
	if diff := cmp.Diff(want, out["related_entities"]); diff != "" {
		t.Errorf("related_entities (-want +got):\n%s", diff)
	}
}

// retrieve_entities leaves merged entities out unless asked, and pages.
func TestRetrieveEntitiesMergedAndPaged(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	from, to := duplicates(t, cs)
	prop := mustSucceed(t, cs, "merge_entities", `{"from_entity_id":"`+from+`","to_entity_id":"`+to+`"}`)
	mustSucceed(t, cs, "apply_proposal", `{"proposal_id":"`+prop["proposal"].(map[string]any)["proposal_id"].(string)+`"}`)
	live := mustSucceed(t, cs, "retrieve_entities", `{"entity_type":"person","include_snapshots":false}`)
	assertJSON(t, live, `{
		"success": true,
		"entities": [{"id": "`+to+`", "entity_type": "person", "canonical_name": "Ada Lovelace", "observation_count": 2, "last_observation_at": "2026-03-01T09:00:00Z"}],
		"total": 1, "excluded_merged": true,
		"suggestions": [], "warnings": []
	}`)
	all := mustSucceed(t, cs, "retrieve_entities", `{"include_merged":true,"include_snapshots":false,"limit":1}`)
	assertJSON(t, all, `{
		"success": true,
		"entities": [{"id": "`+from+`", "entity_type": "person", "canonical_name": "A. Lovelace", "merged_into": "`+to+`"}],
		"total": 2,
		"suggestions": [], "warnings": []
	}`)
	bad, isErr := call(t, cs, "retrieve_entities", `{"entity_type":"persons"}`)
	if code, field, top := errorOf(t, bad); !isErr || code != runtime.CodeValidation || field != "entity_type" || top != "person" {
		t.Errorf("retrieve_entities persons = %v", bad)
	}
}
