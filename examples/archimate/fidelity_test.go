package archimate_test

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// The source design's own examples (seed 000), driven through an MCP Go SDK
// client with the inputs it gives; FIDELITY.md maps every requirement to
// its test.

// §2.2, §4.1, §6.2-6.3: the agent validates OrderService first, gets the
// warning the design shows, then commits with a description; the answer is
// the canonical created element with next-step suggestions.
func TestSeedValidateThenCreateExample(t *testing.T) {
	cs, repo := session(t, devRC)
	out, isErr := call(t, cs, "validateWrite", `{"operation":"createElement","payload":{"type":"ApplicationComponent","name":"OrderService"}}`)
	if isErr || out["valid"] != true {
		t.Fatalf("validateWrite: %v", out)
	}
	wantWarnings := []any{map[string]any{"code": "MISSING_DESCRIPTION", "field": "description", "message": "Element has no description", "suggestion": "Add a description for better discoverability"}}
	if diff := cmp.Diff(wantWarnings, out["warnings"]); diff != "" || !cmp.Equal(out["errors"], []any{}) {
		t.Fatalf("errors %v, warnings (-want +got):\n%s", out["errors"], diff)
	}
	if n := len(repo.Received()); n != 0 {
		t.Fatalf("the dry run wrote: the domain received %d requests", n)
	}
	out, isErr = call(t, cs, "createElement", `{"type":"ApplicationComponent","name":"OrderService","description":"Handles order processing and fulfillment"}`)
	if isErr {
		t.Fatalf("createElement: %v", out)
	}
	id := createdID(t, out)
	want := map[string]any{
		"success": true,
		"element": map[string]any{"id": id, "type": "ApplicationComponent", "name": "OrderService", "layer": "Application",
			"model_id": "model-tenant-acme-main", "version": float64(1), "description": "Handles order processing and fulfillment"},
		"suggestions": []any{"Call createRelationship to create a relationship between two elements", "Call updateElement to update an existing element; the server handles versioning"},
		"warnings":    []any{},
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Fatalf("createElement (-want +got):\n%s", diff)
	}
}

// §7.7-7.8: the design's example key; the repeat answers the stored
// element with idempotent_replay and original_request_time, and writes
// nothing.
func TestSeedIdempotencyKeyExample(t *testing.T) {
	cs, repo := session(t, devRC)
	args := `{"type":"ApplicationComponent","name":"OrderService","description":"Handles order processing","client_request_id":"createElement-1702656000-a1b2c3d4"}`
	first := mustOK(t, cs, "createElement", args)
	again := mustOK(t, cs, "createElement", args)
	if again["idempotent_replay"] != true || again["original_request_time"] != "2026-11-22T10:30:00Z" || !cmp.Equal(again["element"], first["element"]) {
		t.Fatalf("replay %v, first %v", again, first)
	}
	if n := len(repo.Received()); n != 1 {
		t.Fatalf("the domain received %d requests, want 1", n)
	}
	if got := repo.Received()[0].(*archimatev1.CreateElementRequest).GetMeta().GetClientRequestId(); got != "createElement-1702656000-a1b2c3d4" {
		t.Fatalf("the domain intent's meta carries client_request_id %q", got)
	}
}

// §5.2 "Duplicate name", exactly as the design shows it.
func TestSeedDuplicateNameExample(t *testing.T) {
	cs, _ := session(t, devRC)
	id := createdID(t, mustOK(t, cs, "createElement", `{"type":"ApplicationComponent","name":"OrderService"}`))
	out, isErr := call(t, cs, "createElement", `{"type":"ApplicationComponent","name":"OrderService"}`)
	want := map[string]any{
		"code":    "DUPLICATE_NAME",
		"message": "Element 'OrderService' already exists in this model",
		"field":   "name",
		"suggestions": map[string]any{
			"existing_element": map[string]any{"id": id, "type": "ApplicationComponent"},
			"alternatives":     []any{"OrderService2", "OrderServiceV2", "NewOrderService"},
			"hint":             "Use updateElement to modify the existing element, or choose a different name",
		},
	}
	if diff := cmp.Diff(map[string]any{"success": false, "error": want, "errors": []any{want}}, out); !isErr || diff != "" {
		t.Fatalf("isError=%v (-want +got):\n%s", isErr, diff)
	}
}

// §4.3: the agent sends no version; the answer has previous_version and
// new_version, and properties are merged with the existing ones.
func TestSeedUpdateElementVersionsAndMergesProperties(t *testing.T) {
	cs, _ := session(t, devRC)
	id := createdID(t, mustOK(t, cs, "createElement", `{"type":"ApplicationComponent","name":"OrderService","properties":{"owner":"Sales"}}`))
	out := mustOK(t, cs, "updateElement", `{"id":"`+id+`","description":"Handles order processing","properties":{"tier":"gold"}}`)
	el := out["element"].(map[string]any)
	if out["success"] != true || out["previous_version"] != float64(1) || out["new_version"] != float64(2) || el["version"] != float64(2) ||
		!cmp.Equal(el["properties"], map[string]any{"owner": "Sales", "tier": "gold"}) || el["description"] != "Handles order processing" {
		t.Fatalf("updateElement: %v", out)
	}
}

// §4.2 createRelationship answer and §4.4 deleteElement: cascade defaults
// to true and the answer lists the relationships deleted with the element
// (the delete is confirmed first: applied from its proposal here).
func TestSeedRelationshipThenCascadingDelete(t *testing.T) {
	cs, _ := session(t, devRC)
	comp := createdID(t, mustOK(t, cs, "createElement", `{"type":"ApplicationComponent","name":"OrderService"}`))
	svc := createdID(t, mustOK(t, cs, "createElement", `{"type":"ApplicationService","name":"Ordering"}`))
	out := mustOK(t, cs, "createRelationship", `{"type":"Realization","source_id":"`+comp+`","target_id":"`+svc+`","name":"realizes"}`)
	rel := out["relationship"].(map[string]any)
	if out["success"] != true || rel["type"] != "Realization" || rel["source_id"] != comp || rel["target_id"] != svc || rel["id"] == "" {
		t.Fatalf("relationship %v", rel)
	}
	out = mustOK(t, cs, "deleteElement", `{"id":"`+comp+`"}`)
	p := out["proposal"].(map[string]any)
	if p["preview"].(map[string]any)["cascade"] != true {
		t.Fatalf("cascade not defaulted to true: %v", p["preview"])
	}
	applied := mustOK(t, cs, "applyProposal", `{"proposal_id":"`+p["proposal_id"].(string)+`"}`)
	if diff := cmp.Diff([]any{rel["id"]}, applied["deleted_relationships"]); applied["success"] != true || diff != "" {
		t.Fatalf("applied %v (-want +got):\n%s", applied, diff)
	}
}

// §3.1: every element type the design lists, with its description, in the
// layer it names.
func TestSeedElementTypesByLayer(t *testing.T) {
	cs, _ := session(t, devRC)
	out := mustOK(t, cs, "getElementTypes", `{}`)
	got := map[string][]string{}
	for _, v := range out["values"].([]any) {
		m := v.(map[string]any)
		got[m["group"].(string)] = append(got[m["group"].(string)], m["value"].(string)+": "+m["description"].(string))
	}
	want := map[string][]string{
		"Strategy": {"Capability: An ability the organization possesses", "Resource: An asset owned or controlled",
			"CourseOfAction: An approach to achieve goals", "ValueStream: A sequence of activities delivering value"},
		"Business": {"BusinessProcess: A sequence of business behaviors", "BusinessService: A service fulfilling business needs",
			"BusinessActor: An organizational entity"},
		"Application": {"ApplicationComponent: A modular, deployable unit", "ApplicationService: A service exposed by components",
			"ApplicationInterface: A point of access to a service", "DataObject: Data structured for processing"},
		"Technology": {"Node: A computational resource", "Device: A physical resource", "SystemSoftware: Software enabling other software"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("getElementTypes (-want +got):\n%s", diff)
	}
	// §7.10: discovery queries are naturally idempotent and take no key.
	out, isErr := call(t, cs, "getElementTypes", `{"client_request_id":"k1"}`)
	if e, _ := out["error"].(map[string]any); !isErr || e["code"] != "UNKNOWN_FIELD" || e["field"] != "client_request_id" {
		t.Fatalf("getElementTypes with a key: %v", out)
	}
	// §9.2: the layer every one of the 14 types implies is what
	// createElement derives.
	for layer, types := range want {
		for _, typ := range types {
			typ = typ[:strings.Index(typ, ":")]
			el := mustOK(t, cs, "createElement", `{"type":"`+typ+`","name":"`+typ+` 1"}`)["element"].(map[string]any)
			if el["layer"] != layer || el["type"] != typ {
				t.Errorf("%s derived layer %v (type %v), want %s", typ, el["layer"], el["type"], layer)
			}
		}
	}
}

// §3.2: the pairs the design lists are valid, described as it describes
// them, and the source/target filter narrows the list.
func TestSeedRelationshipTypesListTheDesignsPairs(t *testing.T) {
	cs, _ := session(t, devRC)
	out := mustOK(t, cs, "getRelationshipTypes", `{}`)
	got := map[string]map[string]bool{}
	desc := map[string]string{}
	for _, v := range out["values"].([]any) {
		m := v.(map[string]any)
		desc[m["value"].(string)] = m["description"].(string)
		got[m["value"].(string)] = map[string]bool{}
		for _, p := range m["valid_pairs"].([]any) {
			pm := p.(map[string]any)
			got[m["value"].(string)][pm["source"].(string)+"->"+pm["target"].(string)] = true
		}
	}
	for typ, pairs := range map[string][]string{
		"Realization": {"ApplicationComponent->ApplicationService", "BusinessProcess->BusinessService"},
		"Serving":     {"ApplicationService->BusinessProcess", "ApplicationComponent->ApplicationComponent"},
		"Composition": {"Capability->Capability", "ApplicationComponent->ApplicationComponent"},
	} {
		for _, p := range pairs {
			if !got[typ][p] {
				t.Errorf("%s lacks the design's pair %s", typ, p)
			}
		}
	}
	wantDesc := map[string]string{"Realization": "Source realizes target", "Serving": "Source serves target", "Composition": "Source is composed of target"}
	for k, v := range wantDesc {
		if desc[k] != v {
			t.Errorf("%s description %q, want %q", k, desc[k], v)
		}
	}
	out = mustOK(t, cs, "getRelationshipTypes", `{"source_type":"BusinessProcess","target_type":"BusinessService"}`)
	var names []string
	for _, v := range out["values"].([]any) {
		names = append(names, v.(map[string]any)["value"].(string))
	}
	if diff := cmp.Diff([]string{"Realization"}, names); diff != "" {
		t.Fatalf("filtered (-want +got):\n%s", diff)
	}
}

// §3.3: getWriteSchema for createElement answers the schema, the design's
// two examples, its required fields and every optional one it names; and
// the schema version every tool carries in tools/list _meta, the one the
// generated document states.
func TestSeedGetWriteSchemaExample(t *testing.T) {
	cs, _ := session(t, devRC)
	out := mustOK(t, cs, "getWriteSchema", `{"operation":"createElement"}`)
	var examples []string
	for _, e := range out["examples"].([]any) {
		examples = append(examples, e.(map[string]any)["description"].(string))
	}
	if diff := cmp.Diff([]string{"Create an application component", "Create with parent"}, examples); diff != "" {
		t.Errorf("examples (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"type", "name"}, out["required_fields"]); diff != "" {
		t.Errorf("required_fields (-want +got):\n%s", diff)
	}
	optional := map[string]bool{}
	for _, f := range out["optional_fields"].([]any) {
		optional[f.(string)] = true
	}
	for _, f := range []string{"description", "properties", "parent_id", "model_id"} {
		if !optional[f] {
			t.Errorf("optional_fields %v lack %s", out["optional_fields"], f)
		}
	}
	if s, ok := out["input_schema"].(map[string]any); !ok || s["type"] != "object" || s["additionalProperties"] != false {
		t.Errorf("input_schema %v", out["input_schema"])
	}

	var doc schemadoc.Document
	if err := json.Unmarshal(archimatev1mcpwrite.NewArchitectureService(domain.New()).Doc, &doc); err != nil {
		t.Fatal(err)
	}
	version := doc.Services[0].SchemaVersion
	if out["schema_version"] != version || len(version) != len("sha256:")+16 {
		t.Fatalf("getWriteSchema schema_version %v, document %q", out["schema_version"], version)
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Meta["mcpwrite/schema_version"] != version {
			t.Errorf("%s _meta schema_version %v, want %s", tool.Name, tool.Meta["mcpwrite/schema_version"], version)
		}
	}
	sort.Strings(names)
	if len(names) != 14 {
		t.Fatalf("tools %v", names)
	}
}

// §6: validateWrite is read-only, not destructive and idempotent, and every
// write tool's description tells the agent to call it first (§6.2).
func TestSeedValidateWriteHintsAndTip(t *testing.T) {
	cs, _ := session(t, devRC)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		byName[tool.Name] = tool
	}
	a := byName["validateWrite"].Annotations
	if !a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint || !a.IdempotentHint {
		t.Fatalf("validateWrite hints %+v", a)
	}
	writes := []any{"createElement", "createRelationship", "updateElement", "deleteElement", "createCapability", "createCapabilityStructure", "addComponentToCapability", "createElements"}
	// §3.3, §6: operation is an enum of the write tools.
	for _, n := range []string{"validateWrite", "getWriteSchema"} {
		op := byName[n].InputSchema.(map[string]any)["properties"].(map[string]any)["operation"].(map[string]any)
		if diff := cmp.Diff(writes, op["enum"]); op["type"] != "string" || diff != "" {
			t.Errorf("%s operation (-want +got):\n%s", n, diff)
		}
	}
	for _, w := range writes {
		n := w.(string)
		if d := byName[n].Description; !containsAll(d, "TIP: Call validateWrite first to check for errors before committing.") {
			t.Errorf("%s description %q", n, d)
		}
		// §7.3: every write tool takes an optional client_request_id.
		in := byName[n].InputSchema.(map[string]any)
		key, _ := in["properties"].(map[string]any)["client_request_id"].(map[string]any)
		required, _ := in["required"].([]any)
		if key == nil || key["type"] != "string" || slices.Contains(required, any("client_request_id")) {
			t.Errorf("%s client_request_id: %v (required %v)", n, key, required)
		}
		// A.4: hints on every write; only deleteElement is destructive.
		if a := byName[n].Annotations; a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint != (n == "deleteElement") {
			t.Errorf("%s hints %+v", n, byName[n].Annotations)
		}
	}
	for _, n := range []string{"getElementTypes", "getRelationshipTypes", "getWriteSchema"} {
		if a := byName[n].Annotations; a == nil || !a.ReadOnlyHint || !a.IdempotentHint {
			t.Errorf("%s hints %+v", n, byName[n].Annotations)
		}
	}
}

// §4.5 createCapability's example input answers the design's example
// output; §8.2 addComponentToCapability then adds a component realizing it
// and the services it provides, in one write.
func TestSeedCapabilityThenComponent(t *testing.T) {
	cs, repo := session(t, devRC)
	out := mustOK(t, cs, "createCapability", `{"name":"Fulfillment","description":"Ability to fulfill customer orders","profile":{"owner":"Supply Chain","criticality":"High","lifecycle":"Active"}}`)
	c := out["capability"].(map[string]any)
	capID := c["id"].(string)
	want := map[string]any{"id": capID, "type": "Capability", "name": "Fulfillment", "layer": "strategy", "revision": float64(1),
		"profile": map[string]any{"owner": "Supply Chain", "criticality": "High", "lifecycle": "Active"}}
	if diff := cmp.Diff(want, c); out["success"] != true || diff != "" {
		t.Fatalf("capability (-want +got):\n%s", diff)
	}
	out = mustOK(t, cs, "addComponentToCapability", `{"capability_id":"`+capID+`","component_name":"OrderService","component_description":"Handles order processing","services":["Order API"]}`)
	comp := out["component"].(map[string]any)
	compID := comp["id"].(string)
	var got []string
	for _, e := range out["created_elements"].([]any) {
		m := e.(map[string]any)
		got = append(got, m["type"].(string)+":"+m["name"].(string))
	}
	for _, r := range out["created_relationships"].([]any) {
		m := r.(map[string]any)
		got = append(got, m["type"].(string)+":"+m["source_id"].(string)+"->"+m["target_id"].(string))
	}
	wantGot := []string{"ApplicationService:Order API", "Realization:" + compID + "->" + capID, "Realization:" + compID + "->" + compID + "-svc-1"}
	if diff := cmp.Diff(wantGot, got); diff != "" || comp["type"] != "ApplicationComponent" || comp["name"] != "OrderService" {
		t.Fatalf("component %v (-want +got):\n%s", comp, diff)
	}
	if n := len(repo.Received()); n != 2 {
		t.Fatalf("the domain received %d requests, want 2", n)
	}
}
