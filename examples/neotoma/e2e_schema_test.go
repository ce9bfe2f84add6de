package neotoma_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// schemaIDOf is the schema ID the server must derive: a hash of tenant,
// scope, user (user scope only), type and version.
func schemaIDOf(tenant, scope, user, typ, version string) string {
	return "sch_" + runtime.ContentHash(tenant, scope, user, typ, version)
}

const mealSchema = `{"entity_type":"meal","schema_definition":{"fields":{"name":{"type":"string","required":true},"calories":{"type":"number"},"eaten_on":{"type":"date"}}},"reducer_config":{"merge_policies":{"calories":{"strategy":"last_write"}}},"activate":true}`

// A new entity type registered at runtime is listed, validated and stored
// like a built-in one, for every user of the tenant.
func TestRegisterSchemaThenStore(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	out := mustSucceed(t, cs, "register_schema", mealSchema)
	assertJSON(t, out, `{
		"success": true,
		"entity_type": "meal", "schema_version": "1.0", "activated": true, "scope": "global",
		"schema_id": "`+schemaIDOf(ada.TenantID, "global", "", "meal", "1.0")+`",
		"suggestions": ["Call store to store source material, a raw file for the server to interpret or structured entities, deduplicated by content hash", "Call list_entity_types to list the entity types you can store, with each type's schema fields; keyword keeps the types whose name or field names contain it"],
		"warnings": []
	}`)
	types := mustSucceed(t, s.connect(grace, nil), "list_entity_types", `{"keyword":"meal"}`)
	assertJSON(t, types, `{
		"success": true,
		"entity_types": [{
			"entity_type": "meal", "schema_version": "1.0", "field_names": ["calories", "eaten_on", "name"],
			"field_summary": {"calories": {"type": "number", "required": false}, "eaten_on": {"type": "date", "required": false}, "name": {"type": "string", "required": true}},
			"similarity_score": 1, "match_type": "keyword", "scope": "global"
		}],
		"total": 1, "keyword": "meal", "search_method": "keyword_exact",
		"suggestions": ["Call store to store source material, a raw file for the server to interpret or structured entities, deduplicated by content hash", "Call register_schema to register a new entity type, or a new schema version of one: its fields and how observations of each field merge"],
		"warnings": []
	}`)
	stored := mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"meal","name":"Porridge","calories":350,"eaten_on":"2026-02-28","oats":"rolled"}]}`)
	meal := entityID("user-ada", "meal", "name=porridge")
	if stored["unknown_fields_count"] != 1.0 || stored["entities"].([]any)[0].(map[string]any)["entity_id"] != meal {
		t.Errorf("store meal = %v", stored)
	}
	if got := s.rec.EntityTypes(context.Background(), ada.TenantID); !cmp.Equal(got, withMeal()) {
		t.Errorf("EntityTypes = %v", got)
	}
	// The schema's types and required fields are enforced.
	out, isErr := call(t, cs, "store", `{"entities":[{"entity_type":"meal","calories":"many","eaten_on":"yesterday"}]}`)
	if diff := cmp.Diff([]string{"VALIDATION_ERROR@entities[0].calories", "VALIDATION_ERROR@entities[0].eaten_on", "VALIDATION_ERROR@entities[0].name"}, codes(out)); !isErr || diff != "" {
		t.Errorf("meal with wrong types and no name (-want +got):\n%s", diff)
	}
	msgs := []string{}
	for _, e := range out["errors"].([]any) {
		msgs = append(msgs, e.(map[string]any)["message"].(string))
	}
	if diff := cmp.Diff([]string{"calories of a meal must be a number", "eaten_on of a meal must be an ISO 8601 date (YYYY-MM-DD or RFC 3339)", "name of a meal is required by schema version 1.0"}, msgs); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

func withMeal() []string {
	out := append([]string{}, domain.BuiltinEntityTypes()...)
	for i, t := range out {
		if t > "meal" {
			return append(out[:i], append([]string{"meal"}, out[i:]...)...)
		}
	}
	return append(out, "meal")
}

// The document's default is activate: false; store refuses the type until
// a version is active, and says how to activate one.
func TestRegisteredSchemaIsInactiveByDefault(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	out := mustSucceed(t, cs, "register_schema", strings.Replace(mealSchema, `,"activate":true`, ``, 1))
	if out["activated"] != false || out["schema_version"] != "1.0" {
		t.Errorf("register without activate = %v", out)
	}
	got, isErr := call(t, cs, "store", `{"entities":[{"entity_type":"meal","name":"Porridge"}]}`)
	if code, field, _ := errorOf(t, got); !isErr || code != runtime.CodeValidation || field != "entities[0].entity_type" {
		t.Fatalf("store of an inactive type = %v", got)
	}
	if hint := got["error"].(map[string]any)["suggestions"].(map[string]any)["hint"]; hint != "Entity type meal is registered but no version is active: register_schema with activate: true, or update_schema_incremental, activates one." {
		t.Errorf("hint = %v", hint)
	}
}

// The entity type is checked against the tenant's registered types; the
// error lists them and names the closest.
func TestUnknownEntityTypeListsRegisteredTypes(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	out, isErr := call(t, cs, "store", `{"entities":[{"entity_type":"invoices","invoice_number":"INV-1"}]}`)
	if !isErr {
		t.Fatalf("want isError, got %v", out)
	}
	builtin := domain.BuiltinEntityTypes()
	valid := make([]any, len(builtin))
	for i, b := range builtin {
		valid[i] = b
	}
	e := out["error"].(map[string]any)
	want := map[string]any{
		"code":    "VALIDATION_ERROR",
		"field":   "entities[0].entity_type",
		"message": `unknown entity type "invo…"; registered types: ` + strings.Join(builtin, ", "),
		"suggestions": map[string]any{
			"did_you_mean": []any{"invoice"},
			"valid_values": valid,
			"hint":         "Call list_entity_types to choose a type, or register_schema to register a new one.",
		},
	}
	if diff := cmp.Diff(want, e); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
	// The document's types: nine domain types and the seven codebase types.
	document := []string{"agent_decision", "agent_session", "architectural_decision", "codebase_entity", "company", "contact",
		"contract", "feature_unit", "invoice", "note", "person", "receipt", "release", "task", "transaction", "validation_result"}
	if diff := cmp.Diff(document, builtin); diff != "" {
		t.Errorf("built-in types (-document +got):\n%s", diff)
	}
}

func TestRegisterSchemaMistakes(t *testing.T) {
	tests := []struct {
		name               string
		args               string
		wantCodes          []string
		wantField, wantTop string
		wantMessage        string
	}{
		{
			name:        "built-in type at its existing version",
			args:        `{"entity_type":"invoice","schema_definition":{"fields":{"invoice_number":{"type":"string"}}},"reducer_config":{"merge_policies":{}}}`,
			wantCodes:   []string{"SCHEMA_EXISTS@schema_version"},
			wantField:   "schema_version",
			wantTop:     "Register a higher schema_version, or add fields with update_schema_incremental.",
			wantMessage: "schema version 1.0 of invoice already exists (global scope)",
		},
		{
			name:        "merge policy for a misspelled field",
			args:        `{"entity_type":"meal","schema_definition":{"fields":{"calories":{"type":"number"}}},"reducer_config":{"merge_policies":{"calorie":{"strategy":"last_write"}}}}`,
			wantCodes:   []string{"VALIDATION_ERROR@reducer_config.merge_policies.calorie"},
			wantField:   "reducer_config.merge_policies.calorie",
			wantTop:     "calories",
			wantMessage: "merge policy for calorie, which is not a field of the schema",
		},
		{
			name:        "merge_array on a number",
			args:        `{"entity_type":"meal","schema_definition":{"fields":{"calories":{"type":"number"}}},"reducer_config":{"merge_policies":{"calories":{"strategy":"merge_array"}}}}`,
			wantCodes:   []string{"VALIDATION_ERROR@reducer_config.merge_policies.calories.strategy"},
			wantField:   "reducer_config.merge_policies.calories.strategy",
			wantTop:     "Use last_write or highest_priority for fields that are not arrays.",
			wantMessage: "merge_array joins arrays, and calories is a number field",
		},
		{
			name:        "a schema without fields",
			args:        `{"entity_type":"meal","schema_definition":{},"reducer_config":{}}`,
			wantCodes:   []string{"VALIDATION_ERROR@schema_definition.fields"},
			wantField:   "schema_definition.fields",
			wantMessage: "a schema needs at least one field",
		},
		{
			name:      "field type outside the document's list",
			args:      `{"entity_type":"meal","schema_definition":{"fields":{"name":{"type":"text"}}},"reducer_config":{}}`,
			wantCodes: []string{"INVALID_ENUM_VALUE@schema_definition.fields.name.type"},
			wantField: "schema_definition.fields.name.type", wantTop: "",
		},
		{
			name:      "capitalised type name",
			args:      `{"entity_type":"Meal","schema_definition":{"fields":{"name":{"type":"string"}}},"reducer_config":{}}`,
			wantCodes: []string{"CONSTRAINT_VIOLATION@entity_type"},
			wantField: "entity_type",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t)
			out, isErr := call(t, s.connect(ada, nil), "register_schema", tt.args)
			if !isErr {
				t.Fatalf("want isError, got %v", out)
			}
			if diff := cmp.Diff(tt.wantCodes, codes(out)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			_, field, top := errorOf(t, out)
			if field != tt.wantField || (tt.wantTop != "" && top != tt.wantTop) {
				t.Errorf("field, top suggestion = %q, %q; want %q, %q", field, top, tt.wantField, tt.wantTop)
			}
			if msg := out["error"].(map[string]any)["message"]; tt.wantMessage != "" && msg != tt.wantMessage {
				t.Errorf("message = %q, want %q", msg, tt.wantMessage)
			}
		})
	}
}

// A user-specific schema serves its user only and wins over the tenant's.
func TestUserSpecificSchema(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	out := mustSucceed(t, cs, "register_schema", `{"entity_type":"workout","schema_definition":{"fields":{"name":{"type":"string"},"minutes":{"type":"number"}}},"reducer_config":{"merge_policies":{}},"user_specific":true,"activate":true}`)
	if out["scope"] != "user" || out["schema_id"] != schemaIDOf(ada.TenantID, "user", "user-ada", "workout", "1.0") {
		t.Errorf("user-specific registration = %v", out)
	}
	mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"workout","name":"Run","minutes":30}]}`)
	got, isErr := call(t, s.connect(grace, nil), "store", `{"entities":[{"entity_type":"workout","name":"Run","minutes":30}]}`)
	if code, field, _ := errorOf(t, got); !isErr || code != runtime.CodeValidation || field != "entities[0].entity_type" {
		t.Errorf("grace storing ada's type = %v", got)
	}
	// Ada's own variant of invoice adds a field for her only.
	mustSucceed(t, cs, "update_schema_incremental", `{"entity_type":"invoice","fields_to_add":[{"field_name":"cost_center","field_type":"string"}],"user_specific":true}`)
	ai := mustSucceed(t, cs, "list_entity_types", `{"keyword":"cost_center"}`)
	gi := mustSucceed(t, s.connect(grace, nil), "list_entity_types", `{"keyword":"cost_center"}`)
	if ai["total"] != 1.0 || ai["entity_types"].([]any)[0].(map[string]any)["scope"] != "user" || gi["total"] != 0.0 {
		t.Errorf("cost_center: ada %v, grace %v", ai, gi)
	}
}

// The document's manual enhancement workflow: an unknown field lands in
// raw fragments, update_schema_incremental promotes it, and migrate_existing
// backfills the stored entity.
func TestUpdateSchemaIncrementalPromotesRawFragment(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	mustSucceed(t, cs, "store", invoiceArgs)
	out := mustSucceed(t, cs, "update_schema_incremental", `{"entity_type":"invoice","fields_to_add":[{"field_name":"po_reference","field_type":"string"}],"migrate_existing":true}`)
	assertJSON(t, out, `{
		"success": true,
		"entity_type": "invoice", "schema_version": "1.1", "fields_added": ["po_reference"],
		"activated": true, "migrated_existing": true, "scope": "global", "fragments_migrated": 1,
		"suggestions": ["Call store to store source material, a raw file for the server to interpret or structured entities, deduplicated by content hash", "Call list_entity_types to list the entity types you can store, with each type's schema fields; keyword keeps the types whose name or field names contain it"],
		"warnings": []
	}`)
	if snap, _ := s.rec.Snapshot(ada.TenantID, ada.PrincipalID, invoiceID); snap["po_reference"] != "PO-77" {
		t.Errorf("snapshot after migration = %v, want po_reference backfilled", snap)
	}
	// New material uses the new version at once.
	next := mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"invoice","invoice_number":"INV-2","po_reference":"PO-78"}]}`)
	if _, ok := next["unknown_fields_count"]; ok {
		t.Errorf("po_reference is still unknown: %v", next)
	}
	obs := mustSucceed(t, cs, "list_observations", `{"entity_id":"`+entityID("user-ada", "invoice", "invoice_number=inv-2")+`"}`)
	if v := obs["observations"].([]any)[0].(map[string]any)["schema_version"]; v != "1.1" {
		t.Errorf("observation schema_version = %v, want 1.1", v)
	}
}

func TestUpdateSchemaIncrementalMistakes(t *testing.T) {
	for _, tt := range []struct{ name, args, code, field, top, message string }{
		{"type that is not registered", `{"entity_type":"invoices","fields_to_add":[{"field_name":"x","field_type":"string"}]}`, domain.CodeSchemaNotFound, "entity_type", "invoice", `invalid value "invo…" for entity_type; did you mean "invoice"?`},
		{"field the schema has", `{"entity_type":"invoice","fields_to_add":[{"field_name":"amount","field_type":"number"}]}`, runtime.CodeValidation, "fields_to_add[0].field_name", "", "amount is already a field of the invoice schema (version 1.0)"},
		{"version that exists", `{"entity_type":"invoice","fields_to_add":[{"field_name":"x","field_type":"string"}],"schema_version":"1.0"}`, domain.CodeSchemaExists, "schema_version", "Register a higher schema_version, or add fields with update_schema_incremental.", "schema version 1.0 of invoice already exists (global scope)"},
		{"no fields", `{"entity_type":"invoice","fields_to_add":[]}`, runtime.CodeConstraintViolation, "fields_to_add", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t)
			out, isErr := call(t, s.connect(ada, nil), "update_schema_incremental", tt.args)
			code, field, top := errorOf(t, out)
			msg := out["error"].(map[string]any)["message"]
			if !isErr || code != tt.code || field != tt.field || (tt.top != "" && top != tt.top) || (tt.message != "" && msg != tt.message) {
				t.Errorf("got %v; want %s on %s (%q): %s", out, tt.code, tt.field, tt.top, tt.message)
			}
		})
	}
	// The document's SCHEMA_NOT_FOUND: a type registered without activate
	// has no active schema to add fields to.
	s := newServer(t)
	cs := s.connect(ada, nil)
	mustSucceed(t, cs, "register_schema", strings.Replace(mealSchema, `,"activate":true`, ``, 1))
	out, isErr := call(t, cs, "update_schema_incremental", `{"entity_type":"meal","fields_to_add":[{"field_name":"x","field_type":"string"}]}`)
	if !isErr {
		t.Fatalf("update of an inactive type: %v", out)
	}
	got := out["error"].(map[string]any)
	delete(got["suggestions"].(map[string]any), "valid_values")
	assertJSON(t, got, `{"code":"SCHEMA_NOT_FOUND","field":"entity_type",
		"message":"invalid value \"me…\" for entity_type",
		"suggestions":{"hint":"`+domain.SchemaNotFoundHint+`"}}`)
}

// Merge policies decide the snapshot: last_write takes the latest value
// whatever its priority, merge_array joins arrays, corrections still win.
func TestMergePoliciesShapeTheSnapshot(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	mustSucceed(t, cs, "register_schema", `{"entity_type":"reading","schema_definition":{"fields":{"title":{"type":"string"},"score":{"type":"number"},"tags":{"type":"array"},"author":{"type":"string"}}},"reducer_config":{"merge_policies":{"score":{"strategy":"last_write"},"tags":{"strategy":"merge_array"}}},"activate":true}`)
	mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"reading","title":"Notes on the Engine","score":1,"tags":["math"],"author":"A. Lovelace"}],"source_priority":500}`)
	mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"reading","title":"Notes on the Engine","score":2,"tags":["history","math"],"author":"Ada"}],"source_priority":100}`)
	id := entityID("user-ada", "reading", "title=notes on the engine")
	snap, _ := s.rec.Snapshot(ada.TenantID, ada.PrincipalID, id)
	want := map[string]any{"title": "Notes on the Engine", "score": 2.0, "tags": []any{"math", "history"}, "author": "A. Lovelace"}
	if diff := cmp.Diff(want, snap); diff != "" {
		t.Errorf("snapshot (-want +got):\n%s", diff)
	}
	mustSucceed(t, cs, "correct", `{"entity_id":"`+id+`","entity_type":"reading","field":"score","value":9}`)
	if snap, _ := s.rec.Snapshot(ada.TenantID, ada.PrincipalID, id); snap["score"] != 9.0 {
		t.Errorf("score after correction = %v, want 9", snap["score"])
	}
}

// The document's reconciliation: a field one user added to their own
// variant is promoted to the global schema with update_schema_incremental
// (user_specific false), after which every user of the tenant stores it as
// a schema field.
func TestUserFieldIsPromotedToTheGlobalSchema(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	mustSucceed(t, cs, "update_schema_incremental", `{"entity_type":"invoice","fields_to_add":[{"field_name":"cost_center","field_type":"string"}],"user_specific":true}`)
	g := s.connect(grace, nil)
	if gi := mustSucceed(t, g, "list_entity_types", `{"keyword":"cost_center"}`); gi["total"] != 0.0 || !cmp.Equal(gi["entity_types"], []any{}) {
		t.Fatalf("before promotion grace sees %v", gi)
	}
	out := mustSucceed(t, cs, "update_schema_incremental", `{"entity_type":"invoice","fields_to_add":[{"field_name":"cost_center","field_type":"string"}]}`)
	// The document's update_schema_incremental response, every member
	// present: migrated_existing false without migrate_existing.
	assertJSON(t, out, `{
		"success": true,
		"entity_type": "invoice", "schema_version": "1.1", "fields_added": ["cost_center"],
		"activated": true, "migrated_existing": false, "scope": "global",
		"suggestions": ["Call store to store source material, a raw file for the server to interpret or structured entities, deduplicated by content hash", "Call list_entity_types to list the entity types you can store, with each type's schema fields; keyword keeps the types whose name or field names contain it"],
		"warnings": []
	}`)
	gi := mustSucceed(t, g, "list_entity_types", `{"keyword":"cost_center"}`)
	types, _ := gi["entity_types"].([]any)
	if gi["total"] != 1.0 || len(types) != 1 || types[0].(map[string]any)["scope"] != "global" {
		t.Fatalf("after promotion grace sees %v", gi)
	}
	stored := mustSucceed(t, g, "store", `{"entities":[{"entity_type":"invoice","invoice_number":"INV-9","cost_center":"R&D"}]}`)
	if snap, _ := s.rec.Snapshot(grace.TenantID, grace.PrincipalID, entityID("user-grace", "invoice", "invoice_number=inv-9")); snap["cost_center"] != "R&D" {
		t.Fatalf("grace's invoice after promotion: %v (store answered %v)", snap, stored)
	}
}
