package tasks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/gen/tasks/v1/tasksv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// now is the fixed instant of every call, so timestamps and ULIDs are stable.
var now = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// seqReader yields 1, 2, 3, ... so generated IDs are deterministic.
type seqReader struct {
	mu sync.Mutex
	n  byte
}

func (s *seqReader) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range p {
		s.n++
		p[i] = s.n
	}
	return len(p), nil
}

// elicitation is how the simulated user answers confirmation requests;
// "" means the client does not support elicitation at all.
type elicitation string

const (
	noElicitation elicitation = ""
	userAccepts   elicitation = "accept"
	userDeclines  elicitation = "decline"
)

// session is one agent connected to a fresh server over in-memory transports.
type session struct {
	t     *testing.T
	cs    *mcp.ClientSession
	user  *mcptest.Elicitor // nil when the client cannot elicit
	asked []string          // elicitation messages shown to the user, as of the last call
}

func newSession(t *testing.T, el elicitation) *session {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "tasks-server", Version: "test"}, nil)
	// The request context is established server-side (a context on the
	// client's call does not cross the transport).
	rcFunc := func(context.Context, *mcp.CallToolRequest) (runtime.RequestContext, bool) {
		return runtime.RequestContext{TenantID: "acme", PrincipalID: "alice", CorrelationID: "corr-1"}, true
	}
	tracker := domain.New("/projects")
	err := tasksv1mcpwrite.RegisterTaskServiceTools(server, tracker,
		runtime.WithPreviews(runtime.Previews{Check: tracker.Check}),
		runtime.WithRequestContextFunc(rcFunc),
		runtime.WithClock(func() time.Time { return now }),
		runtime.WithRand(&seqReader{}),
	)
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	s := &session{t: t}
	o := mcptest.Options{Protocol: "2025-11-25"} // lets the server ask through elicitation inside a tool call
	switch el {
	case userAccepts:
		s.user = mcptest.Accept(true)
	case userDeclines:
		s.user = mcptest.Decline()
	}
	if s.user != nil {
		o.Elicit = s.user.Handler
	}
	s.cs = mcptest.Connect(t, server, o)
	return s
}

// result is one tool answer: the text content, which the runtime makes the
// same JSON as the structured content.
type result struct {
	isError bool
	text    string
}

func (s *session) call(tool, args string) result {
	s.t.Helper()
	r := mcptest.Call(s.t, s.cs, tool, args)
	if s.user != nil {
		s.asked = s.user.Asked()
	}
	return result{isError: r.IsError, text: r.Text}
}

// mustCall calls a tool that must succeed and returns its JSON.
func (s *session) mustCall(tool, args string) string {
	s.t.Helper()
	r := s.call(tool, args)
	if r.isError {
		s.t.Fatalf("%s(%s) failed: %s", tool, args, r.text)
	}
	return r.text
}

func compact(s string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		panic("bad want JSON: " + err.Error() + "\n" + s)
	}
	return b.String()
}

// envelopeError is the part of an error entry the tests check.
type envelopeError struct {
	Code        string `json:"code"`
	Message     string `json:"message"`
	Field       string `json:"field"`
	Suggestions struct {
		DidYouMean  []string `json:"did_you_mean"`
		ValidValues []string `json:"valid_values"`
		Hint        string   `json:"hint"`
	} `json:"suggestions"`
}

// errorOf reads the first error of an error envelope.
func errorOf(t *testing.T, text string) envelopeError {
	t.Helper()
	var env struct {
		Success bool          `json:"success"`
		Error   envelopeError `json:"error"`
	}
	if err := json.Unmarshal([]byte(text), &env); err != nil {
		t.Fatalf("envelope: %v\n%s", err, text)
	}
	if env.Success {
		t.Fatalf("success is true in an error result: %s", text)
	}
	return env.Error
}

// IDs the pinned clock and random source give the first two created tasks.
const (
	firstID  = "task-01M81B5H80041061050R3GG28A"
	secondID = "task-01M81B5H801C60T3GF208H44RM"
)

// Next-step sentences the runtime derives from the next tools' descriptions.
const (
	suggestUpdate = "Call task_update to update a task's metadata and content sections; only the fields given in updates change"
	suggestMove   = "Call task_move to move a task to another workflow state (backlog, current, archive)"
)

func TestTaskCreate(t *testing.T) {
	tests := []struct {
		name  string
		setup []string // task_create arguments run first
		args  string
		want  string
	}{{
		name: "seed defaults fill status, priority, area and workflow state",
		args: `{"title":"Add OAuth login","type":"feature"}`,
		want: `{"success":true,
			"data":{"id":"` + firstID + `","title":"Add OAuth login","type":"feature","status":"todo",
				"workflowState":"backlog","area":"general",
				"path":".tasks/backlog/` + firstID + `.task.md","createdAt":"2026-11-22T10:00:00Z"},
			"message":"Task created successfully",
			"metadata":{"timestamp":"2026-11-22T10:00:00Z","version":"2.0"},
			"suggestions":["` + suggestUpdate + `","` + suggestMove + `"],"warnings":[]}`,
	}, {
		name:  "subtask joins its parent's folder and domain warnings land in metadata",
		setup: []string{`{"title":"Add OAuth login","type":"feature","workflowState":"current"}`},
		args:  `{"title":"Write token tests","type":"test","parentId":"` + firstID + `","tags":["auth","auth"],"priority":"high","rootDir":"/projects/acme"}`,
		want: `{"success":true,
			"data":{"id":"` + secondID + `","title":"Write token tests","type":"test","status":"todo",
				"workflowState":"current","area":"general",
				"path":".tasks/current/` + firstID + `/` + secondID + `.task.md","createdAt":"2026-11-22T10:00:00Z"},
			"message":"Task created successfully",
			"metadata":{"timestamp":"2026-11-22T10:00:00Z","version":"2.0",
				"warnings":["subtasks live in their parent's folder: workflowState backlog was replaced by current","duplicate tags removed: auth"]},
			"suggestions":["` + suggestUpdate + `","` + suggestMove + `"],"warnings":[]}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t, noElicitation)
			for _, a := range tt.setup {
				s.mustCall("task_create", a)
			}
			if got := s.mustCall("task_create", tt.args); got != compact(tt.want) {
				t.Fatalf("got\n%s\nwant\n%s", got, compact(tt.want))
			}
		})
	}
}

func TestTaskUpdateAppliesNestedUpdatesAndAppendsTimestampedLogEntry(t *testing.T) {
	s := newSession(t, noElicitation)
	s.mustCall("task_create", `{"title":"Add OAuth login","type":"feature","workflowState":"current","tags":["auth"]}`)
	got := s.mustCall("task_update", `{"id":"`+firstID+`","updates":{"status":"done","priority":"high","assignee":"bob","deliverable":"PR 42","addLogEntry":"Merged PR 42"}}`)
	want := compact(`{"success":true,
		"data":{"id":"` + firstID + `","title":"Add OAuth login","type":"feature","status":"done","priority":"high",
			"workflowState":"current","area":"general","assignee":"bob","tags":["auth"],"deliverable":"PR 42",
			"log":"- 2026-11-22T10:00:00Z: Merged PR 42",
			"path":".tasks/current/` + firstID + `.task.md","createdAt":"2026-11-22T10:00:00Z","updatedAt":"2026-11-22T10:00:00Z"},
		"message":"Task updated successfully",
		"metadata":{"timestamp":"2026-11-22T10:00:00Z","version":"2.0",
			"warnings":["task is done but still in current; call task_move with targetState archive to archive it"]},
		"suggestions":["` + suggestMove + `"],"warnings":[]}`)
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestTaskMove(t *testing.T) {
	tests := []struct {
		name, args, want string
		path             string // where the task's file is afterwards
	}{{
		name: "backlog to current starts the work",
		path: ".tasks/current/" + firstID + ".task.md",
		args: `{"id":"` + firstID + `","targetState":"current"}`,
		want: `{"success":true,
			"data":{"id":"` + firstID + `","previousState":"backlog","currentState":"current",
				"statusUpdated":true,"newStatus":"in_progress"},
			"message":"Task moved from backlog to current",
			"metadata":{"timestamp":"2026-11-22T10:00:00Z","version":"2.0"},
			"suggestions":["` + suggestUpdate + `"],"warnings":[]}`,
	}, {
		name: "archive by synonym files under the month and marks the task done",
		path: ".tasks/archive/2026-11/" + firstID + ".task.md",
		args: `{"id":"` + firstID + `","targetState":"archived","archiveDate":"2026-11"}`,
		want: `{"success":true,
			"data":{"id":"` + firstID + `","previousState":"backlog","currentState":"archive",
				"statusUpdated":true,"newStatus":"done"},
			"message":"Task moved from backlog to archive",
			"metadata":{"timestamp":"2026-11-22T10:00:00Z","version":"2.0"},
			"suggestions":["` + suggestUpdate + `"],"warnings":[]}`,
	}, {
		name: "updateStatus false keeps the status and says so",
		path: ".tasks/archive/2026-11/" + firstID + ".task.md",
		args: `{"id":"` + firstID + `","targetState":"archive","archiveDate":"2026-11","updateStatus":false}`,
		want: `{"success":true,
			"data":{"id":"` + firstID + `","previousState":"backlog","currentState":"archive","statusUpdated":false},
			"message":"Task moved from backlog to archive",
			"metadata":{"timestamp":"2026-11-22T10:00:00Z","version":"2.0","warnings":["task archived with status todo because updateStatus is false"]},
			"suggestions":["` + suggestUpdate + `"],"warnings":[]}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t, noElicitation)
			s.mustCall("task_create", `{"title":"Add OAuth login","type":"feature"}`)
			if got := s.mustCall("task_move", tt.args); got != compact(tt.want) {
				t.Fatalf("got\n%s\nwant\n%s", got, compact(tt.want))
			}
			if got := s.mustCall("task_update", `{"id":"`+firstID+`","updates":{"assignee":"bob"}}`); !strings.Contains(got, `"path":"`+tt.path+`"`) {
				t.Fatalf("after the move the task is not at %s: %s", tt.path, got)
			}
		})
	}
}

// withFamily creates a parent task and one subtask.
func withFamily(s *session) {
	s.mustCall("task_create", `{"title":"Add OAuth login","type":"feature"}`)
	s.mustCall("task_create", `{"title":"Write token tests","type":"test","parentId":"`+firstID+`"}`)
}

func TestTaskDeleteCascadesToSubtasksAfterTheUserConfirms(t *testing.T) {
	s := newSession(t, userAccepts)
	withFamily(s)
	got := s.mustCall("task_delete", `{"id":"`+firstID+`","cascade":true}`)
	want := compact(`{"success":true,
		"data":{"id":"` + firstID + `","deleted":true,"cascadeCount":1},
		"message":"Task and 1 subtask(s) deleted successfully",
		"metadata":{"timestamp":"2026-11-22T10:00:00Z","version":"2.0"},
		"suggestions":[],"warnings":[]}`)
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	// The user reads the request as the agent wrote it: no tenant,
	// principal, correlation id, timestamp or server-chosen project root.
	wantAsked := `Confirm Delete task: id="` + firstID + `", cascade=true. This permanently deletes data; it cannot be undone.` +
		"\n\nid: " + firstID + "\ncascade: true"
	if len(s.asked) != 1 || s.asked[0] != wantAsked {
		t.Fatalf("user was asked %q", s.asked)
	}
	r := s.call("task_update", `{"id":"`+secondID+`","updates":{"title":"x"}}`)
	if e := errorOf(t, r.text); !r.isError || e.Code != "NOT_FOUND" || e.Message != "task "+secondID+" not found" {
		t.Fatalf("subtask survived the cascade: %s", r.text)
	}
}

func TestTaskDeleteDeclinedByTheUserWritesNothing(t *testing.T) {
	s := newSession(t, userDeclines)
	withFamily(s)
	r := s.call("task_delete", `{"id":"`+secondID+`"}`)
	want := compact(`{"success":false,
		"error":{"code":"CONFIRMATION_DECLINED","message":"The user declined: Delete task: id=\"` + secondID + `\". Nothing was written.","suggestions":{"hint":"Do not retry unless the user asks for the change again."}},
		"errors":[{"code":"CONFIRMATION_DECLINED","message":"The user declined: Delete task: id=\"` + secondID + `\". Nothing was written.","suggestions":{"hint":"Do not retry unless the user asks for the change again."}}]}`)
	if !r.isError || r.text != want {
		t.Fatalf("got isError=%v\n%s\nwant\n%s", r.isError, r.text, want)
	}
	if got := s.mustCall("task_update", `{"id":"`+secondID+`","updates":{"title":"Still here"}}`); !strings.Contains(got, `"title":"Still here"`) {
		t.Fatalf("subtask not updatable after declined delete: %s", got)
	}
}

func TestTaskDeleteWithoutElicitationBecomesAProposalAppliedById(t *testing.T) {
	s := newSession(t, noElicitation)
	withFamily(s)
	got := s.mustCall("task_delete", `{"id":"`+secondID+`"}`)
	var p struct {
		Proposal struct {
			ID             string          `json:"proposal_id"`
			Tool           string          `json:"tool"`
			Classification string          `json:"classification"`
			Summary        string          `json:"summary"`
			Preview        json.RawMessage `json:"preview"`
			ApplyWith      string          `json:"apply_with"`
		} `json:"proposal"`
	}
	if err := json.Unmarshal([]byte(got), &p); err != nil {
		t.Fatal(err)
	}
	// The user sees the agent's request: no meta, no server-chosen root.
	wantPreview := `{"id":"` + secondID + `"}`
	if p.Proposal.Tool != "task_delete" || p.Proposal.Classification != "DESTRUCTIVE_DELETE" || p.Proposal.ApplyWith != "apply_proposal" ||
		p.Proposal.Summary != `Delete task: id="`+secondID+`"` || string(p.Proposal.Preview) != wantPreview {
		t.Fatalf("proposal: %s", got)
	}
	applied := s.mustCall("apply_proposal", `{"proposal_id":"`+p.Proposal.ID+`"}`)
	if !strings.Contains(applied, `"data":{"id":"`+secondID+`","deleted":true}`) {
		t.Fatalf("apply_proposal: %s", applied)
	}
	// Applying again runs nothing: the stored outcome is replayed.
	again := s.mustCall("apply_proposal", `{"proposal_id":"`+p.Proposal.ID+`"}`)
	if want := strings.TrimSuffix(applied, "}") + `,"idempotent_replay":true}`; again != want {
		t.Fatalf("second apply:\n%s\nwant\n%s", again, want)
	}
}

func TestAgentMistakesAreAnsweredWithCorrectableErrors(t *testing.T) {
	tests := []struct {
		name, tool, args string
		code, field, top string // top: first did_you_mean, else the hint
	}{
		{"create: enum typo", "task_create", `{"title":"Add login","type":"featur"}`, "INVALID_ENUM_VALUE", "type", "feature"},
		{"create: the proto's snake_case name", "task_create", `{"title":"Sub","type":"bug","parent_id":"` + firstID + `"}`, "UNKNOWN_FIELD", "parent_id", "parentId"},
		{"create: title missing", "task_create", `{"type":"bug"}`, "MISSING_REQUIRED_FIELD", "title", ""},
		{"create: tags as a comma string", "task_create", `{"title":"x","type":"bug","tags":"a,b"}`, "INVALID_TYPE", "tags", ""},
		{"create: unknown parent", "task_create", `{"title":"x","type":"bug","parentId":"task-nope"}`, "NOT_FOUND", "", ""},
		{"update: fields outside updates", "task_update", `{"id":"` + firstID + `","status":"done"}`, "UNKNOWN_FIELD", "status", "updates.status"},
		{"update: nested enum typo", "task_update", `{"id":"` + firstID + `","updates":{"status":"in-progres"}}`, "INVALID_ENUM_VALUE", "updates.status", "in_progress"},
		{"update: nested snake_case field", "task_update", `{"id":"` + firstID + `","updates":{"add_log_entry":"x"}}`, "UNKNOWN_FIELD", "updates.add_log_entry", "addLogEntry"},
		{"update: nothing to change", "task_update", `{"id":"` + firstID + `","updates":{}}`, "VALIDATION_ERROR", "updates", ""},
		{"delete: cascade as a string", "task_delete", `{"id":"` + firstID + `","cascade":"yes"}`, "INVALID_TYPE", "cascade", ""},
		{"delete: id missing", "task_delete", `{"cascade":true}`, "MISSING_REQUIRED_FIELD", "id", ""},
		{"delete: parent without cascade", "task_delete", `{"id":"` + firstID + `"}`, "CONFLICT", "", ""},
		{"move: enum typo", "task_move", `{"id":"` + firstID + `","targetState":"curent"}`, "INVALID_ENUM_VALUE", "targetState", "current"},
		{"move: the proto's snake_case name", "task_move", `{"id":"` + firstID + `","target_state":"current"}`, "UNKNOWN_FIELD", "target_state", "targetState"},
		{"move: full date instead of month", "task_move", `{"id":"` + firstID + `","targetState":"archive","archiveDate":"2026-11-01"}`, "CONSTRAINT_VIOLATION", "archiveDate", ""},
		{"move: archive without a month", "task_move", `{"id":"` + firstID + `","targetState":"archive"}`, "MISSING_REQUIRED_FIELD", "archiveDate", "send archiveDate, or set targetState to another value"},
		{"move: archive to a month that does not exist", "task_move", `{"id":"` + firstID + `","targetState":"archive","archiveDate":"2026-13"}`, "VALIDATION_ERROR", "archiveDate", ""},
		{"move: a subtask on its own", "task_move", `{"id":"` + secondID + `","targetState":"current"}`, "CONFLICT", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t, userAccepts)
			withFamily(s)
			r := s.call(tt.tool, tt.args)
			if !r.isError {
				t.Fatalf("want an error, got %s", r.text)
			}
			e := errorOf(t, r.text)
			top := e.Suggestions.Hint
			if len(e.Suggestions.DidYouMean) > 0 {
				top = e.Suggestions.DidYouMean[0]
			}
			if e.Code != tt.code || e.Field != tt.field || top != tt.top {
				t.Fatalf("got code=%s field=%q top=%q, want code=%s field=%q top=%q\n%s", e.Code, e.Field, top, tt.code, tt.field, tt.top, r.text)
			}
		})
	}
}

func TestServerListsWriteToolsWithHonestHintsAndServiceTools(t *testing.T) {
	s := newSession(t, noElicitation)
	res, err := s.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tool := range res.Tools {
		a := tool.Annotations
		got = append(got, fmt.Sprintf("%s readOnly=%v destructive=%v confirmation=%v", tool.Name, a.ReadOnlyHint, *a.DestructiveHint, tool.Meta["mcpwrite/confirmation"]))
	}
	want := []string{
		"apply_proposal readOnly=false destructive=true confirmation=<nil>",
		"discard_proposal readOnly=false destructive=false confirmation=<nil>",
		"get_write_schema readOnly=true destructive=false confirmation=<nil>",
		"parent_create readOnly=false destructive=false confirmation=DIRECT",
		"parent_operations readOnly=false destructive=false confirmation=DIRECT",
		"task_create readOnly=false destructive=false confirmation=DIRECT",
		"task_delete readOnly=false destructive=true confirmation=ELICIT",
		"task_get readOnly=true destructive=false confirmation=DIRECT",
		"task_list readOnly=true destructive=false confirmation=DIRECT",
		"task_move readOnly=false destructive=false confirmation=DIRECT",
		"task_transform readOnly=false destructive=false confirmation=DIRECT",
		"task_update readOnly=false destructive=false confirmation=DIRECT",
		"validate_write readOnly=true destructive=false confirmation=<nil>",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("tools:\n%q\nwant\n%q", got, want)
	}
}

// The seed's "Required for archive moves" is a conditional requirement the
// decoder checks, whichever spelling of archive the agent uses, before the
// domain is called; get_write_schema states it.
func TestTaskMoveRequiresArchiveDateForArchiveMoves(t *testing.T) {
	e := `{"code":"MISSING_REQUIRED_FIELD","message":"archiveDate is required when targetState is \"archive\"","field":"archiveDate",` +
		`"suggestions":{"hint":"send archiveDate, or set targetState to another value"}}`
	for _, tt := range []struct{ tool, args, want string }{
		{"task_move", `{"id":"` + firstID + `","targetState":"archive"}`, `{"success":false,"error":` + e + `,"errors":[` + e + `]}`},
		{"task_move", `{"id":"` + firstID + `","targetState":"archived","archiveDate":null}`, `{"success":false,"error":` + e + `,"errors":[` + e + `]}`},
		{"validate_write", `{"operation":"task_move","payload":{"id":"task-never","targetState":"archive"}}`, `{"success":true,"valid":false,"errors":[` + e + `],"warnings":[],"suggestions":[]}`},
	} {
		s := newSession(t, noElicitation)
		s.mustCall("task_create", `{"title":"Add OAuth login","type":"feature"}`)
		if r := s.call(tt.tool, tt.args); r.text != compact(tt.want) || r.isError != (tt.tool == "task_move") {
			t.Fatalf("%s %s: got isError=%v\n%s\nwant\n%s", tt.tool, tt.args, r.isError, r.text, compact(tt.want))
		}
		// Nothing moved.
		if got := s.mustCall("task_update", `{"id":"`+firstID+`","updates":{"assignee":"bob"}}`); !strings.Contains(got, `"workflowState":"backlog"`) {
			t.Fatalf("task moved: %s", got)
		}
	}
	s := newSession(t, noElicitation)
	var doc struct {
		RequiredWhen json.RawMessage `json:"required_when"`
	}
	if err := json.Unmarshal([]byte(s.mustCall("get_write_schema", `{"operation":"task_move"}`)), &doc); err != nil {
		t.Fatal(err)
	}
	if want := `[{"field":"archiveDate","when":"targetState","equals":["archive"],"rule":"archiveDate is required when targetState is \"archive\""}]`; string(doc.RequiredWhen) != want {
		t.Fatalf("required_when %s\nwant %s", doc.RequiredWhen, want)
	}
}

// The service speaks the document's camelCase (field_naming JSON_NAME):
// get_write_schema says so, and names what the server fills by the names
// the agent sees, with the proto path beside them.
func TestGetWriteSchemaSpeaksTheDocumentsFieldNames(t *testing.T) {
	s := newSession(t, noElicitation)
	var doc struct {
		FieldNaming    string          `json:"field_naming"`
		RequiredFields []string        `json:"required_fields"`
		OptionalFields []string        `json:"optional_fields"`
		ServerFills    json.RawMessage `json:"server_fills"`
	}
	if err := json.Unmarshal([]byte(s.mustCall("get_write_schema", `{"operation":"task_move"}`)), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.FieldNaming != "JSON_NAME" || strings.Join(doc.RequiredFields, ",") != "id,targetState" ||
		strings.Join(doc.OptionalFields, ",") != "rootDir,parentId,archiveDate,updateStatus" {
		t.Fatalf("field_naming %q, required_fields %v, optional_fields %v", doc.FieldNaming, doc.RequiredFields, doc.OptionalFields)
	}
	want := `[{"field":"meta.tenantId","proto_field":"meta.tenant_id","source":"context","how":"tenant id from the request context"},` +
		`{"field":"meta.principalId","proto_field":"meta.principal_id","source":"context","how":"principal id from the request context"},` +
		`{"field":"meta.correlationId","proto_field":"meta.correlation_id","source":"context","how":"correlation id from the request context"},` +
		`{"field":"meta.clientRequestId","proto_field":"meta.client_request_id","source":"context","how":"client request id from the request context"},` +
		`{"field":"meta.requestedAt","proto_field":"meta.requested_at","source":"generated","how":"the current time"},` +
		`{"field":"rootDir","proto_field":"root_dir","source":"resolver","how":"resolved by the server (project_root)","overridable":true}]`
	if string(doc.ServerFills) != want {
		t.Fatalf("server_fills\n%s\nwant\n%s", doc.ServerFills, want)
	}
}

// The seed puts no length on addLogEntry; an empty entry is not logged, and
// the answer says so.
func TestTaskUpdateIgnoresAnEmptyLogEntryWithAWarning(t *testing.T) {
	s := newSession(t, noElicitation)
	s.mustCall("task_create", `{"title":"Add OAuth login","type":"feature"}`)
	got := s.mustCall("task_update", `{"id":"`+firstID+`","updates":{"assignee":"bob","addLogEntry":"  "}}`)
	want := compact(`{"success":true,
		"data":{"id":"` + firstID + `","title":"Add OAuth login","type":"feature","status":"todo","priority":"medium",
			"workflowState":"backlog","area":"general","assignee":"bob",
			"path":".tasks/backlog/` + firstID + `.task.md","createdAt":"2026-11-22T10:00:00Z","updatedAt":"2026-11-22T10:00:00Z"},
		"message":"Task updated successfully",
		"metadata":{"timestamp":"2026-11-22T10:00:00Z","version":"2.0","warnings":["addLogEntry is empty and was ignored"]},
		"suggestions":["` + suggestMove + `"],"warnings":[]}`)
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
