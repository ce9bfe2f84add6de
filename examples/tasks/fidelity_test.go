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
	docTask = `{"type":"object","required":["id","title","type","status","workflowState"],
		"properties":{"id":{"type":"string"},"title":{"type":"string"},"type":` + docEnum + `,"status":` + docEnum + `,
			"priority":` + docEnum + `,"workflowState":` + docEnum + `,"parentId":{"type":"string"},"sequence":{"type":"string","pattern":"^\\d{2}$"}}}`
)

var docOutputs = map[string]string{
	"task_create": `{"type":"object","additionalProperties":false,
		"required":["id","title","type","status","workflowState","area","path","createdAt"],
		"properties":{"id":{"type":"string"},"title":{"type":"string"},"type":` + docEnum + `,"status":` + docEnum + `,
			"workflowState":` + docEnum + `,"area":{"type":"string"},"path":{"type":"string"},"createdAt":` + docDateTime + `}}`,
	"task_update": docTask,
	"task_delete": `{"type":"object","additionalProperties":false,"required":["id","deleted"],
		"properties":{"id":{"type":"string"},"deleted":{"type":"boolean"},"cascadeCount":{"type":"number"}}}`,
	"task_move": `{"type":"object","additionalProperties":false,"required":["id","previousState","currentState","statusUpdated"],
		"properties":{"id":{"type":"string"},"previousState":` + docEnum + `,"currentState":` + docEnum + `,
			"statusUpdated":{"type":"boolean"},"newStatus":` + docEnum + `}}`,
	"task_transform": `{"type":"object","additionalProperties":false,"required":["operation","transformedTask"],
		"properties":{"operation":{"enum":["promote","extract","adopt"]},"transformedTask":` + docTask + `,
			"affectedTasks":{"type":"array","items":{"type":"string"}}}}`,
	"parent_create": `{"type":"object","additionalProperties":false,
		"required":["id","title","type","workflowState","path","subtaskCount"],
		"properties":{"id":{"type":"string"},"title":{"type":"string"},"type":` + docEnum + `,"workflowState":` + docEnum + `,
			"path":{"type":"string"},"subtaskCount":{"type":"number"},
			"createdSubtasks":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["id","title","sequence"],
				"properties":{"id":{"type":"string"},"title":{"type":"string"},"sequence":{"type":"string"}}}}}}`,
	"parent_operations": `{"type":"object","additionalProperties":false,"required":["operation","parentId","affectedSubtasks"],
		"properties":{"operation":{"enum":["resequence","parallelize","add_subtask"]},"parentId":{"type":"string"},
			"affectedSubtasks":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["id","currentSequence"],
				"properties":{"id":{"type":"string"},"previousSequence":{"type":"string"},"currentSequence":{"type":"string"}}}},
			"newSubtask":` + docTask + `}}`,
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
		"task_move":     `{"id":"t","previousState":"backlog","currentState":"current","statusUpdated":true,"path":"/p"}`,
		"parent_create": `{"id":"t","title":"x","type":"feature","workflowState":"backlog","path":"/p"}`,
		"task_create":   `{"id":"t","title":"x","type":"🐛 bug","status":"todo","workflowState":"backlog","area":"general","path":"/p","createdAt":"2026-11-22T10:00:00Z"}`,
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
		{"task_create", `{"title":"Write token tests","type":"test","parentId":"` + firstID + `"}`},
		{"task_update", `{"id":"` + sub1 + `","parentId":"` + firstID + `","updates":{"status":"in_progress","addLogEntry":"Started"}}`},
		{"parent_operations", `{"parentId":"` + firstID + `","operation":"resequence","operationData":{"operation":"resequence","sequenceMap":[{"id":"` + sub1 + `","sequence":"03"}]}}`},
		{"parent_operations", `{"parentId":"` + firstID + `","operation":"parallelize","operationData":{"operation":"parallelize","subtaskIds":["` + sub1 + `","` + sub2 + `"],"targetSequence":"04"}}`},
		{"parent_operations", `{"parentId":"` + firstID + `","operation":"add_subtask","operationData":{"operation":"add_subtask","subtask":{"title":"Fix the redirect","sequence":"05","template":"bug"}}}`},
		{"task_transform", `{"id":"` + sub3 + `","operation":"extract","parentId":"` + firstID + `"}`},
		{"task_transform", `{"id":"` + sub3 + `","operation":"adopt","targetParentId":"` + firstID + `","after":"` + sub1 + `"}`},
		{"task_move", `{"id":"` + firstID + `","targetState":"current"}`},
		{"task_move", `{"id":"` + firstID + `","targetState":"archive","archiveDate":"2026-11","updateStatus":false}`},
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
		if prefix == "" && (n == "clientRequestId" || n == "dryRun") {
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
			`parentId string`,
			`priority string default="medium" ` + prios,
			`rootDir string`,
			`status string default="todo" ` + statuses,
			`tags array`, `tags[] string`,
			`tasks string`,
			`title string required minLength=1 maxLength=200`,
			`type string required ` + types,
			`workflowState string default="backlog" ` + states,
		},
		"task_update": {
			`id string required`,
			`parentId string`,
			`rootDir string`,
			`updates object required`,
			`updates.addLogEntry string`,
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
			`parentId string`,
			`rootDir string`,
			// The runtime's optional summary for the proposal a client
			// without elicitation gets.
			`summary string minLength=1 maxLength=200`,
		},
		"task_move": {
			`archiveDate string pattern="^\\d{4}-\\d{2}$"`,
			`id string required`,
			`parentId string`,
			`rootDir string`,
			`targetState string required ` + states,
			`updateStatus boolean default=true`,
		},
		"task_transform": {
			`after string`,
			`id string required`,
			`initialSubtasks array maxItems=99`,                  // product: two-digit sequences
			`initialSubtasks[] string minLength=1 maxLength=200`, // product: a subtask title as the seed bounds titles
			`operation string required enum=["promote","extract","adopt"]`,
			`parentId string minLength=1`, // product: an empty id names nothing
			`rootDir string`,
			`sequence string ` + seq,
			`targetParentId string minLength=1`, // product: an empty id names nothing
		},
		"parent_create": {
			`area string default="general"`,
			`assignee string`,
			`overviewContent string`,
			`priority string default="medium" ` + prios,
			`rootDir string`,
			`status string default="todo" ` + statuses,
			`subtasks array maxItems=99`, // product: two-digit sequences
			`subtasks[] object`,
			`subtasks[].parallelWith string`,
			`subtasks[].sequence string ` + seq,
			`subtasks[].title string required minLength=1`,
			`subtasks[].type string ` + types,
			`tags array`, `tags[] string`,
			`title string required minLength=1 maxLength=200`,
			`type string required ` + types,
			`workflowState string default="backlog" ` + states,
		},
		"parent_operations": {
			`operation string required enum=["resequence","parallelize","add_subtask"]`,
			`operationData object required`,
			`operationData.operation string required enum=["resequence","parallelize","add_subtask"]`,
			`operationData.sequenceMap array minItems=1`,
			`operationData.sequenceMap[] object`,
			`operationData.sequenceMap[].id string required`,
			`operationData.sequenceMap[].sequence string required ` + seq,
			`operationData.subtask object`,
			`operationData.subtask.after string`,
			`operationData.subtask.sequence string ` + seq,
			`operationData.subtask.template string`,
			`operationData.subtask.title string required minLength=1`,
			`operationData.subtask.type string ` + types,
			`operationData.subtaskIds array minItems=2`,
			`operationData.subtaskIds[] string`,
			`operationData.targetSequence string ` + seq,
			`parentId string required`,
			`rootDir string`,
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

// The seed's clean break accepts only its camelCase names, so every text an
// agent reads in tools/list (tool descriptions, field and enum value
// descriptions, input and output schemas) names fields that way: a
// description that said parent_id would send the agent to a name that is
// refused as UNKNOWN_FIELD.
func TestToolsListNamesFieldsAsTheSeedDoes(t *testing.T) {
	snake := []string{
		"add_log_entry", "affected_subtasks", "affected_tasks", "archive_date", "cascade_count", "created_at",
		"created_subtasks", "current_sequence", "current_state", "initial_subtasks", "new_status", "new_subtask",
		"operation_data", "overview_content", "parallel_with", "parent_id", "previous_sequence", "previous_state",
		"root_dir", "sequence_map", "status_updated", "subtask_count", "subtask_ids", "target_parent_id",
		"target_sequence", "target_state", "transformed_task", "update_status", "updated_at", "workflow_state",
		"client_request_id", "dry_run", "proposal_id",
	}
	serviceTools := map[string]bool{"apply_proposal": true, "discard_proposal": true, "get_write_schema": true, "validate_write": true}
	s := newSession(t, noElicitation)
	res, err := s.cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, tool := range res.Tools {
		if serviceTools[tool.Name] {
			// The runtime's own answers (discard_proposal's proposal_id)
			// are not the seed's; what the agent sends is.
			tool.OutputSchema = nil
		}
		raw, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range snake {
			if i := strings.Index(string(raw), name); i >= 0 {
				found++
				t.Errorf("%s names %s: …%s…", tool.Name, name, raw[max(0, i-60):min(len(raw), i+len(name)+20)])
			}
		}
	}
	if len(res.Tools) != 13 || found != 0 {
		t.Fatalf("%d tools, %d snake_case names", len(res.Tools), found)
	}
}
