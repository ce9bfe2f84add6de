package neotoma_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1/neotomav1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// An unknown relationship type is answered with the document's code and
// the types as the document spells them (PART_OF), wherever a tool takes
// one: create_relationship's relationship_type and
// retrieve_related_entities' relationship_types alike.
func TestInvalidRelationshipTypeNamesTheDocumentsTypes(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	person, acme, _ := graph(t, cs)
	types := `["PART_OF","CORRECTS","REFERS_TO","SETTLES","DUPLICATE_OF","DEPENDS_ON","SUPERSEDES"]`
	out, isErr := call(t, cs, "create_relationship", `{"relationship_type":"parent_of","source_entity_id":"`+acme+`","target_entity_id":"`+person+`"}`)
	entry := `{"code": "INVALID_RELATIONSHIP_TYPE", "field": "relationship_type",
		"message": "invalid value \"pare…\" for relationship_type; did you mean \"PART_OF\"?",
		"suggestions": {"did_you_mean": ["PART_OF"], "valid_values": ` + types + `}}`
	if !isErr {
		t.Fatalf("parent_of = %v", out)
	}
	assertJSON(t, out, `{"success": false, "error": `+entry+`, "errors": [`+entry+`]}`)
	out, isErr = call(t, cs, "retrieve_related_entities", `{"entity_id":"`+acme+`","relationship_types":["REFERS_TO","owns"]}`)
	if !isErr {
		t.Fatalf("relationship_types owns = %v", out)
	}
	entry = `{"code": "INVALID_RELATIONSHIP_TYPE", "field": "relationship_types[1]",
		"message": "invalid value \"ow…\" for relationship_types[1]",
		"suggestions": {"valid_values": ` + types + `}}`
	assertJSON(t, out, `{"success": false, "error": `+entry+`, "errors": [`+entry+`]}`)
}

// Deduplication is per user: another user of the tenant storing the same
// material is told it is new, and gets a source, a run, observations and
// entities of its own, their ids unrelated to the first user's.
func TestDeduplicationIsPerUser(t *testing.T) {
	s := newServer(t)
	mustSucceed(t, s.connect(ada, nil), "store", invoiceArgs)
	out := mustSucceed(t, s.connect(grace, nil), "store", invoiceArgs)
	src, hash, run, obs := sourceOfUser(grace, `[{"amount":1250.5,"currency":"EUR","entity_type":"invoice","invoice_number":"INV-2024-001","po_reference":"PO-77","vendor":"Acme Supplies"}]`)
	assertJSON(t, out, `{
		"success": true,
		"source_id": "`+src+`",
		"content_hash": "`+hash+`",
		"deduplicated": false,
		"interpretation": {"run_id": "`+run+`", "entities_created": 1, "observations_created": 1},
		"entities": [{"entity_id": "`+entityID("user-grace", "invoice", "invoice_number=inv-2024-001")+`", "entity_type": "invoice", "observation_id": "`+obs+`", "created": true, "canonical_name": "INV-2024-001"}],
		"unknown_fields_count": 1,
		"suggestions": ["Call create_relationship to create a typed relationship between two entities", "Call correct to correct one field of an entity"],
		"warnings": []
	}`)
}

// A correction (priority 1000) beats material stored later at the highest
// priority a source may have (999), read through the snapshot tool.
func TestCorrectionOutranksTheHighestSourcePriority(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	mustSucceed(t, cs, "store", invoiceArgs)
	fix := mustSucceed(t, cs, "correct", `{"entity_id":"`+invoiceID+`","entity_type":"invoice","field":"amount","value":1300}`)["observation_id"]
	mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"invoice","invoice_number":"INV-2024-001","amount":999}],"source_priority":999}`)
	snap := mustSucceed(t, cs, "retrieve_entity_snapshot", `{"entity_id":"`+invoiceID+`"}`)
	if got := snap["snapshot"].(map[string]any)["amount"]; got != 1300.0 || snap["provenance"].(map[string]any)["amount"] != fix || snap["observation_count"] != 3.0 {
		t.Errorf("snapshot after a priority-999 store = %v, want the corrected 1300 from %v", snap, fix)
	}
}

// The neighborhood of a source: the source material itself, the entities
// it produced, their relationships, its timeline events and, when asked,
// its observations; the include flags leave parts out.
func TestRetrieveGraphNeighborhoodOfASource(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	stored := mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"invoice","invoice_number":"INV-1","issue_date":"2024-01-15"},{"entity_type":"company","name":"Acme"}]}`)
	src := stored["source_id"].(string)
	inv := entityID("user-ada", "invoice", "invoice_number=inv-1")
	acme := entityID("user-ada", "company", "name=acme")
	rel := relationshipOf(mustSucceed(t, cs, "create_relationship", `{"relationship_type":"REFERS_TO","source_entity_id":"`+inv+`","target_entity_id":"`+acme+`"}`))
	out := mustSucceed(t, cs, "retrieve_graph_neighborhood", `{"node_id":"`+src+`","node_type":"source","include_observations":true}`)
	run := "run_" + runtime.ContentHash(src, "structured")
	obsInv, obsAcme := "obs_"+runtime.ContentHash(run, "0"), "obs_"+runtime.ContentHash(run, "1")
	assertJSON(t, out, `{
		"success": true,
		"node_id": "`+src+`", "node_type": "source",
		"source_material": {"id": "`+src+`", "created_at": "2026-03-01T09:00:00Z"},
		"relationships": [`+mustJSON(t, rel)+`],
		"related_entities": [
			{"id": "`+acme+`", "entity_type": "company", "canonical_name": "Acme", "snapshot": {"name": "Acme"}, "observation_count": 1, "last_observation_at": "2026-03-01T09:00:00Z"},
			{"id": "`+inv+`", "entity_type": "invoice", "canonical_name": "INV-1", "snapshot": {"invoice_number": "INV-1", "issue_date": "2024-01-15"}, "observation_count": 1, "last_observation_at": "2026-03-01T09:00:00Z"}
		],
		"timeline_events": [{
			"id": "evt_`+runtime.ContentHash(obsInv, "issue_date")+`", "event_type": "InvoiceIssue", "event_timestamp": "2024-01-15T00:00:00Z",
			"source_id": "`+src+`", "entity_ids": ["`+inv+`"], "properties": {"field": "issue_date", "value": "2024-01-15"}
		}],
		"observations": [
			{"id": "`+obsAcme+`", "entity_id": "`+acme+`", "entity_type": "company", "schema_version": "1.0", "source_id": "`+src+`",
				"observed_at": "2026-03-01T09:00:00Z", "specificity_score": 1, "source_priority": 100, "fields": {"name": "Acme"}, "created_at": "2026-03-01T09:00:00Z"},
			{"id": "`+obsInv+`", "entity_id": "`+inv+`", "entity_type": "invoice", "schema_version": "1.0", "source_id": "`+src+`",
				"observed_at": "2026-03-01T09:00:00Z", "specificity_score": 1, "source_priority": 100, "fields": {"invoice_number": "INV-1", "issue_date": "2024-01-15"}, "created_at": "2026-03-01T09:00:00Z"}
		],
		"suggestions": [], "warnings": []
	}`)
	lean := mustSucceed(t, cs, "retrieve_graph_neighborhood", `{"node_id":"`+inv+`","include_relationships":false,"include_sources":false,"include_events":false}`)
	assertJSON(t, lean, `{
		"success": true,
		"node_id": "`+inv+`", "node_type": "entity",
		"entity": {"id": "`+inv+`", "entity_type": "invoice", "canonical_name": "INV-1", "observation_count": 1, "last_observation_at": "2026-03-01T09:00:00Z"},
		"entity_snapshot": {"invoice_number": "INV-1", "issue_date": "2024-01-15"},
		"suggestions": [], "warnings": []
	}`)
}

// list_relationships pages newest first and answers total, limit and
// offset; the type filter takes the document's spelling.
func TestListRelationshipsPages(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	person, acme, holding := graph(t, cs)
	partOf := relationshipOf(mustSucceed(t, cs, "create_relationship", `{"relationship_type":"PART_OF","source_entity_id":"`+acme+`","target_entity_id":"`+holding+`"}`))
	refers := relationshipOf(mustSucceed(t, cs, "create_relationship", `{"relationship_type":"REFERS_TO","source_entity_id":"`+person+`","target_entity_id":"`+acme+`"}`))
	out := mustSucceed(t, cs, "list_relationships", `{"entity_id":"`+acme+`","limit":1,"offset":1}`)
	assertJSON(t, out, `{"success": true, "relationships": [`+mustJSON(t, partOf)+`], "total": 2, "limit": 1, "offset": 1, "suggestions": [], "warnings": []}`)
	out = mustSucceed(t, cs, "list_relationships", `{"entity_id":"`+acme+`","relationship_type":"REFERS_TO"}`)
	assertJSON(t, out, `{"success": true, "relationships": [`+mustJSON(t, refers)+`], "total": 1, "limit": 100, "offset": 0, "suggestions": [], "warnings": []}`)
}

// retrieve_related_entities includes each entity's snapshot by default,
// filters by the document's relationship type names, and answers
// ENTITY_NOT_FOUND for a starting entity that does not exist.
func TestRetrieveRelatedEntitiesDefaultsAndErrors(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	person, acme, holding := graph(t, cs)
	partOf := relationshipOf(mustSucceed(t, cs, "create_relationship", `{"relationship_type":"PART_OF","source_entity_id":"`+acme+`","target_entity_id":"`+holding+`"}`))
	mustSucceed(t, cs, "create_relationship", `{"relationship_type":"REFERS_TO","source_entity_id":"`+person+`","target_entity_id":"`+acme+`"}`)
	out := mustSucceed(t, cs, "retrieve_related_entities", `{"entity_id":"`+acme+`","relationship_types":["PART_OF"]}`)
	assertJSON(t, out, `{
		"success": true,
		"entities": [{"id": "`+holding+`", "entity_type": "company", "canonical_name": "Acme Holding", "snapshot": {"name": "Acme Holding"}, "observation_count": 1, "last_observation_at": "2026-03-01T09:00:00Z"}],
		"relationships": [`+mustJSON(t, partOf)+`],
		"total_entities": 1, "total_relationships": 1, "hops_traversed": 1,
		"suggestions": [], "warnings": []
	}`)
	bad, isErr := call(t, cs, "retrieve_related_entities", `{"entity_id":"ent_00000000-0000-8000-8000-000000000000"}`)
	if !isErr {
		t.Fatalf("unknown entity = %v", bad)
	}
	entry := `{"code": "ENTITY_NOT_FOUND", "field": "entity_id", "message": "entity ent_00000000-0000-8000-8000-000000000000 not found",
		"details": {"entity_id": "ent_00000000-0000-8000-8000-000000000000"},
		"suggestions": {"hint": "Use an entity_id returned by store or retrieve_entities; entities are visible only to the user who stored them."}}`
	assertJSON(t, bad, `{"success": false, "error": `+entry+`, "errors": [`+entry+`]}`)
}

// list_timeline_events pages with limit and offset over the events newest
// first, total counting them all.
func TestListTimelineEventsPages(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	first := mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"invoice","invoice_number":"INV-1","issue_date":"2024-01-15","due_date":"2024-02-15"}]}`)
	src := first["source_id"].(string)
	inv1 := entityID("user-ada", "invoice", "invoice_number=inv-1")
	obs := first["entities"].([]any)[0].(map[string]any)["observation_id"].(string)
	out := mustSucceed(t, cs, "list_timeline_events", `{"limit":1,"offset":1}`)
	assertJSON(t, out, `{
		"success": true,
		"events": [{
			"id": "evt_`+runtime.ContentHash(obs, "issue_date")+`", "event_type": "InvoiceIssue",
			"event_timestamp": "2024-01-15T00:00:00Z", "source_id": "`+src+`", "entity_ids": ["`+inv1+`"],
			"properties": {"field": "issue_date", "value": "2024-01-15"}
		}],
		"total": 2, "suggestions": [], "warnings": []
	}`)
}

// The document's unit test (section 10.1): the same retrieve_entities
// query twice answers the same entities in the same order.
func TestDocumentDeterministicOrderExample(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"company","name":"Globex"},{"entity_type":"company","name":"Acme"},{"entity_type":"company","name":"Initech"}]}`)
	mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"company","name":"Hooli"}]}`)
	first := mustSucceed(t, cs, "retrieve_entities", `{"entity_type":"company"}`)
	second := mustSucceed(t, cs, "retrieve_entities", `{"entity_type":"company"}`)
	var names []any
	for _, e := range first["entities"].([]any) {
		names = append(names, e.(map[string]any)["canonical_name"])
	}
	if diff := cmp.Diff([]any{"Globex", "Acme", "Initech", "Hooli"}, names); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(first["entities"], second["entities"]); diff != "" {
		t.Errorf("the same query twice (-first +second):\n%s", diff)
	}
}

// The interpretation configuration, temperature and feature_flags
// included, decides the run: its id hashes the source and the canonical
// JSON of every setting given.
func TestInterpretationConfigDecidesTheRun(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	src := mustSucceed(t, cs, "store", `{"file_content":"Q2FsbCBBZGEgYWJvdXQgdGhlIFEzIGludm9pY2Uu","mime_type":"text/plain","interpret":false}`)["source_id"].(string)
	out := mustSucceed(t, cs, "reinterpret", `{"source_id":"`+src+`","interpretation_config":{"model_id":"m","temperature":0.2,"feature_flags":{"ocr":true}}}`)
	if want := runOf(src, `{"feature_flags":{"ocr":true},"model_id":"m","temperature":0.2}`); out["run_id"] != want {
		t.Errorf("run_id = %v, want %s", out["run_id"], want)
	}
	other := mustSucceed(t, cs, "reinterpret", `{"source_id":"`+src+`","interpretation_config":{"model_id":"m","temperature":0.2,"feature_flags":{"ocr":false}}}`)
	if want := runOf(src, `{"feature_flags":{"ocr":false},"model_id":"m","temperature":0.2}`); other["run_id"] != want || other["run_id"] == out["run_id"] {
		t.Errorf("run_id with ocr off = %v, want %s", other["run_id"], want)
	}
}

// Every action of the document that only reads is announced read-only
// (readOnlyHint, classification READ_ONLY); every write is not, with its
// classification.
func TestReadActionsAreReadOnly(t *testing.T) {
	want := map[string]string{
		"correct": "false SAFE_UPDATE", "create_relationship": "false SAFE_CREATE", "merge_entities": "false DESTRUCTIVE_UPDATE",
		"register_schema": "false SAFE_CREATE", "reinterpret": "false SAFE_UPDATE", "store": "false SAFE_CREATE",
		"update_schema_incremental": "false SAFE_UPDATE",
	}
	for _, r := range []string{"analyze_schema_candidates", "get_relationship_snapshot", "get_schema_recommendations", "list_entity_types",
		"list_observations", "list_relationships", "list_timeline_events", "retrieve_entities", "retrieve_entity_by_identifier",
		"retrieve_entity_snapshot", "retrieve_field_provenance", "retrieve_file_url", "retrieve_graph_neighborhood", "retrieve_related_entities"} {
		want[r] = "true READ_ONLY"
	}
	res, err := newServer(t).connect(ada, nil).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, tool := range res.Tools {
		if _, ok := want[tool.Name]; ok { // not the service tools
			got[tool.Name] = fmt.Sprintf("%v %v", tool.Annotations.ReadOnlyHint, tool.Meta["mcpwrite/classification"])
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("readOnlyHint and classification (-want +got):\n%s", diff)
	}
}

// retrieve_entity_snapshot's at recomputes the snapshot from the
// observations made up to that time: between the extraction and the
// correction the snapshot is the extracted one.
func TestRetrieveEntitySnapshotAtAPastTime(t *testing.T) {
	now := fixedNow
	clock := func() time.Time { return now }
	mem := domain.New(clock)
	srv := mcp.NewServer(&mcp.Implementation{Name: "neotoma", Version: "test"}, nil)
	err := neotomav1mcpwrite.RegisterMemoryServiceTools(srv, mem,
		runtime.WithClock(clock),
		runtime.WithRand(rand.NewChaCha8([32]byte{7})),
		runtime.WithErrorHook(domain.ErrorHook),
		runtime.WithVocabulary(mem.EntityTypeVocabulary()),
		runtime.WithRequestContextFunc(runtime.StaticRequestContext(ada)))
	if err != nil {
		t.Fatal(err)
	}
	cs := mcptest.Connect(t, srv, mcptest.Options{})
	obs := mcptest.Call(t, cs, "store", invoiceArgs).Body["entities"].([]any)[0].(map[string]any)["observation_id"].(string)
	now = fixedNow.Add(time.Hour)
	if r := mcptest.Call(t, cs, "correct", `{"entity_id":"`+invoiceID+`","entity_type":"invoice","field":"amount","value":1300}`); r.IsError {
		t.Fatalf("correct: %s", r.Text)
	}
	now = fixedNow.Add(2 * time.Hour)
	past := mcptest.Call(t, cs, "retrieve_entity_snapshot", `{"entity_id":"`+invoiceID+`","at":"2026-03-01T09:30:00Z"}`)
	assertJSON(t, past.Body, `{
		"success": true,
		"entity_id": "`+invoiceID+`", "entity_type": "invoice", "schema_version": "1.0", "canonical_name": "INV-2024-001",
		"snapshot": {"invoice_number": "INV-2024-001", "vendor": "Acme Supplies", "amount": 1250.5, "currency": "EUR"},
		"provenance": {"invoice_number": "`+obs+`", "vendor": "`+obs+`", "amount": "`+obs+`", "currency": "`+obs+`"},
		"computed_at": "2026-03-01T11:00:00Z",
		"observation_count": 1,
		"last_observation_at": "2026-03-01T09:00:00Z",
		"suggestions": ["Call list_observations to list the observations of an entity, newest first: what each source said about it", "Call correct to correct one field of an entity"],
		"warnings": []
	}`)
	current := mcptest.Call(t, cs, "retrieve_entity_snapshot", `{"entity_id":"`+invoiceID+`"}`).Body
	if current["snapshot"].(map[string]any)["amount"] != 1300.0 || current["observation_count"] != 2.0 || current["last_observation_at"] != "2026-03-01T10:00:00Z" {
		t.Errorf("current snapshot = %v, want the correction of 10:00", current)
	}
}

// An entity of another user of the tenant does not exist for the caller:
// merge_entities and create_relationship answer ENTITY_NOT_FOUND on each
// such id, the document's "not owned by user".
func TestAnotherUsersEntitiesAreNotFound(t *testing.T) {
	s := newServer(t)
	from, to := duplicates(t, s.connect(ada, nil))
	g := s.connect(grace, nil)
	out, isErr := call(t, g, "merge_entities", `{"from_entity_id":"`+from+`","to_entity_id":"`+to+`"}`)
	if diff := cmp.Diff([]string{"ENTITY_NOT_FOUND@from_entity_id", "ENTITY_NOT_FOUND@to_entity_id"}, codes(out)); !isErr || diff != "" {
		t.Errorf("grace merging ada's entities (-want +got):\n%s", diff)
	}
	out, isErr = call(t, g, "create_relationship", `{"relationship_type":"DUPLICATE_OF","source_entity_id":"`+from+`","target_entity_id":"`+to+`"}`)
	if diff := cmp.Diff([]string{"ENTITY_NOT_FOUND@source_entity_id", "ENTITY_NOT_FOUND@target_entity_id"}, codes(out)); !isErr || diff != "" {
		t.Errorf("grace relating ada's entities (-want +got):\n%s", diff)
	}
}

// An entity id is looked up as sent: one in no form the server makes is
// ENTITY_NOT_FOUND like any unknown id, an empty one CONSTRAINT_VIOLATION.
func TestMalformedEntityIDIsNotFound(t *testing.T) {
	cs := newServer(t).connect(ada, nil)
	out, isErr := call(t, cs, "retrieve_entity_snapshot", `{"entity_id":"hello world"}`)
	entry := `{"code": "ENTITY_NOT_FOUND", "field": "entity_id", "message": "entity hello world not found", "details": {"entity_id": "hello world"},
		"suggestions": {"hint": "Use an entity_id returned by store or retrieve_entities; entities are visible only to the user who stored them."}}`
	if !isErr {
		t.Fatalf("malformed id = %v", out)
	}
	assertJSON(t, out, `{"success": false, "error": `+entry+`, "errors": [`+entry+`]}`)
	out, _ = call(t, cs, "list_observations", `{"entity_id":""}`)
	if diff := cmp.Diff([]string{"CONSTRAINT_VIOLATION@entity_id"}, codes(out)); diff != "" {
		t.Errorf("empty id (-want +got):\n%s", diff)
	}
}

// list_entity_types without a keyword lists every type, search_method
// "all", without a similarity score or match type.
func TestListEntityTypesWithoutKeyword(t *testing.T) {
	out := mustSucceed(t, newServer(t).connect(ada, nil), "list_entity_types", `{}`)
	types := out["entity_types"].([]any)
	var names []string
	for _, e := range types {
		names = append(names, e.(map[string]any)["entity_type"].(string))
	}
	if diff := cmp.Diff(domain.BuiltinEntityTypes(), names); diff != "" {
		t.Errorf("types (-want +got):\n%s", diff)
	}
	delete(out, "entity_types")
	assertJSON(t, out, `{"success": true, "total": 16, "search_method": "all",
		"suggestions": ["Call store to store source material, a raw file for the server to interpret or structured entities, deduplicated by content hash", "Call register_schema to register a new entity type, or a new schema version of one: its fields and how observations of each field merge"],
		"warnings": []}`)
	assertJSON(t, types[0].(map[string]any), `{"entity_type": "agent_decision", "schema_version": "1.0", "scope": "global",
		"field_names": ["decided_at", "decision", "rationale", "title"],
		"field_summary": {"decided_at": {"type": "date", "required": false}, "decision": {"type": "string", "required": false}, "rationale": {"type": "string", "required": false}, "title": {"type": "string", "required": false}}}`)
}

// store's description gives agents the document's instructions: send the
// raw file and let the server interpret it, include ALL fields of the
// source data, and call list_entity_types before choosing entity_type.
func TestStoreDescriptionCarriesTheDocumentsInstructions(t *testing.T) {
	res, err := newServer(t).connect(ada, nil).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	const want = "Store source material, a raw file for the server to interpret or structured entities, deduplicated by content hash. " +
		"Unstructured: the raw file as file_content (base64) with its mime_type, or a file_path the server can read; " +
		"do NOT extract anything from the file first, the server interprets it (interpret: false defers that). " +
		"Structured: entities, each a flat object with entity_type and ALL fields of the source data (call list_entity_types first to choose entity_type); " +
		"fields outside the type's schema are kept as raw fragments, never dropped. The same content always gives the same source_id. " +
		"TIP: Call validate_write first to check for errors before committing."
	got := ""
	for _, tool := range res.Tools {
		if tool.Name == "store" {
			got = tool.Description
		}
	}
	if got != want {
		t.Errorf("store description = %q, want %q", got, want)
	}
}
