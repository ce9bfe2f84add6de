package neotoma_test

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// registerMeal registers and activates the meal type, as register_schema's
// documented example does.
const registerMeal = `{"entity_type":"meal","schema_definition":{"fields":{"name":{"type":"string","required":true},"calories":{"type":"number"},"eaten_on":{"type":"date"}}},"reducer_config":{"merge_policies":{}},"activate":true}`

// liveTypes is what get_write_schema lists for a tool's entity_type field:
// the value of each entity type the caller can use, with its description.
func liveTypes(t *testing.T, cs *mcp.ClientSession, tool string) map[string]string {
	t.Helper()
	out := mustSucceed(t, cs, "get_write_schema", `{"operation":"`+tool+`"}`)
	vs, _ := out["vocabularies"].([]any)
	if len(vs) != 1 {
		t.Fatalf("%s: vocabularies = %v, want the entity_type field", tool, out["vocabularies"])
	}
	v := vs[0].(map[string]any)
	if v["field"] != "entity_type" || v["vocabulary"] != "entity_type" {
		t.Fatalf("%s: vocabulary entry %v", tool, v)
	}
	types := map[string]string{}
	for _, x := range v["values"].([]any) {
		e := x.(map[string]any)
		d, _ := e["description"].(string)
		types[e["value"].(string)] = d
	}
	return types
}

func typeNames(types map[string]string) []string {
	out := make([]string, 0, len(types))
	for k := range types {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// invalidType is the answer to an entity_type outside the caller's types;
// shown is the excerpt of the value the message quotes (never all of it).
func invalidType(shown string, types []string, didYouMean ...string) string {
	msg := `invalid value \"` + shown + `\" for entity_type`
	sugg := ""
	if len(didYouMean) > 0 {
		msg += `; did you mean \"` + didYouMean[0] + `\"?`
		b, _ := json.Marshal(didYouMean)
		sugg = `"did_you_mean":` + string(b) + `,`
	}
	vv, _ := json.Marshal(types)
	e := `{"code":"INVALID_ENUM_VALUE","message":"` + msg + `","field":"entity_type","suggestions":{` + sugg +
		`"valid_values":` + string(vv) + `,"hint":"the entity_type values of this tenant; get_write_schema lists them"}}`
	return `{"success":false,"error":` + e + `,"errors":[` + e + `]}`
}

// An entity type registered while the server runs is an entity_type value
// of the tools at once, listed by get_write_schema, without registering the
// tools again; a near miss gets a did-you-mean to it.
func TestRegisteredEntityTypeIsALiveValue(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	builtin := domain.BuiltinEntityTypes()
	before := liveTypes(t, cs, "retrieve_entities")
	if got := typeNames(before); !cmp.Equal(got, builtin) {
		t.Fatalf("types before = %v, want the built-in %v", got, builtin)
	}
	if d := before["invoice"]; d != "Fields: amount, currency, due_date, invoice_number, issue_date, status, vendor" {
		t.Errorf("invoice description = %q", d)
	}
	out, isErr := call(t, cs, "retrieve_entities", `{"entity_type":"meal"}`)
	assertJSON(t, out, invalidType("me…", builtin))
	if !isErr {
		t.Error("want isError")
	}

	mustSucceed(t, cs, "register_schema", registerMeal)

	withMeal := append(append([]string{}, builtin...), "meal")
	sort.Strings(withMeal)
	after := liveTypes(t, cs, "retrieve_entities")
	if got := typeNames(after); !cmp.Equal(got, withMeal) {
		t.Fatalf("types after register_schema = %v, want %v", got, withMeal)
	}
	if d := after["meal"]; d != "Fields: calories, eaten_on, name" {
		t.Errorf("meal description = %q", d)
	}
	mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"meal","name":"Porridge","calories":350}]}`)
	got := mustSucceed(t, cs, "retrieve_entities", `{"entity_type":"MEAL","include_snapshots":false}`)
	if n := got["total"]; n != 1.0 {
		t.Errorf("retrieve_entities MEAL total = %v, want the stored meal", n)
	}
	out, _ = call(t, cs, "update_schema_incremental", `{"entity_type":"meals","fields_to_add":[{"field_name":"protein","field_type":"number"}]}`)
	// update_schema_incremental answers the document's SCHEMA_NOT_FOUND.
	notFound := strings.ReplaceAll(invalidType("me…", withMeal, "meal"), `"code":"INVALID_ENUM_VALUE"`, `"code":"SCHEMA_NOT_FOUND"`)
	assertJSON(t, out, strings.ReplaceAll(notFound, "the entity_type values of this tenant; get_write_schema lists them", domain.SchemaNotFoundHint))
	mustSucceed(t, cs, "update_schema_incremental", `{"entity_type":"meal","fields_to_add":[{"field_name":"protein","field_type":"number"}]}`)
	if d := liveTypes(t, cs, "correct")["meal"]; d != "Fields: calories, eaten_on, name, protein" {
		t.Errorf("meal description after update_schema_incremental = %q", d)
	}
}

// A tenant's types are not another tenant's; a user's own types are not
// another user's of the same tenant.
func TestLiveEntityTypesStayWithTheirTenantAndUser(t *testing.T) {
	s := newServer(t)
	adaCS, graceCS := s.connect(ada, nil), s.connect(grace, nil)
	other := s.connect(runtime.RequestContext{TenantID: "tenant-other", PrincipalID: "user-ada"}, nil)
	mustSucceed(t, adaCS, "register_schema", registerMeal)
	mustSucceed(t, adaCS, "register_schema", `{"entity_type":"recipe","schema_definition":{"fields":{"title":{"type":"string"}}},"reducer_config":{"merge_policies":{}},"activate":true,"user_specific":true}`)

	builtin := domain.BuiltinEntityTypes()
	withMeal := append(append([]string{}, builtin...), "meal")
	sort.Strings(withMeal)
	withRecipe := append(append([]string{}, withMeal...), "recipe")
	sort.Strings(withRecipe)
	for _, tc := range []struct {
		who   string
		cs    *mcp.ClientSession
		types []string
	}{{"ada", adaCS, withRecipe}, {"grace", graceCS, withMeal}, {"another tenant", other, builtin}} {
		if got := typeNames(liveTypes(t, tc.cs, "retrieve_entities")); !cmp.Equal(got, tc.types) {
			t.Errorf("%s lists %v, want %v", tc.who, got, tc.types)
		}
	}
	mustSucceed(t, adaCS, "retrieve_entities", `{"entity_type":"recipe"}`)
	out, _ := call(t, graceCS, "retrieve_entities", `{"entity_type":"recipe"}`)
	assertJSON(t, out, invalidType("rec…", withMeal))
	out, _ = call(t, other, "retrieve_entities", `{"entity_type":"meal"}`)
	assertJSON(t, out, invalidType("me…", builtin))
	if strings.Contains(out["error"].(map[string]any)["message"].(string), "recipe") {
		t.Errorf("another tenant sees ada's type: %v", out)
	}
}
