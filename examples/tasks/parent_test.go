package tasks_test

import (
	"encoding/json"
	"testing"
)

// The subtask ids parent_create gives the first parent's subtasks.
const (
	sub1 = firstID + "-01"
	sub2 = firstID + "-02"
	sub3 = firstID + "-03"
	sub4 = firstID + "-04"
)

// oauthParent is the parent_create example of the tool: three subtasks, the
// third in parallel with the second.
const oauthParent = `{"title":"OAuth login","type":"feature","overviewContent":"Let users sign in with Google",
	"subtasks":[{"title":"Design the flow"},{"title":"Build the callback","type":"chore"},
		{"title":"Write token tests","type":"test","parallelWith":"Build the callback"}]}`

// Next-step sentences of parent_create.
const (
	suggestParentOps = "Call parent_operations to reorganise a parent's subtasks: resequence them, run several in parallel, or add a new one"
	parentMeta       = `"metadata":{"timestamp":"2026-11-22T10:00:00Z","version":"2.0"}`
	parentDir        = ".tasks/backlog/" + firstID + "/"
)

func TestParentCreate(t *testing.T) {
	tests := []struct {
		name, args, want string
		// task_update of one task afterwards, and its answer's data.
		check, checkWant string
	}{{
		name: "subtasks in order, parallelWith shares the earlier subtask's sequence",
		args: oauthParent,
		want: `{"success":true,
			"data":{"id":"` + firstID + `","title":"OAuth login","type":"feature","workflowState":"backlog",
				"path":".tasks/backlog/` + firstID + `.task.md","subtaskCount":3,
				"createdSubtasks":[{"id":"` + sub1 + `","title":"Design the flow","sequence":"01"},
					{"id":"` + sub2 + `","title":"Build the callback","sequence":"02"},
					{"id":"` + sub3 + `","title":"Write token tests","sequence":"02"}]},
			"message":"Parent task created with 3 subtask(s)",` + parentMeta + `,
			"suggestions":["` + suggestParentOps + `","` + suggestUpdate + `"],"warnings":[]}`,
		check: `{"id":"` + sub3 + `","parentId":"` + firstID + `","updates":{"assignee":"bob"}}`,
		checkWant: `{"id":"` + sub3 + `","title":"Write token tests","type":"test","status":"todo","priority":"medium",
			"workflowState":"backlog","area":"general","parentId":"` + firstID + `","assignee":"bob",
			"path":"` + parentDir + sub3 + `.task.md","createdAt":"2026-11-22T10:00:00Z","updatedAt":"2026-11-22T10:00:00Z","sequence":"02"}`,
	}, {
		name: "seed defaults and subtaskCount 0 without subtasks",
		args: `{"title":"Token storage","type":"spike","overviewContent":"Where do refresh tokens live?","tags":["auth","auth"]}`,
		want: `{"success":true,
			"data":{"id":"` + firstID + `","title":"Token storage","type":"spike","workflowState":"backlog",
				"path":".tasks/backlog/` + firstID + `.task.md","subtaskCount":0},
			"message":"Parent task created with 0 subtask(s)",
			"metadata":{"timestamp":"2026-11-22T10:00:00Z","version":"2.0","warnings":["duplicate tags removed: auth"]},
			"suggestions":["` + suggestParentOps + `","` + suggestUpdate + `"],"warnings":[]}`,
		check: `{"id":"` + firstID + `","updates":{"assignee":"bob"}}`,
		checkWant: `{"id":"` + firstID + `","title":"Token storage","type":"spike","status":"todo","priority":"medium",
			"workflowState":"backlog","area":"general","assignee":"bob","tags":["auth"],"instruction":"Where do refresh tokens live?",
			"path":".tasks/backlog/` + firstID + `.task.md","createdAt":"2026-11-22T10:00:00Z","updatedAt":"2026-11-22T10:00:00Z"}`,
	}, {
		name: "explicit sequences and the parent's folder",
		args: `{"title":"Billing export","type":"feature","workflowState":"current","priority":"high","area":"billing",
			"subtasks":[{"title":"Schema","sequence":"05"},{"title":"Writer"}]}`,
		want: `{"success":true,
			"data":{"id":"` + firstID + `","title":"Billing export","type":"feature","workflowState":"current",
				"path":".tasks/current/` + firstID + `.task.md","subtaskCount":2,
				"createdSubtasks":[{"id":"` + sub1 + `","title":"Schema","sequence":"05"},{"id":"` + sub2 + `","title":"Writer","sequence":"06"}]},
			"message":"Parent task created with 2 subtask(s)",` + parentMeta + `,
			"suggestions":["` + suggestParentOps + `","` + suggestUpdate + `"],"warnings":[]}`,
		check: `{"id":"` + sub2 + `","updates":{"assignee":"bob"}}`,
		checkWant: `{"id":"` + sub2 + `","title":"Writer","type":"feature","status":"todo","priority":"high",
			"workflowState":"current","area":"billing","parentId":"` + firstID + `","assignee":"bob",
			"path":".tasks/current/` + firstID + `/` + sub2 + `.task.md","createdAt":"2026-11-22T10:00:00Z","updatedAt":"2026-11-22T10:00:00Z","sequence":"06"}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t, noElicitation)
			if got := s.mustCall("parent_create", tt.args); got != compact(tt.want) {
				t.Fatalf("got\n%s\nwant\n%s", got, compact(tt.want))
			}
			var out struct {
				Data json.RawMessage `json:"data"`
			}
			if err := json.Unmarshal([]byte(s.mustCall("task_update", tt.check)), &out); err != nil {
				t.Fatal(err)
			}
			if string(out.Data) != compact(tt.checkWant) {
				t.Fatalf("stored task:\n%s\nwant\n%s", out.Data, compact(tt.checkWant))
			}
		})
	}
}

// A subtask the domain refuses refuses the whole call: no parent, no
// earlier subtask is stored.
func TestParentCreateChecksEverySubtaskBeforeStoringAnything(t *testing.T) {
	s := newSession(t, noElicitation)
	r := s.call("parent_create", `{"title":"OAuth login","type":"feature","subtasks":[{"title":"Design"},{"title":"Build","parallelWith":"Desing"}]}`)
	e := `{"code":"VALIDATION_ERROR","message":"no earlier subtask is titled \"Des…\"; parallelWith names one of: \"Design\"","field":"subtasks[1].parallelWith","details":{"reason":"UNKNOWN_SUBTASK"}}`
	if want := compact(`{"success":false,"error":` + e + `,"errors":[` + e + `]}`); !r.isError || r.text != want {
		t.Fatalf("got isError=%v\n%s\nwant\n%s", r.isError, r.text, want)
	}
	for _, id := range []string{firstID, sub1} {
		r := s.call("task_update", `{"id":"`+id+`","updates":{"assignee":"bob"}}`)
		if e := errorOf(t, r.text); !r.isError || e.Code != "NOT_FOUND" || e.Message != "task "+id+" not found" {
			t.Fatalf("%s was stored: %s", id, r.text)
		}
	}
}

func TestParentOperations(t *testing.T) {
	s := newSession(t, noElicitation)
	s.mustCall("parent_create", oauthParent) // sub1 at 01, sub2 and sub3 at 02
	steps := []struct {
		name, args, want string
	}{{
		name: "add_subtask after the first moves the parallel pair down together and starts from the template",
		args: `{"parentId":"` + firstID + `","operation":"add_subtask","operationData":{"operation":"add_subtask",
			"subtask":{"title":"Fix the redirect","type":"bug","after":"` + sub1 + `","template":"bug"}}}`,
		want: `{"success":true,
			"data":{"operation":"add_subtask","parentId":"` + firstID + `",
				"affectedSubtasks":[{"id":"` + sub2 + `","previousSequence":"02","currentSequence":"03"},
					{"id":"` + sub3 + `","previousSequence":"02","currentSequence":"03"},
					{"id":"` + sub4 + `","currentSequence":"02"}],
				"newSubtask":{"id":"` + sub4 + `","title":"Fix the redirect","type":"bug","status":"todo","priority":"medium",
					"workflowState":"backlog","area":"general","parentId":"` + firstID + `",
					"tasks":"- [ ] Reproduce\n- [ ] Fix\n- [ ] Add a regression test",
					"path":"` + parentDir + sub4 + `.task.md","createdAt":"2026-11-22T10:00:00Z","updatedAt":"2026-11-22T10:00:00Z","sequence":"02"}},
			"message":"Subtask ` + sub4 + ` added to ` + firstID + ` at sequence 02",` + parentMeta + `,
			"suggestions":["` + suggestUpdate + `"],"warnings":[]}`,
	}, {
		name: "resequence renumbers the listed subtasks and warns about another operation's field",
		args: `{"parentId":"` + firstID + `","operation":"resequence","operationData":{"operation":"resequence",
			"sequenceMap":[{"id":"` + sub1 + `","sequence":"04"},{"id":"` + sub4 + `","sequence":"01"}],"subtaskIds":["` + sub2 + `","` + sub3 + `"]}}`,
		want: `{"success":true,
			"data":{"operation":"resequence","parentId":"` + firstID + `",
				"affectedSubtasks":[{"id":"` + sub1 + `","previousSequence":"01","currentSequence":"04"},
					{"id":"` + sub4 + `","previousSequence":"02","currentSequence":"01"}]},
			"message":"Resequenced 2 subtask(s) of ` + firstID + `",
			"metadata":{"timestamp":"2026-11-22T10:00:00Z","version":"2.0","warnings":["operationData.subtaskIds is not used by resequence and was ignored"]},
			"suggestions":["` + suggestUpdate + `"],"warnings":[]}`,
	}, {
		name: "parallelize without targetSequence takes the earliest of the subtasks' sequences",
		args: `{"parentId":"` + firstID + `","operation":"parallelize","operationData":{"operation":"parallelize","subtaskIds":["` + sub1 + `","` + sub2 + `"]}}`,
		want: `{"success":true,
			"data":{"operation":"parallelize","parentId":"` + firstID + `",
				"affectedSubtasks":[{"id":"` + sub1 + `","previousSequence":"04","currentSequence":"03"},
					{"id":"` + sub2 + `","previousSequence":"03","currentSequence":"03"}]},
			"message":"2 subtask(s) of ` + firstID + ` now run in parallel at sequence 03",` + parentMeta + `,
			"suggestions":["` + suggestUpdate + `"],"warnings":[]}`,
	}, {
		name: "parallelize at a targetSequence",
		args: `{"parentId":"` + firstID + `","operation":"parallelize","operationData":{"operation":"parallelize","subtaskIds":["` + sub3 + `","` + sub4 + `"],"targetSequence":"07"}}`,
		want: `{"success":true,
			"data":{"operation":"parallelize","parentId":"` + firstID + `",
				"affectedSubtasks":[{"id":"` + sub3 + `","previousSequence":"03","currentSequence":"07"},
					{"id":"` + sub4 + `","previousSequence":"01","currentSequence":"07"}]},
			"message":"2 subtask(s) of ` + firstID + ` now run in parallel at sequence 07",` + parentMeta + `,
			"suggestions":["` + suggestUpdate + `"],"warnings":[]}`,
	}, {
		name: "add_subtask without a position goes after the last",
		args: `{"parentId":"` + firstID + `","operation":"add_subtask","operationData":{"operation":"add_subtask","subtask":{"title":"Release notes"}}}`,
		want: `{"success":true,
			"data":{"operation":"add_subtask","parentId":"` + firstID + `",
				"affectedSubtasks":[{"id":"` + firstID + `-05","currentSequence":"08"}],
				"newSubtask":{"id":"` + firstID + `-05","title":"Release notes","type":"feature","status":"todo","priority":"medium",
					"workflowState":"backlog","area":"general","parentId":"` + firstID + `",
					"path":"` + parentDir + firstID + `-05.task.md","createdAt":"2026-11-22T10:00:00Z","updatedAt":"2026-11-22T10:00:00Z","sequence":"08"}},
			"message":"Subtask ` + firstID + `-05 added to ` + firstID + ` at sequence 08",` + parentMeta + `,
			"suggestions":["` + suggestUpdate + `"],"warnings":[]}`,
	}}
	for _, st := range steps {
		if got := s.mustCall("parent_operations", st.args); got != compact(st.want) {
			t.Fatalf("%s: got\n%s\nwant\n%s", st.name, got, compact(st.want))
		}
	}
}

// The seed's discriminated union: operation_data.operation selects the
// variant, and the variant's fields are required when it is selected. The
// decoder reports them with every other problem before the domain runs.
func TestParentOperationsRequiresTheFieldsItsOperationNeeds(t *testing.T) {
	missing := func(field, op string) string {
		return `{"code":"MISSING_REQUIRED_FIELD","message":"` + field + ` is required when operation is \"` + op + `\"","field":"operationData.` + field + `",` +
			`"suggestions":{"hint":"send ` + field + `, or set operation to another value"}}`
	}
	one := func(e string) string { return `{"success":false,"error":` + e + `,"errors":[` + e + `]}` }
	tests := []struct {
		name, tool, args, want string
	}{{
		name: "resequence without sequenceMap",
		tool: "parent_operations",
		args: `{"parentId":"` + firstID + `","operation":"resequence","operationData":{"operation":"resequence"}}`,
		want: one(missing("sequenceMap", "resequence")),
	}, {
		name: "parallelize with subtaskIds null",
		tool: "parent_operations",
		args: `{"parentId":"` + firstID + `","operation":"parallelize","operationData":{"operation":"parallelize","subtaskIds":null}}`,
		want: one(missing("subtaskIds", "parallelize")),
	}, {
		name: "add_subtask without subtask",
		tool: "parent_operations",
		args: `{"parentId":"` + firstID + `","operation":"add_subtask","operationData":{"operation":"add_subtask"}}`,
		want: one(missing("subtask", "add_subtask")),
	}, {
		name: "parallelize with one subtask",
		tool: "parent_operations",
		args: `{"parentId":"` + firstID + `","operation":"parallelize","operationData":{"operation":"parallelize","subtaskIds":["` + sub1 + `"]}}`,
		want: one(`{"code":"CONSTRAINT_VIOLATION","message":"must have at least 2 items, got 1","field":"operationData.subtaskIds"}`),
	}, {
		name: "operationData missing",
		tool: "parent_operations",
		args: `{"parentId":"` + firstID + `","operation":"resequence"}`,
		want: one(`{"code":"MISSING_REQUIRED_FIELD","message":"missing required field \"operationData\"","field":"operationData"}`),
	}, {
		name: "every problem at once",
		tool: "parent_operations",
		args: `{"operation":"add_subtask","operationData":{"operation":"add_subtask","targetSequence":"7","subtask":{"title":"","sequence":"3"}}}`,
		want: `{"success":false,
			"error":{"code":"CONSTRAINT_VIOLATION","message":"must match the pattern ^\\d{2}$ (got 1 characters that do not)","field":"operationData.targetSequence"},
			"errors":[{"code":"CONSTRAINT_VIOLATION","message":"must match the pattern ^\\d{2}$ (got 1 characters that do not)","field":"operationData.targetSequence"},
				{"code":"CONSTRAINT_VIOLATION","message":"must be at least 1 character, got 0","field":"operationData.subtask.title"},
				{"code":"CONSTRAINT_VIOLATION","message":"must match the pattern ^\\d{2}$ (got 1 characters that do not)","field":"operationData.subtask.sequence"},
				{"code":"MISSING_REQUIRED_FIELD","message":"missing required field \"parentId\"","field":"parentId"}]}`,
	}, {
		name: "validate_write answers the same before anything is written",
		tool: "validate_write",
		args: `{"operation":"parent_operations","payload":{"parentId":"` + firstID + `","operation":"resequence","operationData":{"operation":"resequence"}}}`,
		want: `{"success":true,"valid":false,"errors":[` + missing("sequenceMap", "resequence") + `],"warnings":[],"suggestions":[]}`,
	}, {
		name: "the two operations disagree",
		tool: "parent_operations",
		args: `{"parentId":"` + firstID + `","operation":"parallelize","operationData":{"operation":"resequence","sequenceMap":[{"id":"` + sub1 + `","sequence":"02"}]}}`,
		want: one(`{"code":"VALIDATION_ERROR","message":"operationData.operation is resequence but operation is parallelize; both must name the same operation","field":"operationData.operation","details":{"reason":"OPERATION_MISMATCH"}}`),
	}, {
		name: "a template that does not exist",
		tool: "parent_operations",
		args: `{"parentId":"` + firstID + `","operation":"add_subtask","operationData":{"operation":"add_subtask","subtask":{"title":"x","template":"hotfix"}}}`,
		want: one(`{"code":"VALIDATION_ERROR","message":"template \"hot…\" is not known; use one of: bug, chore, documentation, feature, idea, spike, test","field":"operationData.subtask.template","details":{"reason":"UNKNOWN_TEMPLATE"}}`),
	}, {
		name: "resequence names a task that is not the parent's subtask",
		tool: "parent_operations",
		args: `{"parentId":"` + firstID + `","operation":"resequence","operationData":{"operation":"resequence","sequenceMap":[{"id":"` + sub1 + `","sequence":"02"},{"id":"` + secondID + `","sequence":"01"}]}}`,
		want: one(`{"code":"NOT_FOUND","message":"task ` + secondID + ` is not a subtask of ` + firstID + `"}`),
	}, {
		name: "parentId names a subtask",
		tool: "parent_operations",
		args: `{"parentId":"` + sub1 + `","operation":"add_subtask","operationData":{"operation":"add_subtask","subtask":{"title":"x"}}}`,
		want: one(`{"code":"VALIDATION_ERROR","message":"task ` + sub1 + ` is itself a subtask of ` + firstID + `; name its parent instead","field":"parentId","details":{"reason":"SUBTASK_NESTING"}}`),
	}, {
		name: "parallelize lists one subtask twice",
		tool: "parent_operations",
		args: `{"parentId":"` + firstID + `","operation":"parallelize","operationData":{"operation":"parallelize","subtaskIds":["` + sub1 + `","` + sub1 + `"]}}`,
		want: one(`{"code":"VALIDATION_ERROR","message":"subtask ` + sub1 + ` is listed twice; name two or more different subtasks","field":"operationData.subtaskIds[1]","details":{"reason":"DUPLICATE_SUBTASK"}}`),
	}, {
		name: "parent_create: sequence and parallelWith together",
		tool: "parent_create",
		args: `{"title":"X","type":"bug","subtasks":[{"title":"a"},{"title":"b","sequence":"02","parallelWith":"a"}]}`,
		want: one(`{"code":"VALIDATION_ERROR","message":"set only one of sequence, parallelWith, not sequence and parallelWith","field":"subtasks[1].parallelWith"}`),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t, noElicitation)
			s.mustCall("parent_create", `{"title":"OAuth login","type":"feature","subtasks":[{"title":"Design"}]}`)
			s.mustCall("task_create", `{"title":"Standalone","type":"chore"}`)
			r := s.call(tt.tool, tt.args)
			if want := compact(tt.want); r.text != want || r.isError != (tt.tool != "validate_write") {
				t.Fatalf("got isError=%v\n%s\nwant\n%s", r.isError, r.text, want)
			}
		})
	}
}

// The rules reach the agent before any call, in get_write_schema.
func TestParentOperationsSchemaStatesWhenAFieldIsRequired(t *testing.T) {
	s := newSession(t, noElicitation)
	var doc struct {
		RequiredFields []string        `json:"required_fields"`
		RequiredWhen   json.RawMessage `json:"required_when"`
	}
	if err := json.Unmarshal([]byte(s.mustCall("get_write_schema", `{"operation":"parent_operations"}`)), &doc); err != nil {
		t.Fatal(err)
	}
	want := compact(`[
		{"field":"operationData.sequenceMap","when":"operationData.operation","equals":["resequence"],"rule":"operationData.sequenceMap is required when operationData.operation is \"resequence\""},
		{"field":"operationData.subtaskIds","when":"operationData.operation","equals":["parallelize"],"rule":"operationData.subtaskIds is required when operationData.operation is \"parallelize\""},
		{"field":"operationData.subtask","when":"operationData.operation","equals":["add_subtask"],"rule":"operationData.subtask is required when operationData.operation is \"add_subtask\""}]`)
	gotFields, _ := json.Marshal(doc.RequiredFields)
	wantFields := `["parentId","operation","operationData","operationData.operation","operationData.sequenceMap[].id","operationData.sequenceMap[].sequence","operationData.subtask.title"]`
	if string(doc.RequiredWhen) != want || string(gotFields) != wantFields {
		t.Fatalf("get_write_schema: required_fields %s\nwant %s\nrequired_when\n%s\nwant\n%s", gotFields, wantFields, doc.RequiredWhen, want)
	}
}

func TestParentOperationsAddsNoSubtaskToAnArchivedParent(t *testing.T) {
	s := newSession(t, noElicitation)
	s.mustCall("parent_create", `{"title":"OAuth login","type":"feature","subtasks":[{"title":"Design"}]}`)
	s.mustCall("task_move", `{"id":"`+firstID+`","targetState":"archive","archiveDate":"2026-11"}`)
	r := s.call("parent_operations", `{"parentId":"`+firstID+`","operation":"add_subtask","operationData":{"operation":"add_subtask","subtask":{"title":"Late"}}}`)
	if e := errorOf(t, r.text); !r.isError || e.Code != "CONFLICT" || e.Message != "parent task "+firstID+" is archived; move it out of the archive before adding subtasks" {
		t.Fatalf("got %s", r.text)
	}
	r = s.call("task_update", `{"id":"`+sub2+`","updates":{"assignee":"bob"}}`)
	if e := errorOf(t, r.text); !r.isError || e.Code != "NOT_FOUND" {
		t.Fatalf("a subtask was added: %s", r.text)
	}
}
