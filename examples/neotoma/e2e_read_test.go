package neotoma_test

import (
	"encoding/json"
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
	assertJSON(t, before, `{
		"success": true,
		"entity_id": "`+invoiceID+`", "entity_type": "invoice", "schema_version": "1.0", "canonical_name": "INV-2024-001",
		"snapshot": {}, "provenance": {},
		"computed_at": "2026-03-01T09:00:00Z",
		"observation_count": 0,
		"suggestions": ["Call list_observations to list the observations of an entity, newest first: what each source said about it", "Call correct to correct one field of an entity"],
		"warnings": []
	}`)
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
		"total": 2, "limit": 1, "offset": 0,
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
	partOf := relationshipOf(mustSucceed(t, cs, "create_relationship", `{"relationship_type":"part_of","source_entity_id":"`+acme+`","target_entity_id":"`+holding+`"}`))
	refers := relationshipOf(mustSucceed(t, cs, "create_relationship", `{"relationship_type":"refers_to","source_entity_id":"`+person+`","target_entity_id":"`+acme+`"}`))
	for _, tt := range []struct {
		args string
		want []any
	}{
		{`{"entity_id":"` + acme + `"}`, []any{refers, partOf}},
		{`{"entity_id":"` + acme + `","direction":"inbound"}`, []any{refers}},
		{`{"entity_id":"` + acme + `","direction":"outbound"}`, []any{partOf}},
		{`{"entity_id":"` + acme + `","relationship_type":"refers_to"}`, []any{refers}},
		{`{"entity_id":"` + holding + `","direction":"outbound"}`, []any{}}, // always present, [] when empty
	} {
		out := mustSucceed(t, cs, "list_relationships", tt.args)
		got, ok := out["relationships"].([]any)
		if !ok {
			t.Errorf("list_relationships %s: no relationships list: %v", tt.args, out)
		}
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
		"entities": [{"id": "`+from+`", "entity_type": "person", "canonical_name": "A. Lovelace", "merged_into": "`+to+`", "observation_count": 0}],
		"total": 2, "excluded_merged": false,
		"suggestions": [], "warnings": []
	}`)
	bad, isErr := call(t, cs, "retrieve_entities", `{"entity_type":"persons"}`)
	if code, field, top := errorOf(t, bad); !isErr || code != runtime.CodeInvalidEnumValue || field != "entity_type" || top != "person" {
		t.Errorf("retrieve_entities persons = %v", bad)
	}
}

// An identifier finds entities by canonical name or identifying field,
// without case and extra spaces, never by other values.
func TestRetrieveEntityByIdentifier(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"person","name":"Ada Lovelace","email":"ada@example.org"},{"entity_type":"contact","name":"Ada  lovelace"},{"entity_type":"company","name":"Analytical Engines Ltd","industry":"Ada Lovelace"}]}`)
	person := entityID("user-ada", "person", "email=ada@example.org")
	contact := entityID("user-ada", "contact", "name=ada lovelace")
	for _, tt := range []struct {
		args string
		want []any
	}{
		{`{"identifier":"ADA@example.org"}`, []any{person}},
		{`{"identifier":"ada lovelace"}`, []any{person, contact}},
		{`{"identifier":"Ada Lovelace","entity_type":"contact"}`, []any{contact}},
		{`{"identifier":"Babbage"}`, nil},
	} {
		out := mustSucceed(t, cs, "retrieve_entity_by_identifier", tt.args)
		var ids []any
		es, _ := out["entities"].([]any)
		for _, e := range es {
			ids = append(ids, e.(map[string]any)["id"])
		}
		if diff := cmp.Diff(tt.want, ids); diff != "" {
			t.Errorf("retrieve_entity_by_identifier %s (-want +got):\n%s", tt.args, diff)
		}
	}
	out := mustSucceed(t, cs, "retrieve_entity_by_identifier", `{"identifier":"ada@example.org"}`)
	assertJSON(t, out, `{
		"success": true,
		"entities": [{"id": "`+person+`", "entity_type": "person", "canonical_name": "ada@example.org", "snapshot": {"name": "Ada Lovelace", "email": "ada@example.org"}, "observation_count": 1, "last_observation_at": "2026-03-01T09:00:00Z"}],
		"total": 1, "suggestions": [], "warnings": []
	}`)
}

// Related entities are found up to max_hops away, in either direction or
// one, optionally through some relationship types only.
func TestRetrieveRelatedEntities(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	person, acme, holding := graph(t, cs)
	partOf := relationshipOf(mustSucceed(t, cs, "create_relationship", `{"relationship_type":"part_of","source_entity_id":"`+acme+`","target_entity_id":"`+holding+`"}`))
	refers := relationshipOf(mustSucceed(t, cs, "create_relationship", `{"relationship_type":"refers_to","source_entity_id":"`+person+`","target_entity_id":"`+acme+`"}`))
	one := mustSucceed(t, cs, "retrieve_related_entities", `{"entity_id":"`+person+`","include_entities":false}`)
	assertJSON(t, one, `{
		"success": true,
		"entities": [{"id": "`+acme+`", "entity_type": "company", "canonical_name": "Acme", "observation_count": 1, "last_observation_at": "2026-03-01T09:00:00Z"}],
		"relationships": [`+mustJSON(t, refers)+`],
		"total_entities": 1, "total_relationships": 1, "hops_traversed": 1,
		"suggestions": [], "warnings": []
	}`)
	two := mustSucceed(t, cs, "retrieve_related_entities", `{"entity_id":"`+person+`","max_hops":3,"include_entities":false}`)
	if two["total_entities"] != 2.0 || two["hops_traversed"] != 2.0 || !cmp.Equal(two["relationships"], []any{refers, partOf}) {
		t.Errorf("three hops from the person = %v, want acme then holding in 2 hops", two)
	}
	in := mustSucceed(t, cs, "retrieve_related_entities", `{"entity_id":"`+acme+`","direction":"inbound","include_entities":false}`)
	only := mustSucceed(t, cs, "retrieve_related_entities", `{"entity_id":"`+acme+`","relationship_types":["part_of"],"include_entities":false}`)
	if in["total_entities"] != 1.0 || in["entities"].([]any)[0].(map[string]any)["id"] != person {
		t.Errorf("inbound from acme = %v", in)
	}
	if only["total_entities"] != 1.0 || only["entities"].([]any)[0].(map[string]any)["id"] != holding {
		t.Errorf("part_of from acme = %v", only)
	}
	if bad, isErr := call(t, cs, "retrieve_related_entities", `{"entity_id":"`+acme+`","max_hops":9}`); !isErr || codes(bad)[0] != "CONSTRAINT_VIOLATION@max_hops" {
		t.Errorf("max_hops 9 = %v", bad)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A field traces to the observation that won and the material it came
// from; a corrected field to the correction, which has no source.
func TestRetrieveFieldProvenance(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	stored := mustSucceed(t, cs, "store", invoiceArgs)
	src := stored["source_id"].(string)
	obs := stored["entities"].([]any)[0].(map[string]any)["observation_id"].(string)
	out := mustSucceed(t, cs, "retrieve_field_provenance", `{"entity_id":"`+invoiceID+`","field":"vendor"}`)
	assertJSON(t, out, `{
		"success": true,
		"field": "vendor", "value": "Acme Supplies",
		"source_observation": {"id": "`+obs+`", "source_id": "`+src+`", "observed_at": "2026-03-01T09:00:00Z", "specificity_score": 1, "source_priority": 100},
		"source_material": {"id": "`+src+`", "created_at": "2026-03-01T09:00:00Z"},
		"observed_at": "2026-03-01T09:00:00Z",
		"suggestions": [], "warnings": []
	}`)
	fix := mustSucceed(t, cs, "correct", `{"entity_id":"`+invoiceID+`","entity_type":"invoice","field":"amount","value":1300}`)["observation_id"]
	corrected := mustSucceed(t, cs, "retrieve_field_provenance", `{"entity_id":"`+invoiceID+`","field":"amount"}`)
	// A correction comes from the agent, not from source material: no
	// source_id, no source_material.
	assertJSON(t, corrected, `{
		"success": true,
		"field": "amount", "value": 1300,
		"source_observation": {"id": "`+fix.(string)+`", "observed_at": "2026-03-01T09:00:00Z", "specificity_score": 1, "source_priority": 1000},
		"observed_at": "2026-03-01T09:00:00Z",
		"suggestions": [], "warnings": []
	}`)
	bad, isErr := call(t, cs, "retrieve_field_provenance", `{"entity_id":"`+invoiceID+`","field":"po_reference"}`)
	if code, field, _ := errorOf(t, bad); !isErr || code != domain.CodeFieldNotFound || field != "field" {
		t.Errorf("raw fragment provenance = %v, want FIELD_NOT_FOUND", bad)
	}
	if bad["error"].(map[string]any)["message"] != "the snapshot of "+invoiceID+" has no field po_reference" {
		t.Errorf("message = %v", bad["error"])
	}
}

func TestGetRelationshipSnapshot(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	_, acme, holding := graph(t, cs)
	rel := relationshipOf(mustSucceed(t, cs, "create_relationship", `{"relationship_type":"part_of","source_entity_id":"`+acme+`","target_entity_id":"`+holding+`","metadata":{"since":2019}}`))
	obs := "obs_" + runtime.ContentHash(rel["id"].(string))
	out := mustSucceed(t, cs, "get_relationship_snapshot", `{"relationship_type":"part_of","source_entity_id":"`+acme+`","target_entity_id":"`+holding+`"}`)
	assertJSON(t, out, `{
		"success": true,
		"snapshot": {
			"relationship_key": "PART_OF:`+acme+`:`+holding+`", "relationship_type": "PART_OF",
			"source_entity_id": "`+acme+`", "target_entity_id": "`+holding+`", "schema_version": "1.0",
			"snapshot": {"since": 2019}, "computed_at": "2026-03-01T09:00:00Z", "observation_count": 1,
			"last_observation_at": "2026-03-01T09:00:00Z", "provenance": {"since": "`+obs+`"}
		},
		"observations": [{"id": "`+obs+`", "observed_at": "2026-03-01T09:00:00Z", "specificity_score": 1, "source_priority": 100, "metadata": {"since": 2019}}],
		"suggestions": [], "warnings": []
	}`)
	// The document's own spelling of the type reads the same snapshot.
	if doc := mustSucceed(t, cs, "get_relationship_snapshot", `{"relationship_type":"PART_OF","source_entity_id":"`+acme+`","target_entity_id":"`+holding+`"}`); !cmp.Equal(doc, out) {
		t.Errorf("PART_OF = %v, want the part_of answer %v", doc, out)
	}
	for _, tt := range []struct{ args, code string }{
		{`{"relationship_type":"part_of","source_entity_id":"` + holding + `","target_entity_id":"` + acme + `"}`, runtime.CodeNotFound},
		{`{"relationship_type":"part_of","source_entity_id":"ent_x","target_entity_id":"` + acme + `"}`, domain.CodeEntityNotFound},
		{`{"relationship_type":"owns","source_entity_id":"` + acme + `","target_entity_id":"` + holding + `"}`, domain.CodeInvalidRelationshipType},
	} {
		got, isErr := call(t, cs, "get_relationship_snapshot", tt.args)
		if code, _, _ := errorOf(t, got); !isErr || code != tt.code {
			t.Errorf("get_relationship_snapshot %s = %v, want %s", tt.args, got, tt.code)
		}
	}
}

// The document's manual enhancement workflow starts here: raw fragments
// carried often enough with a consistent type are candidates.
func TestAnalyzeSchemaCandidates(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	phones := []string{`"555-0100"`, `"555-0101"`, `"+44 20 7946"`, `"555-0103"`}
	for i, po := range []string{`"PO-1"`, `"PO-22"`, `"PO-3"`, `17`} {
		mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"invoice","invoice_number":"INV-`+string(rune('A'+i))+`","po_reference":`+po+`,"approver":"Grace","Contact Phone":`+phones[i]+`}]}`)
	}
	out := mustSucceed(t, cs, "analyze_schema_candidates", `{"min_frequency":3,"min_confidence":0.7}`)
	assertJSON(t, out, `{
		"success": true,
		"recommendations": [{
			"entity_type": "invoice",
			"fields": [
				{"field_name": "Contact Phone", "field_type": "string", "frequency": 4, "confidence": 1, "type_consistency": 1, "format_consistency": 0.75,
					"sample_values": ["+44 20 7946", "555-0100", "555-0101", "555-0103"]},
				{"field_name": "approver", "field_type": "string", "frequency": 4, "confidence": 1, "type_consistency": 1, "naming_pattern_match": true, "format_consistency": 1, "sample_values": ["Grace"]},
				{"field_name": "po_reference", "field_type": "string", "frequency": 4, "confidence": 0.75, "type_consistency": 0.75, "naming_pattern_match": true, "format_consistency": 1,
					"sample_values": ["PO-1", "PO-22", "PO-3", 17]}
			],
			"source": "raw_fragments", "confidence_score": 0.9166666666666666,
			"reasoning": "3 raw-fragment field(s) carried by at least 3 invoice entities with consistent types"
		}],
		"total_entity_types": 1, "total_fields": 3, "min_frequency": 3, "min_confidence": 0.7,
		"suggestions": ["Call update_schema_incremental to add fields to the active schema of an entity type as a new schema version, active at once by default, so every later store uses them"],
		"warnings": []
	}`)
	strict := mustSucceed(t, cs, "analyze_schema_candidates", `{"entity_type":"invoice"}`)
	if !cmp.Equal(strict["recommendations"], []any{}) || strict["min_frequency"] != 5.0 || strict["min_confidence"] != 0.8 {
		t.Errorf("defaults (5 entities, 0.8) = %v, want no candidate", strict)
	}
}

// Every date field of an observation is a timeline event, newest first,
// filtered by type, date range and source.
func TestListTimelineEvents(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	first := mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"invoice","invoice_number":"INV-1","issue_date":"2024-01-15","due_date":"2024-02-15"}]}`)
	mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"invoice","invoice_number":"INV-2","issue_date":"2025-03-01T10:00:00Z"},{"entity_type":"task","title":"Pay INV-1","due_date":"2024-02-10"}]}`)
	src := first["source_id"].(string)
	inv1 := entityID("user-ada", "invoice", "invoice_number=inv-1")
	obs := first["entities"].([]any)[0].(map[string]any)["observation_id"].(string)
	out := mustSucceed(t, cs, "list_timeline_events", `{"event_type":"InvoiceIssue","after_date":"2024-01-01","before_date":"2025-01-01"}`)
	assertJSON(t, out, `{
		"success": true,
		"events": [{
			"id": "evt_`+runtime.ContentHash(obs, "issue_date")+`", "event_type": "InvoiceIssue",
			"event_timestamp": "2024-01-15T00:00:00Z", "source_id": "`+src+`", "entity_ids": ["`+inv1+`"],
			"properties": {"field": "issue_date", "value": "2024-01-15"}
		}],
		"total": 1, "suggestions": [], "warnings": []
	}`)
	var types []any
	for _, ev := range mustSucceed(t, cs, "list_timeline_events", `{}`)["events"].([]any) {
		types = append(types, ev.(map[string]any)["event_type"])
	}
	if diff := cmp.Diff([]any{"InvoiceIssue", "InvoiceDue", "TaskDue", "InvoiceIssue"}, types); diff != "" {
		t.Errorf("every event, newest first (-want +got):\n%s", diff)
	}
	if got := mustSucceed(t, cs, "list_timeline_events", `{"source_id":"`+src+`"}`); got["total"] != 2.0 {
		t.Errorf("events of the first source = %v", got)
	}
	bad, isErr := call(t, cs, "list_timeline_events", `{"after_date":"last week","before_date":"01/02/2024"}`)
	if diff := cmp.Diff([]string{"VALIDATION_ERROR@after_date", "VALIDATION_ERROR@before_date"}, codes(bad)); !isErr || diff != "" {
		t.Errorf("dates that are not ISO 8601 (-want +got):\n%s", diff)
	}
}

// The neighborhood of an entity and of a source.
func TestRetrieveGraphNeighborhood(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	stored := mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"invoice","invoice_number":"INV-1","issue_date":"2024-01-15"},{"entity_type":"company","name":"Acme"}]}`)
	src := stored["source_id"].(string)
	inv := entityID("user-ada", "invoice", "invoice_number=inv-1")
	acme := entityID("user-ada", "company", "name=acme")
	rel := relationshipOf(mustSucceed(t, cs, "create_relationship", `{"relationship_type":"refers_to","source_entity_id":"`+inv+`","target_entity_id":"`+acme+`"}`))
	out := mustSucceed(t, cs, "retrieve_graph_neighborhood", `{"node_id":"`+inv+`","include_events":false}`)
	assertJSON(t, out, `{
		"success": true,
		"node_id": "`+inv+`", "node_type": "entity",
		"entity": {"id": "`+inv+`", "entity_type": "invoice", "canonical_name": "INV-1", "observation_count": 1, "last_observation_at": "2026-03-01T09:00:00Z"},
		"entity_snapshot": {"invoice_number": "INV-1", "issue_date": "2024-01-15"},
		"relationships": [`+mustJSON(t, rel)+`],
		"related_entities": [{"id": "`+acme+`", "entity_type": "company", "canonical_name": "Acme", "snapshot": {"name": "Acme"}, "observation_count": 1, "last_observation_at": "2026-03-01T09:00:00Z"}],
		"related_sources": [{"id": "`+src+`", "created_at": "2026-03-01T09:00:00Z"}],
		"suggestions": [], "warnings": []
	}`)
	source := mustSucceed(t, cs, "retrieve_graph_neighborhood", `{"node_id":"`+src+`","node_type":"source","include_observations":true}`)
	if source["node_type"] != "source" || len(source["related_entities"].([]any)) != 2 || len(source["observations"].([]any)) != 2 || len(source["timeline_events"].([]any)) != 1 {
		t.Errorf("source neighborhood = %v", source)
	}
	bad, isErr := call(t, cs, "retrieve_graph_neighborhood", `{"node_id":"`+inv+`","node_type":"source"}`)
	if code, field, _ := errorOf(t, bad); !isErr || code != domain.CodeSourceNotFound || field != "node_id" {
		t.Errorf("entity id as a source = %v", bad)
	}
}

// Pending recommendations are raw-fragment candidates; applied ones are
// the fields update_schema_incremental added.
func TestGetSchemaRecommendations(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	for i := range 5 {
		mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"invoice","invoice_number":"INV-`+string(rune('A'+i))+`","approver":"Grace"}]}`)
	}
	pending := mustSucceed(t, cs, "get_schema_recommendations", `{"entity_type":"invoice"}`)
	assertJSON(t, pending, `{
		"success": true,
		"recommendations": [{
			"id": "rec_`+runtime.ContentHash(ada.TenantID, "user-ada", "invoice", "raw_fragments")+`", "entity_type": "invoice",
			"fields": [{"field_name": "approver", "field_type": "string", "required": false}], "source": "raw_fragments", "confidence_score": 1,
			"reasoning": "1 raw-fragment field(s) carried by at least 5 invoice entities with consistent types", "status": "pending"
		}],
		"total": 1, "entity_type": "invoice",
		"suggestions": ["Call update_schema_incremental to add fields to the active schema of an entity type as a new schema version, active at once by default, so every later store uses them"],
		"warnings": []
	}`)
	mustSucceed(t, cs, "update_schema_incremental", `{"entity_type":"invoice","fields_to_add":[{"field_name":"approver","field_type":"string"}],"migrate_existing":true}`)
	if got := mustSucceed(t, cs, "get_schema_recommendations", `{"entity_type":"invoice"}`); !cmp.Equal(got["recommendations"], []any{}) {
		t.Errorf("pending after promotion = %v, want none", got)
	}
	applied := mustSucceed(t, cs, "get_schema_recommendations", `{"entity_type":"invoice","status":"applied","source":"agent"}`)
	recs := applied["recommendations"].([]any)
	if len(recs) != 1 || !cmp.Equal(recs[0].(map[string]any)["fields"], []any{map[string]any{"field_name": "approver", "field_type": "string", "required": false}}) || recs[0].(map[string]any)["reasoning"] != "added by update_schema_incremental as global version 1.1" {
		t.Errorf("applied = %v", applied)
	}
	bad, isErr := call(t, cs, "get_schema_recommendations", `{"entity_type":"invoices","source":"agent","status":"applied"}`)
	if code, _, top := errorOf(t, bad); !isErr || code != runtime.CodeInvalidEnumValue || top != "invoice" {
		t.Errorf("unknown type = %v", bad)
	}
}

// relationshipOf is create_relationship's answer without the envelope's
// keys: the relationship as list_relationships lists it.
func relationshipOf(out map[string]any) map[string]any {
	r := map[string]any{}
	for k, v := range out {
		if k != "success" && k != "suggestions" && k != "warnings" {
			r[k] = v
		}
	}
	return r
}
