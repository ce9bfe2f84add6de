package neotoma_test

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// register_schema's field options all take effect: description and
// validator are listed with the field, the validator refuses a value that
// fails it (store and correct, without quoting the value), preserveCase
// keeps an identifying value's case, and a tie_breaker of source_priority
// decides last_write between observations made at the same time.
func TestRegisterSchemaFieldOptionsTakeEffect(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	mustSucceed(t, cs, "register_schema", `{"entity_type":"account","schema_definition":{"fields":{
		"name":{"type":"string","required":true,"preserveCase":true,"description":"Login handle"},
		"email":{"type":"string","validator":"email"},
		"score":{"type":"number"},"level":{"type":"number"}}},
		"reducer_config":{"merge_policies":{"score":{"strategy":"last_write","tie_breaker":"source_priority"},"level":{"strategy":"last_write"}}},"activate":true}`)
	types := mustSucceed(t, cs, "list_entity_types", `{"keyword":"account"}`)
	if diff := cmp.Diff(map[string]any{
		"name":  map[string]any{"type": "string", "required": true, "description": "Login handle"},
		"email": map[string]any{"type": "string", "required": false, "validator": "email"},
		"score": map[string]any{"type": "number", "required": false},
		"level": map[string]any{"type": "number", "required": false},
	}, types["entity_types"].([]any)[0].(map[string]any)["field_summary"]); diff != "" {
		t.Errorf("field_summary (-want +got):\n%s", diff)
	}

	bad, isErr := call(t, cs, "store", `{"entities":[{"entity_type":"account","name":"McKay","email":"mckay at example"}]}`)
	entry := `{"code": "VALIDATION_ERROR", "field": "entities[0].email", "message": "email of an account must be a valid email",
		"details": {"reason": "VALIDATOR_FAILED", "validator": "email"}}`
	if !isErr {
		t.Fatalf("store of an invalid email = %v", bad)
	}
	assertJSON(t, bad, `{"success": false, "error": `+entry+`, "errors": [`+entry+`]}`)

	// preserveCase: McKay and MCKAY are two accounts.
	mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"account","name":"McKay","email":"mckay@example.org","score":1,"level":1}],"source_priority":200}`)
	mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"account","name":"McKay","score":2,"level":2}],"source_priority":50}`)
	mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"account","name":"MCKAY"}]}`)
	id := entityID("user-ada", "account", "name=McKay")
	if got := mustSucceed(t, cs, "retrieve_entities", `{"entity_type":"account","include_snapshots":false}`); got["total"] != 2.0 {
		t.Errorf("accounts McKay and MCKAY = %v, want two", got)
	}
	// Stored at the same time: score goes to the higher priority, level to
	// the later observation.
	snap := mustSucceed(t, cs, "retrieve_entity_snapshot", `{"entity_id":"`+id+`"}`)["snapshot"]
	if diff := cmp.Diff(map[string]any{"name": "McKay", "email": "mckay@example.org", "score": 1.0, "level": 2.0}, snap); diff != "" {
		t.Errorf("snapshot (-want +got):\n%s", diff)
	}
	bad, isErr = call(t, cs, "correct", `{"entity_id":"`+id+`","entity_type":"account","field":"email","value":"mckay"}`)
	entry = `{"code": "VALIDATION_ERROR", "field": "value", "message": "email of an account must be a valid email",
		"details": {"reason": "VALIDATOR_FAILED", "validator": "email"}}`
	if !isErr {
		t.Fatalf("correction to an invalid email = %v", bad)
	}
	assertJSON(t, bad, `{"success": false, "error": `+entry+`, "errors": [`+entry+`]}`)
}

// A validator must name one of the checks, on a string field.
func TestRegisterSchemaRefusesUnknownValidators(t *testing.T) {
	s := newServer(t)
	out, isErr := call(t, s.connect(ada, nil), "register_schema", `{"entity_type":"account","schema_definition":{"fields":{
		"email":{"type":"string","validator":"emial"},"age":{"type":"number","validator":"uuid"}}},"reducer_config":{}}`)
	if !isErr {
		t.Fatalf("unknown validators = %v", out)
	}
	age := `{"code": "VALIDATION_ERROR", "field": "schema_definition.fields.age.validator",
		"message": "validator uuid checks strings, and the field is of type number",
		"suggestions": {"hint": "Set a validator on string fields only."}}`
	email := `{"code": "VALIDATION_ERROR", "field": "schema_definition.fields.email.validator",
		"message": "unknown validator \"em…\"",
		"suggestions": {"did_you_mean": ["email"], "valid_values": ["email", "url", "uuid"]}}`
	assertJSON(t, out, `{"success": false, "error": `+age+`, "errors": [`+age+`, `+email+`]}`)
}

// update_schema_incremental's field options: required and reducer_strategy
// apply to the new version; an explicit schema_version with activate
// false registers a version that does not serve stores.
func TestUpdateSchemaIncrementalFieldOptions(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	out := mustSucceed(t, cs, "update_schema_incremental", `{"entity_type":"invoice","fields_to_add":[{"field_name":"approver","field_type":"string","required":true}],"schema_version":"2.0","activate":false}`)
	assertJSON(t, out, `{
		"success": true,
		"entity_type": "invoice", "schema_version": "2.0", "fields_added": ["approver"],
		"activated": false, "migrated_existing": false, "scope": "global",
		"suggestions": ["Call store to store source material, a raw file for the server to interpret or structured entities, deduplicated by content hash", "Call list_entity_types to list the entity types you can store, with each type's schema fields; keyword keeps the types whose name or field names contain it"],
		"warnings": []
	}`)
	// Version 1.0 still serves: approver is not required, and unknown.
	if got := mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"invoice","invoice_number":"INV-1","approver":"Grace"}]}`); got["unknown_fields_count"] != 1.0 {
		t.Errorf("store under the active 1.0 = %v, want approver a raw fragment", got)
	}
	out = mustSucceed(t, cs, "update_schema_incremental", `{"entity_type":"invoice","fields_to_add":[{"field_name":"approver","field_type":"string","required":true,"reducer_strategy":"last_write"}]}`)
	if out["schema_version"] != "1.1" || out["activated"] != true {
		t.Fatalf("second update = %v, want 1.1 active", out)
	}
	bad, isErr := call(t, cs, "store", `{"entities":[{"entity_type":"invoice","invoice_number":"INV-2"}]}`)
	if diff := cmp.Diff([]string{"VALIDATION_ERROR@entities[0].approver"}, codes(bad)); !isErr || diff != "" {
		t.Errorf("invoice without the required approver (-want +got):\n%s", diff)
	}
	mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"invoice","invoice_number":"INV-2","approver":"Ada"}],"source_priority":500}`)
	mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"invoice","invoice_number":"INV-2","approver":"Grace"}],"source_priority":10}`)
	snap := mustSucceed(t, cs, "retrieve_entity_snapshot", `{"entity_id":"`+entityID("user-ada", "invoice", "invoice_number=inv-2")+`"}`)["snapshot"]
	if diff := cmp.Diff(map[string]any{"invoice_number": "INV-2", "approver": "Grace"}, snap); diff != "" {
		t.Errorf("approver under last_write (-want +got):\n%s", diff)
	}
}

// Schema resolution: a user's own variant serves that user's stores (its
// field is a schema field), while another user of the tenant stores the
// same field as a raw fragment under the global schema.
func TestUserSpecificSchemaResolvesFirst(t *testing.T) {
	s := newServer(t)
	cs, g := s.connect(ada, nil), s.connect(grace, nil)
	mustSucceed(t, cs, "update_schema_incremental", `{"entity_type":"invoice","fields_to_add":[{"field_name":"cost_center","field_type":"string"}],"user_specific":true}`)
	const inv = `{"entities":[{"entity_type":"invoice","invoice_number":"INV-5","cost_center":"R&D"}]}`
	if got := mustSucceed(t, cs, "store", inv); got["unknown_fields_count"] != nil {
		t.Errorf("ada's store = %v, want cost_center a schema field", got)
	}
	if got := mustSucceed(t, g, "store", inv); got["unknown_fields_count"] != 1.0 {
		t.Errorf("grace's store = %v, want cost_center a raw fragment", got)
	}
	id := `{"entity_id":"` + entityID("user-ada", "invoice", "invoice_number=inv-5") + `"}`
	if got := mustSucceed(t, cs, "retrieve_entity_snapshot", id); got["schema_version"] != "1.1" || got["snapshot"].(map[string]any)["cost_center"] != "R&D" {
		t.Errorf("ada's invoice = %v, want schema 1.1 with cost_center", got)
	}
	id = `{"entity_id":"` + entityID("user-grace", "invoice", "invoice_number=inv-5") + `"}`
	if got := mustSucceed(t, g, "retrieve_entity_snapshot", id); got["schema_version"] != "1.0" || got["snapshot"].(map[string]any)["cost_center"] != nil {
		t.Errorf("grace's invoice = %v, want schema 1.0 without cost_center", got)
	}
}

// sample_values are the values as sent (numbers as numbers), at most 10,
// the same 10 whatever order the entities were stored in.
func TestSchemaCandidateSamplesAreTheFirstTenValues(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	for _, n := range []int{12, 3, 7, 1, 11, 5, 9, 2, 10, 4, 8, 6} {
		mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"invoice","invoice_number":"INV-`+strconv.Itoa(n)+`","seats":`+strconv.Itoa(n)+`}]}`)
	}
	out := mustSucceed(t, cs, "analyze_schema_candidates", `{"entity_type":"invoice"}`)
	got := out["recommendations"].([]any)[0].(map[string]any)["fields"].([]any)[0].(map[string]any)["sample_values"]
	if diff := cmp.Diff([]any{1.0, 10.0, 11.0, 12.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0}, got); diff != "" {
		t.Errorf("sample_values (-want +got):\n%s", diff)
	}
}

// The schema field types are the document's six, listed when another is sent.
func TestSchemaFieldTypesAreTheDocumentsSix(t *testing.T) {
	out, isErr := call(t, newServer(t).connect(ada, nil), "register_schema", `{"entity_type":"meal","schema_definition":{"fields":{"name":{"type":"text"}}},"reducer_config":{}}`)
	entry := `{"code": "INVALID_ENUM_VALUE", "field": "schema_definition.fields.name.type", "message": "invalid value \"te…\" for type",
		"suggestions": {"valid_values": ["string", "number", "date", "boolean", "array", "object"]}}`
	if !isErr {
		t.Fatalf("type text = %v", out)
	}
	assertJSON(t, out, `{"success": false, "error": `+entry+`, "errors": [`+entry+`]}`)
}
