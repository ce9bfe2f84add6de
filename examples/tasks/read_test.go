package tasks_test

import (
	"encoding/json"
	"testing"
)

// The source document's method registry keeps the normalized reads beside
// the writes: task_list and task_get answer tasks in the same field names,
// enum spellings and envelope as the writes.
func TestTaskListAndTaskGetReadTheNormalizedTasks(t *testing.T) {
	s := newSession(t, noElicitation)
	withFamily(s)
	var created struct {
		Data struct{ ID string } `json:"data"`
	}
	if err := json.Unmarshal([]byte(s.mustCall("task_create", `{"title":"Rotate keys","type":"chore","workflowState":"current"}`)), &created); err != nil {
		t.Fatal(err)
	}
	third := created.Data.ID
	const at = `"createdAt":"2026-11-22T10:00:00Z","updatedAt":"2026-11-22T10:00:00Z"`
	parent := `{"id":"` + firstID + `","title":"Add OAuth login","type":"feature","status":"todo","priority":"medium",` +
		`"workflowState":"backlog","area":"general","path":".tasks/backlog/` + firstID + `.task.md",` + at + `}`
	sub := `{"id":"` + secondID + `","title":"Write token tests","type":"test","status":"todo","priority":"medium",` +
		`"workflowState":"backlog","area":"general","parentId":"` + firstID + `","path":".tasks/backlog/` + firstID + `/` + secondID + `.task.md",` +
		at + `,"sequence":"01"}`
	current := `{"id":"` + third + `","title":"Rotate keys","type":"chore","status":"todo","priority":"medium",` +
		`"workflowState":"current","area":"general","path":".tasks/current/` + third + `.task.md",` + at + `}`
	meta := `"metadata":{"timestamp":"2026-11-22T10:00:00Z","version":"2.0"}`
	list := `,"suggestions":["Call task_get to get one task, or one subtask with its parentId"],"warnings":[]}`
	for _, tt := range []struct{ name, tool, args, want string }{
		{"every task", "task_list", `{}`,
			`{"success":true,"data":[` + parent + `,` + sub + `,` + current + `],"message":"3 task(s)",` + meta + list},
		{"one parent's subtasks", "task_list", `{"parentId":"` + firstID + `"}`,
			`{"success":true,"data":[` + sub + `],"message":"1 task(s)",` + meta + list},
		{"one workflow folder", "task_list", `{"workflowState":"current"}`,
			`{"success":true,"data":[` + current + `],"message":"1 task(s)",` + meta + list},
		{"one subtask", "task_get", `{"id":"` + secondID + `","parentId":"` + firstID + `"}`,
			`{"success":true,"data":` + sub + `,"message":"Task retrieved successfully",` + meta +
				`,"suggestions":["Call task_update to update a task's metadata and content sections; only the fields given in updates change",` +
				`"Call task_move to move a task to another workflow state (backlog, current, archive)"],"warnings":[]}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.mustCall(tt.tool, tt.args); got != tt.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
	// The seed's reads always answer data: an empty folder is an empty list.
	if got, want := s.mustCall("task_list", `{"workflowState":"archive"}`),
		`{"success":true,"data":[],"message":"0 task(s)",`+meta+list; got != want {
		t.Fatalf("empty list: got\n%s\nwant\n%s", got, want)
	}
	r := s.call("task_get", `{"id":"task-01NEVER0000000000000000000"}`)
	if e := errorOf(t, r.text); !r.isError || e.Code != "NOT_FOUND" || e.Message != "task task-01NEVER0000000000000000000 not found" {
		t.Fatalf("task_get of an unknown id: %s", r.text)
	}
}

// An error quotes an excerpt of the text the agent sent, never all of it;
// the field path says which value it was.
func TestErrorsQuoteAnExcerptOfTheAgentsText(t *testing.T) {
	s := newSession(t, userAccepts)
	withFamily(s)
	r := s.call("task_move", `{"id":"`+firstID+`","targetState":"archive","archiveDate":"2026-13"}`)
	e := errorOf(t, r.text)
	if want := `archiveDate "202…" is not a valid month; use YYYY-MM, e.g. 2026-11`; !r.isError || e.Field != "archiveDate" || e.Message != want {
		t.Fatalf("got %s\nwant message %q", r.text, want)
	}
}
