package tasks_test

import (
	"context"
	"encoding/json"
	"testing"
)

// thirdID is the id the pinned clock and random source give the third task.
const thirdID = "task-01M81B5H802MB1E60S38DHR78Y"

// transformMeta is the metadata of a transform answer without warnings.
const transformMeta = `"metadata":{"timestamp":"2026-11-22T10:00:00Z","version":"2.0"}`

// The seed's refine rule (parent_id for extract, target_parent_id for
// adopt) is a conditional requirement the decoder checks with every other
// problem, before the domain is called.
func TestTaskTransformRequiresTheFieldItsOperationNeeds(t *testing.T) {
	missing := func(field, op string) string {
		return `{"code":"MISSING_REQUIRED_FIELD","message":"` + field + ` is required when operation is \"` + op + `\"","field":"` + field + `",` +
			`"suggestions":{"hint":"send ` + field + `, or set operation to another value"}}`
	}
	tests := []struct {
		name, tool, args, want string
	}{{
		name: "extract without parentId",
		tool: "task_transform",
		args: `{"id":"` + secondID + `","operation":"extract"}`,
		want: `{"success":false,"error":` + missing("parentId", "extract") + `,"errors":[` + missing("parentId", "extract") + `]}`,
	}, {
		name: "extract with parentId null",
		tool: "task_transform",
		args: `{"id":"` + secondID + `","operation":"extract","parentId":null}`,
		want: `{"success":false,"error":` + missing("parentId", "extract") + `,"errors":[` + missing("parentId", "extract") + `]}`,
	}, {
		name: "adopt without targetParentId",
		tool: "task_transform",
		args: `{"id":"` + secondID + `","operation":"adopt","parentId":"` + firstID + `"}`,
		want: `{"success":false,"error":` + missing("targetParentId", "adopt") + `,"errors":[` + missing("targetParentId", "adopt") + `]}`,
	}, {
		name: "reported together with every other problem",
		tool: "task_transform",
		args: `{"id":"` + secondID + `","operation":"extract","sequence":"3","initialSubtasks":[""]}`,
		want: `{"success":false,
			"error":{"code":"CONSTRAINT_VIOLATION","message":"must match the pattern ^\\d{2}$ (got 1 characters that do not)","field":"sequence"},
			"errors":[{"code":"CONSTRAINT_VIOLATION","message":"must match the pattern ^\\d{2}$ (got 1 characters that do not)","field":"sequence"},
				{"code":"CONSTRAINT_VIOLATION","message":"must be at least 1 character, got 0","field":"initialSubtasks[0]"},
				` + missing("parentId", "extract") + `]}`,
	}, {
		name: "validate_write answers the same before anything is written",
		tool: "validate_write",
		args: `{"operation":"task_transform","payload":{"id":"` + secondID + `","operation":"extract"}}`,
		want: `{"success":true,"valid":false,"errors":[` + missing("parentId", "extract") + `],"warnings":[],"suggestions":[]}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t, noElicitation)
			withFamily(s)
			r := s.call(tt.tool, tt.args)
			if want := compact(tt.want); r.text != want || r.isError != (tt.tool != "validate_write") {
				t.Fatalf("got isError=%v\n%s\nwant\n%s", r.isError, r.text, want)
			}
		})
	}
}

func TestTaskTransformExtractMakesTheSubtaskStandalone(t *testing.T) {
	s := newSession(t, noElicitation)
	withFamily(s)
	got := s.mustCall("task_transform", `{"id":"`+secondID+`","operation":"extract","parentId":"`+firstID+`","sequence":"02"}`)
	want := compact(`{"success":true,
		"data":{"operation":"extract",
			"transformedTask":{"id":"` + secondID + `","title":"Write token tests","type":"test","status":"todo","priority":"medium",
				"workflowState":"backlog","area":"general","path":".tasks/backlog/` + secondID + `.task.md",
				"createdAt":"2026-11-22T10:00:00Z","updatedAt":"2026-11-22T10:00:00Z"},
			"affectedTasks":["` + firstID + `"]},
		"message":"Subtask extracted into a standalone task",
		"metadata":{"timestamp":"2026-11-22T10:00:00Z","version":"2.0","warnings":["sequence is not used by extract and was ignored"]},
		"suggestions":["` + suggestUpdate + `"],"warnings":[]}`)
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	// Standalone now: a second extract from the same parent finds no subtask.
	r := s.call("task_transform", `{"id":"`+secondID+`","operation":"extract","parentId":"`+firstID+`"}`)
	if e := errorOf(t, r.text); !r.isError || e.Code != "NOT_FOUND" || e.Message != "task "+secondID+" is not a subtask of "+firstID {
		t.Fatalf("second extract: %s", r.text)
	}
}

// Promote turns the given titles into sequenced subtasks; adopt appends a
// standalone task after the last subtask, or inserts it after a named one
// and moves the later ones down.
func TestTaskTransformPromoteThenAdopt(t *testing.T) {
	s := newSession(t, noElicitation)
	s.mustCall("task_create", `{"title":"Add OAuth login","type":"feature","priority":"high"}`)
	s.mustCall("task_create", `{"title":"Write token tests","type":"test","workflowState":"current"}`)
	s.mustCall("task_create", `{"title":"Document scopes","type":"documentation"}`)
	sub1, sub2 := firstID+"-01", firstID+"-02"
	dir := ".tasks/backlog/" + firstID + "/"

	got := s.mustCall("task_transform", `{"id":"`+firstID+`","operation":"promote","initialSubtasks":["Design the flow"," Build it "]}`)
	want := compact(`{"success":true,
		"data":{"operation":"promote",
			"transformedTask":{"id":"` + firstID + `","title":"Add OAuth login","type":"feature","status":"todo","priority":"high",
				"workflowState":"backlog","area":"general","path":".tasks/backlog/` + firstID + `.task.md",
				"createdAt":"2026-11-22T10:00:00Z","updatedAt":"2026-11-22T10:00:00Z"},
			"affectedTasks":["` + sub1 + `","` + sub2 + `"]},
		"message":"Task promoted to a parent with 2 subtask(s)",` + transformMeta + `,
		"suggestions":["` + suggestUpdate + `"],"warnings":[]}`)
	if got != want {
		t.Fatalf("promote: got\n%s\nwant\n%s", got, want)
	}
	// The subtasks exist under the parent, with the parent's type, priority and folder.
	got = s.mustCall("task_update", `{"id":"`+sub2+`","parentId":"`+firstID+`","updates":{"assignee":"bob"}}`)
	want = compact(`{"success":true,
		"data":{"id":"` + sub2 + `","title":"Build it","type":"feature","status":"todo","priority":"high","workflowState":"backlog",
			"area":"general","parentId":"` + firstID + `","assignee":"bob","path":"` + dir + sub2 + `.task.md",
			"createdAt":"2026-11-22T10:00:00Z","updatedAt":"2026-11-22T10:00:00Z","sequence":"02"},
		"message":"Task updated successfully",` + transformMeta + `,
		"suggestions":["` + suggestMove + `"],"warnings":[]}`)
	if got != want {
		t.Fatalf("subtask: got\n%s\nwant\n%s", got, want)
	}

	got = s.mustCall("task_transform", `{"id":"`+secondID+`","operation":"adopt","targetParentId":"`+firstID+`"}`)
	want = compact(`{"success":true,
		"data":{"operation":"adopt",
			"transformedTask":{"id":"` + secondID + `","title":"Write token tests","type":"test","status":"todo","priority":"medium",
				"workflowState":"backlog","area":"general","parentId":"` + firstID + `","path":"` + dir + secondID + `.task.md",
				"createdAt":"2026-11-22T10:00:00Z","updatedAt":"2026-11-22T10:00:00Z","sequence":"03"},
			"affectedTasks":["` + firstID + `"]},
		"message":"Task adopted by ` + firstID + ` as subtask 03",
		"metadata":{"timestamp":"2026-11-22T10:00:00Z","version":"2.0",
			"warnings":["subtasks live in their parent's folder: the task moved from current to backlog"]},
		"suggestions":["` + suggestUpdate + `"],"warnings":[]}`)
	if got != want {
		t.Fatalf("adopt last: got\n%s\nwant\n%s", got, want)
	}

	got = s.mustCall("task_transform", `{"id":"`+thirdID+`","operation":"adopt","targetParentId":"`+firstID+`","after":"`+sub1+`"}`)
	want = compact(`{"success":true,
		"data":{"operation":"adopt",
			"transformedTask":{"id":"` + thirdID + `","title":"Document scopes","type":"documentation","status":"todo","priority":"medium",
				"workflowState":"backlog","area":"general","parentId":"` + firstID + `","path":"` + dir + thirdID + `.task.md",
				"createdAt":"2026-11-22T10:00:00Z","updatedAt":"2026-11-22T10:00:00Z","sequence":"02"},
			"affectedTasks":["` + firstID + `","` + sub2 + `","` + secondID + `"]},
		"message":"Task adopted by ` + firstID + ` as subtask 02",` + transformMeta + `,
		"suggestions":["` + suggestUpdate + `"],"warnings":[]}`)
	if got != want {
		t.Fatalf("adopt after: got\n%s\nwant\n%s", got, want)
	}
}

func TestTaskTransformPromoteTakesTheOpenChecklistItems(t *testing.T) {
	s := newSession(t, noElicitation)
	s.mustCall("task_create", `{"title":"Rotate keys","type":"chore","tasks":"- [ ] Generate\n- [x] Announce\n  - [ ] Publish\nNotes"}`)
	got := s.mustCall("task_transform", `{"id":"`+firstID+`","operation":"promote"}`)
	var out struct {
		Transform struct {
			Affected []string `json:"affectedTasks"`
		} `json:"data"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal([]byte(got), &out); err != nil {
		t.Fatal(err)
	}
	if want := []string{firstID + "-01", firstID + "-02"}; len(out.Transform.Affected) != 2 || out.Transform.Affected[0] != want[0] || out.Transform.Affected[1] != want[1] ||
		out.Message != "Task promoted to a parent with 2 subtask(s)" {
		t.Fatalf("promote: %s", got)
	}
	for id, title := range map[string]string{firstID + "-01": "Generate", firstID + "-02": "Publish"} {
		got := s.mustCall("task_update", `{"id":"`+id+`","updates":{"status":"in_progress"}}`)
		var u struct {
			Task struct {
				Title    string `json:"title"`
				ParentID string `json:"parentId"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(got), &u); err != nil || u.Task.Title != title || u.Task.ParentID != firstID {
			t.Fatalf("subtask %s: %s", id, got)
		}
	}
	// A parent is promoted once; a task with nothing open cannot be.
	s.mustCall("task_create", `{"title":"Empty","type":"chore"}`)
	for args, want := range map[string]string{
		`{"id":"` + firstID + `","operation":"promote","initialSubtasks":["More"]}`: "CONFLICT: task " + firstID + " already has 2 subtask(s)",
		`{"id":"` + secondID + `","operation":"promote"}`:                           "VALIDATION_ERROR: task " + secondID + " has no open checklist items; give initialSubtasks to promote it",
	} {
		r := s.call("task_transform", args)
		if e := errorOf(t, r.text); !r.isError || e.Code+": "+e.Message != want {
			t.Errorf("%s: got %s\nwant %s", args, r.text, want)
		}
	}
}

// The rule reaches the agent before any call: in the field's description
// (tools/list) and in get_write_schema.
func TestTaskTransformSchemaStatesWhenAFieldIsRequired(t *testing.T) {
	s := newSession(t, noElicitation)
	res, err := s.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var props map[string]json.RawMessage
	for _, tool := range res.Tools {
		if tool.Name != "task_transform" {
			continue
		}
		raw, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatal(err)
		}
		props = schema.Properties
	}
	for name, want := range map[string]string{
		"parentId":        `{"description":"Current parent of the subtask to extract. Required when operation is extract.","minLength":1,"type":"string"}`,
		"targetParentId":  `{"description":"Parent task that adopts the task. Required when operation is adopt.","minLength":1,"type":"string"}`,
		"initialSubtasks": `{"description":"For promote: titles of the subtasks to create, in order; the task's open checklist items (- [ ] ...) when omitted.","items":{"maxLength":200,"minLength":1,"type":"string"},"maxItems":99,"type":"array"}`,
	} {
		if got := string(props[name]); got != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
	var doc struct {
		RequiredFields []string        `json:"required_fields"`
		RequiredWhen   json.RawMessage `json:"required_when"`
	}
	if err := json.Unmarshal([]byte(s.mustCall("get_write_schema", `{"operation":"task_transform"}`)), &doc); err != nil {
		t.Fatal(err)
	}
	want := compact(`[{"field":"parentId","when":"operation","equals":["extract"],"rule":"parentId is required when operation is \"extract\""},
		{"field":"targetParentId","when":"operation","equals":["adopt"],"rule":"targetParentId is required when operation is \"adopt\""}]`)
	if string(doc.RequiredWhen) != want || len(doc.RequiredFields) != 2 || doc.RequiredFields[0] != "id" || doc.RequiredFields[1] != "operation" {
		t.Fatalf("get_write_schema: required_fields %q required_when\n%s\nwant\n%s", doc.RequiredFields, doc.RequiredWhen, want)
	}
}
