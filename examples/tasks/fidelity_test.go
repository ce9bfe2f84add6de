package tasks_test

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The seed's output schemas, transcribed: every key it lists (required
// unless it says optional) and no other, since its Zod schemas strip keys
// they do not name. Enum values must be clean (no emoji prefixes). Field
// names are the proto's snake_case until the service's JSON naming option
// turns them into the seed's camelCase.
const (
	docEnum     = `{"type":"string","pattern":"^[a-z][a-z_]*$"}`
	docDateTime = `{"type":"string","format":"date-time"}`
	// docTask stands for the seed's TaskSchema/SubTaskSchema, which it names
	// without defining: the normalized read fields it uses elsewhere.
	docTask = `{"type":"object","required":["id","title","type","status","workflow_state"],
		"properties":{"id":{"type":"string"},"title":{"type":"string"},"type":` + docEnum + `,"status":` + docEnum + `,
			"priority":` + docEnum + `,"workflow_state":` + docEnum + `,"parent_id":{"type":"string"},"sequence":{"type":"string","pattern":"^\\d{2}$"}}}`
)

var docOutputs = map[string]string{
	"task_create": `{"type":"object","additionalProperties":false,
		"required":["id","title","type","status","workflow_state","area","path","created_at"],
		"properties":{"id":{"type":"string"},"title":{"type":"string"},"type":` + docEnum + `,"status":` + docEnum + `,
			"workflow_state":` + docEnum + `,"area":{"type":"string"},"path":{"type":"string"},"created_at":` + docDateTime + `}}`,
	"task_update": docTask,
	"task_delete": `{"type":"object","additionalProperties":false,"required":["id","deleted"],
		"properties":{"id":{"type":"string"},"deleted":{"type":"boolean"},"cascade_count":{"type":"number"}}}`,
	"task_move": `{"type":"object","additionalProperties":false,"required":["id","previous_state","current_state","status_updated"],
		"properties":{"id":{"type":"string"},"previous_state":` + docEnum + `,"current_state":` + docEnum + `,
			"status_updated":{"type":"boolean"},"new_status":` + docEnum + `}}`,
	"task_transform": `{"type":"object","additionalProperties":false,"required":["operation","transformed_task"],
		"properties":{"operation":{"enum":["promote","extract","adopt"]},"transformed_task":` + docTask + `,
			"affected_tasks":{"type":"array","items":{"type":"string"}}}}`,
	"parent_create": `{"type":"object","additionalProperties":false,
		"required":["id","title","type","workflow_state","path","subtask_count"],
		"properties":{"id":{"type":"string"},"title":{"type":"string"},"type":` + docEnum + `,"workflow_state":` + docEnum + `,
			"path":{"type":"string"},"subtask_count":{"type":"number"},
			"created_subtasks":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["id","title","sequence"],
				"properties":{"id":{"type":"string"},"title":{"type":"string"},"sequence":{"type":"string"}}}}}}`,
	"parent_operations": `{"type":"object","additionalProperties":false,"required":["operation","parent_id","affected_subtasks"],
		"properties":{"operation":{"enum":["resequence","parallelize","add_subtask"]},"parent_id":{"type":"string"},
			"affected_subtasks":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["id","current_sequence"],
				"properties":{"id":{"type":"string"},"previous_sequence":{"type":"string"},"current_sequence":{"type":"string"}}}},
			"new_subtask":` + docTask + `}}`,
}

// docEnvelope is the seed's unified response format for a success, plus the
// keys the product adds to every answer (suggestions, warnings, replay
// markers); FIDELITY.md lists them as deliberate.
const docEnvelope = `{"type":"object","additionalProperties":false,"required":["success","message"],
	"properties":{"success":{"const":true},"data":{"type":"object"},"message":{"type":"string"},
		"metadata":{"type":"object","additionalProperties":false,"required":["timestamp","version"],
			"properties":{"timestamp":` + docDateTime + `,"version":{"type":"string"},"warnings":{"type":"array","items":{"type":"string"}}}},
		"suggestions":{"type":"array"},"warnings":{"type":"array"},"idempotent_replay":{"type":"boolean"},"original_request_time":{"type":"string"}}}`

func compileDoc(t *testing.T, name, schema string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	url := "mem:///" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

// Every tool of the seed, called with inputs shaped as the seed shapes them,
// answers in the seed's envelope with its data in the seed's output shape.
func TestAnswersHaveTheSeedsEnvelopeAndOutputShapes(t *testing.T) {
	envelope := compileDoc(t, "envelope", docEnvelope)
	outputs := map[string]*jsonschema.Schema{}
	for tool, schema := range docOutputs {
		outputs[tool] = compileDoc(t, tool, schema)
	}
	// The transcription is strict: an answer with a key the seed does not
	// list, or without one it requires, does not pass.
	for tool, data := range map[string]string{
		"task_move":     `{"id":"t","previous_state":"backlog","current_state":"current","status_updated":true,"path":"/p"}`,
		"parent_create": `{"id":"t","title":"x","type":"feature","workflow_state":"backlog","path":"/p"}`,
		"task_create":   `{"id":"t","title":"x","type":"🐛 bug","status":"todo","workflow_state":"backlog","area":"general","path":"/p","created_at":"2026-11-22T10:00:00Z"}`,
	} {
		inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(data))
		if outputs[tool].Validate(inst) == nil {
			t.Fatalf("%s: the transcribed schema accepts %s", tool, data)
		}
	}
	s := newSession(t, userAccepts)
	calls := [][2]string{
		{"parent_create", oauthParent},
		{"parent_create", `{"title":"Token storage","type":"spike"}`},
		{"task_create", `{"title":"Add OAuth login","type":"🐛 bug","status":"🚧 in_progress"}`}, // emoji-prefixed legacy values answer clean
		{"task_create", `{"title":"Write token tests","type":"test","parent_id":"` + firstID + `"}`},
		{"task_update", `{"id":"` + sub1 + `","parent_id":"` + firstID + `","updates":{"status":"in_progress","add_log_entry":"Started"}}`},
		{"parent_operations", `{"parent_id":"` + firstID + `","operation":"resequence","operation_data":{"operation":"resequence","sequence_map":[{"id":"` + sub1 + `","sequence":"03"}]}}`},
		{"parent_operations", `{"parent_id":"` + firstID + `","operation":"parallelize","operation_data":{"operation":"parallelize","subtask_ids":["` + sub1 + `","` + sub2 + `"],"target_sequence":"04"}}`},
		{"parent_operations", `{"parent_id":"` + firstID + `","operation":"add_subtask","operation_data":{"operation":"add_subtask","subtask":{"title":"Fix the redirect","sequence":"05","template":"bug"}}}`},
		{"task_transform", `{"id":"` + sub3 + `","operation":"extract","parent_id":"` + firstID + `"}`},
		{"task_transform", `{"id":"` + sub3 + `","operation":"adopt","target_parent_id":"` + firstID + `","after":"` + sub1 + `"}`},
		{"task_move", `{"id":"` + firstID + `","target_state":"current"}`},
		{"task_move", `{"id":"` + firstID + `","target_state":"archive","archive_date":"2026-11","update_status":false}`},
		{"task_delete", `{"id":"` + firstID + `","cascade":true}`},
	}
	seen := map[string]bool{}
	for _, c := range calls {
		got := s.mustCall(c[0], c[1])
		seen[c[0]] = true
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(got)))
		if err != nil {
			t.Fatal(err)
		}
		if err := envelope.Validate(inst); err != nil {
			t.Errorf("%s %s: envelope: %v\n%s", c[0], c[1], err, got)
		}
		if err := outputs[c[0]].Validate(inst.(map[string]any)["data"]); err != nil {
			t.Errorf("%s %s: data: %v\n%s", c[0], c[1], err, got)
		}
	}
	if len(seen) != len(docOutputs) {
		t.Fatalf("called %d of the seed's %d tools", len(seen), len(docOutputs))
	}
	// The legacy emoji spelling was stored as the clean value.
	got := s.mustCall("task_update", `{"id":"`+thirdID+`","updates":{"priority":"high"}}`)
	var out struct {
		Data struct {
			Type   string `json:"type"`
			Status string `json:"status"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(got), &out); err != nil || out.Data.Type != "bug" || out.Data.Status != "in_progress" {
		t.Fatalf("stored enum values: %s", got)
	}
}

// schemaLines flattens an input schema into one line per property (dotted
// path, [] for array items): its type, whether it is required, and the
// constraints the seed can state (default, enum, lengths, pattern, items).
// Descriptions are left out.
func schemaLines(prefix string, s map[string]any, required bool) []string {
	var lines []string
	line := prefix + " " + s["type"].(string)
	if required {
		line += " required"
	}
	for _, k := range []string{"default", "enum", "minLength", "maxLength", "pattern", "minItems", "maxItems"} {
		if v, ok := s[k]; ok {
			b, _ := json.Marshal(v)
			line += " " + k + "=" + string(b)
		}
	}
	if prefix != "" {
		lines = append(lines, line)
	}
	if items, ok := s["items"].(map[string]any); ok {
		lines = append(lines, schemaLines(prefix+"[]", items, false)...)
	}
	props, _ := s["properties"].(map[string]any)
	req := map[string]bool{}
	for _, r := range asStrings(s["required"]) {
		req[r] = true
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if prefix == "" && (n == "client_request_id" || n == "dry_run") {
			continue // the product's own inputs on every write tool
		}
		p := n
		if prefix != "" {
			p = prefix + "." + n
		}
		lines = append(lines, schemaLines(p, props[n].(map[string]any), req[n])...)
	}
	return lines
}

func asStrings(v any) []string {
	var out []string
	if xs, ok := v.([]any); ok {
		for _, x := range xs {
			out = append(out, x.(string))
		}
	}
	return out
}

// Each tool's input schema states what the seed's Zod schema states:
// required fields, defaults, enums, lengths, patterns and item counts, by
// snake_case name until the JSON naming option. Enum value lists the seed
// leaves to its existing enums are the example's. Lines marked "product"
// differ deliberately (FIDELITY.md).
func TestInputSchemasStateTheSeedsRules(t *testing.T) {
	const (
		types    = `enum=["feature","bug","chore","documentation","test","spike","idea"]`
		statuses = `enum=["todo","in_progress","done","blocked","archived"]`
		prios    = `enum=["highest","high","medium","low"]`
		states   = `enum=["backlog","current","archive"]`
		seq      = `pattern="^\\d{2}$"`
	)
	want := map[string][]string{
		"task_create": {
			`area string default="general"`,
			`assignee string`,
			`instruction string`,
			`parent_id string`,
			`priority string default="medium" ` + prios,
			`root_dir string`,
			`status string default="todo" ` + statuses,
			`tags array`, `tags[] string`,
			`tasks string`,
			`title string required minLength=1 maxLength=200`,
			`type string required ` + types,
			`workflow_state string default="backlog" ` + states,
		},
		"task_update": {
			`id string required`,
			`parent_id string`,
			`root_dir string`,
			`updates object required`,
			`updates.add_log_entry string`,
			`updates.area string`,
			`updates.assignee string`,
			`updates.deliverable string`,
			`updates.instruction string`,
			`updates.log string`,
			`updates.priority string ` + prios,
			`updates.status string ` + statuses,
			`updates.tags array`, `updates.tags[] string`,
			`updates.tasks string`,
			`updates.title string minLength=1 maxLength=200`,
		},
		"task_delete": {
			`cascade boolean default=false`,
			`id string required`,
			`parent_id string`,
			`root_dir string`,
		},
		"task_move": {
			`archive_date string pattern="^\\d{4}-\\d{2}$"`,
			`id string required`,
			`parent_id string`,
			`root_dir string`,
			`target_state string required ` + states,
			`update_status boolean default=true`,
		},
		"task_transform": {
			`after string`,
			`id string required`,
			`initial_subtasks array maxItems=99`,                  // product: two-digit sequences
			`initial_subtasks[] string minLength=1 maxLength=200`, // product: a subtask title as the seed bounds titles
			`operation string required enum=["promote","extract","adopt"]`,
			`parent_id string minLength=1`, // product: an empty id names nothing
			`root_dir string`,
			`sequence string ` + seq,
			`target_parent_id string minLength=1`, // product: an empty id names nothing
		},
		"parent_create": {
			`area string default="general"`,
			`assignee string`,
			`overview_content string`,
			`priority string default="medium" ` + prios,
			`root_dir string`,
			`status string default="todo" ` + statuses,
			`subtasks array maxItems=99`, // product: two-digit sequences
			`subtasks[] object`,
			`subtasks[].parallel_with string`,
			`subtasks[].sequence string ` + seq,
			`subtasks[].title string required minLength=1`,
			`subtasks[].type string ` + types,
			`tags array`, `tags[] string`,
			`title string required minLength=1 maxLength=200`,
			`type string required ` + types,
			`workflow_state string default="backlog" ` + states,
		},
		"parent_operations": {
			`operation string required enum=["resequence","parallelize","add_subtask"]`,
			`operation_data object required`,
			`operation_data.operation string required enum=["resequence","parallelize","add_subtask"]`,
			`operation_data.sequence_map array minItems=1`,
			`operation_data.sequence_map[] object`,
			`operation_data.sequence_map[].id string required`,
			`operation_data.sequence_map[].sequence string required ` + seq,
			`operation_data.subtask object`,
			`operation_data.subtask.after string`,
			`operation_data.subtask.sequence string ` + seq,
			`operation_data.subtask.template string`,
			`operation_data.subtask.title string required minLength=1`,
			`operation_data.subtask.type string ` + types,
			`operation_data.subtask_ids array minItems=2`,
			`operation_data.subtask_ids[] string`,
			`operation_data.target_sequence string ` + seq,
			`parent_id string required`,
			`root_dir string`,
		},
	}
	s := newSession(t, noElicitation)
	res, err := s.cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, tool := range res.Tools {
		w, ok := want[tool.Name]
		if !ok {
			continue
		}
		seen++
		raw, _ := json.Marshal(tool.InputSchema)
		var schema map[string]any
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatal(err)
		}
		got := schemaLines("", schema, false)
		if strings.Join(got, "\n") != strings.Join(w, "\n") {
			t.Errorf("%s:\n got\n\t%s\nwant\n\t%s", tool.Name, strings.Join(got, "\n\t"), strings.Join(w, "\n\t"))
		}
	}
	if seen != len(want) {
		t.Fatalf("listed %d of the seed's %d tools", seen, len(want))
	}
}
