package crm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/domain"
	crmv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/gen/crm/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/gen/crm/v1/crmv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

var fixedNow = time.Date(2026, 6, 28, 19, 52, 15, 0, time.UTC)

var (
	ada   = runtime.RequestContext{TenantID: "tenant-crm", PrincipalID: "user-ada"}
	grace = runtime.RequestContext{TenantID: "tenant-crm", PrincipalID: "user-grace"}
)

// recorder is the domain with every handler request kept for assertions
// (resolver calls are not handler calls and are not recorded).
type recorder struct {
	*domain.CRM
	mu   sync.Mutex
	reqs []proto.Message
}

func (r *recorder) record(m proto.Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, proto.Clone(m))
}

func (r *recorder) received() []proto.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]proto.Message(nil), r.reqs...)
}

func (r *recorder) CreatePerson(ctx context.Context, q *crmv1.CreatePersonRequest) (*crmv1.CreatePersonResponse, error) {
	r.record(q)
	return r.CRM.CreatePerson(ctx, q)
}

func (r *recorder) UpdatePerson(ctx context.Context, q *crmv1.UpdatePersonRequest) (*crmv1.UpdatePersonResponse, error) {
	r.record(q)
	return r.CRM.UpdatePerson(ctx, q)
}

func (r *recorder) DeletePerson(ctx context.Context, q *crmv1.DeletePersonRequest) (*crmv1.DeletePersonResponse, error) {
	r.record(q)
	return r.CRM.DeletePerson(ctx, q)
}

func (r *recorder) CreateOrg(ctx context.Context, q *crmv1.CreateOrgRequest) (*crmv1.CreateOrgResponse, error) {
	r.record(q)
	return r.CRM.CreateOrg(ctx, q)
}

func (r *recorder) UpdateOrg(ctx context.Context, q *crmv1.UpdateOrgRequest) (*crmv1.UpdateOrgResponse, error) {
	r.record(q)
	return r.CRM.UpdateOrg(ctx, q)
}

func (r *recorder) DeleteOrg(ctx context.Context, q *crmv1.DeleteOrgRequest) (*crmv1.DeleteOrgResponse, error) {
	r.record(q)
	return r.CRM.DeleteOrg(ctx, q)
}

func (r *recorder) CreateNote(ctx context.Context, q *crmv1.CreateNoteRequest) (*crmv1.CreateNoteResponse, error) {
	r.record(q)
	return r.CRM.CreateNote(ctx, q)
}

func (r *recorder) UpdateNote(ctx context.Context, q *crmv1.UpdateNoteRequest) (*crmv1.UpdateNoteResponse, error) {
	r.record(q)
	return r.CRM.UpdateNote(ctx, q)
}

func (r *recorder) DeleteNote(ctx context.Context, q *crmv1.DeleteNoteRequest) (*crmv1.DeleteNoteResponse, error) {
	r.record(q)
	return r.CRM.DeleteNote(ctx, q)
}

func (r *recorder) LinkPersonToOrg(ctx context.Context, q *crmv1.LinkPersonToOrgRequest) (*crmv1.LinkPersonToOrgResponse, error) {
	r.record(q)
	return r.CRM.LinkPersonToOrg(ctx, q)
}

func (r *recorder) AddNoteToPerson(ctx context.Context, q *crmv1.AddNoteToPersonRequest) (*crmv1.AddNoteToPersonResponse, error) {
	r.record(q)
	return r.CRM.AddNoteToPerson(ctx, q)
}

func (r *recorder) MergePeople(ctx context.Context, q *crmv1.MergePeopleRequest) (*crmv1.MergePeopleResponse, error) {
	r.record(q)
	return r.CRM.MergePeople(ctx, q)
}

// server is one CRM MCP server; each client session acts as its own user.
type server struct {
	t       *testing.T
	srv     *mcp.Server
	rec     *recorder
	users   sync.Map // client name (unique per connection) -> runtime.RequestContext
	clients atomic.Int64
}

func newServer(t *testing.T) *server { t.Helper(); return newServerWith(t, nil) }

// newServerWith is newServer with the handler wrap makes of the recorder
// (nil: the recorder itself).
func newServerWith(t *testing.T, wrap func(*recorder) crmv1mcpwrite.CrmServiceHandler) *server {
	t.Helper()
	s := &server{t: t, rec: &recorder{CRM: domain.New(func() time.Time { return fixedNow })}}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "crm", Version: "test"}, nil)
	var h crmv1mcpwrite.CrmServiceHandler = s.rec
	if wrap != nil {
		h = wrap(s.rec)
	}
	err := crmv1mcpwrite.RegisterCrmServiceTools(s.srv, h,
		runtime.WithClock(func() time.Time { return fixedNow }),
		runtime.WithRand(rand.NewChaCha8([32]byte{3})),
		runtime.WithErrorHook(domain.ErrorHook),
		runtime.WithPreviews(runtime.Previews{State: s.rec.StatePreview, Loss: s.rec.PreviewLoss}),
		runtime.WithRequestContextFunc(func(_ context.Context, req *mcp.CallToolRequest) (runtime.RequestContext, bool) {
			ci := req.ClientInfo()
			if ci == nil {
				return runtime.RequestContext{}, false
			}
			rc, ok := s.users.Load(ci.Name)
			if !ok {
				return runtime.RequestContext{}, false
			}
			return rc.(runtime.RequestContext), true
		}))
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	return s
}

// connect opens a client session acting as rc.
func (s *server) connect(rc runtime.RequestContext) *mcp.ClientSession {
	s.t.Helper()
	name := fmt.Sprintf("agent-%d", s.clients.Add(1))
	s.users.Store(name, rc)
	return mcptest.Connect(s.t, s.srv, mcptest.Options{ClientName: name})
}

// call is mcptest.Call in the (body, isError) shape these tests compare.
func call(t *testing.T, cs *mcp.ClientSession, tool, args string) (map[string]any, bool) {
	t.Helper()
	r := mcptest.Call(t, cs, tool, args)
	return r.Body, r.IsError
}

// propose calls a write tool and returns its proposal.
func propose(t *testing.T, cs *mcp.ClientSession, tool, args string) map[string]any {
	t.Helper()
	out, isErr := call(t, cs, tool, args)
	p, ok := out["proposal"].(map[string]any)
	if isErr || !ok {
		t.Fatalf("%s %s: want a proposal, got %v", tool, args, out)
	}
	return p
}

// apply applies a proposal and returns the result.
func apply(t *testing.T, cs *mcp.ClientSession, id string) (map[string]any, bool) {
	t.Helper()
	return call(t, cs, "apply_proposal", `{"proposal_id":"`+id+`"}`)
}

// commit proposes and applies a write, as a user who confirms.
func commit(t *testing.T, cs *mcp.ClientSession, tool, args string) map[string]any {
	t.Helper()
	out, isErr := apply(t, cs, propose(t, cs, tool, args)["proposal_id"].(string))
	if isErr {
		t.Fatalf("%s %s: apply failed: %v", tool, args, out)
	}
	return out
}

func assertJSON(t *testing.T, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want JSON: %v\n%s", err, want)
	}
	if diff := cmp.Diff(w, got); diff != "" {
		b, _ := json.Marshal(got)
		t.Errorf("structuredContent (-want +got):\n%s\ngot: %s", diff, b)
	}
}

func errorOf(t *testing.T, out map[string]any) (code, field, top string) {
	t.Helper()
	e, ok := out["error"].(map[string]any)
	if !ok {
		t.Fatalf("no error object in %v", out)
	}
	code, _ = e["code"].(string)
	field, _ = e["field"].(string)
	if s, ok := e["suggestions"].(map[string]any); ok {
		if d, ok := s["did_you_mean"].([]any); ok && len(d) > 0 {
			top, _ = d[0].(string)
		} else {
			top, _ = s["hint"].(string)
		}
	}
	return code, field, top
}

func codes(out map[string]any) []string {
	var cs []string
	es, _ := out["errors"].([]any)
	for _, e := range es {
		m := e.(map[string]any)
		f, _ := m["field"].(string)
		cs = append(cs, m["code"].(string)+"@"+f)
	}
	return cs
}

// fixture is ada's CRM: an organisation, Ada (linked to it), her duplicate
// and notes about each.
type fixture struct {
	acme, ada, dup, adaNote, dupNote, orgNote string
}

func (f fixture) expand(s string) string {
	return strings.NewReplacer("{{acme}}", f.acme, "{{ada}}", f.ada, "{{dup}}", f.dup,
		"{{adaNote}}", f.adaNote, "{{dupNote}}", f.dupNote, "{{orgNote}}", f.orgNote).Replace(s)
}

func setup(t *testing.T, cs *mcp.ClientSession) fixture {
	t.Helper()
	var f fixture
	id := func(out map[string]any, key string) string { return out[key].(map[string]any)["id"].(string) }
	f.acme = id(commit(t, cs, "create_org", `{"name":"Analytical Engines Ltd","domain":"engines.example","industry":"Computing"}`), "org")
	f.ada = id(commit(t, cs, "create_person", `{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.org"}`), "person")
	f.dup = id(commit(t, cs, "create_person", `{"first_name":"Ada","last_name":"L.","phone":"+44 20 7946 0000","title":"Analyst"}`), "person")
	commit(t, cs, "link_person_to_org", `{"person_id":"`+f.ada+`","org_id":"`+f.acme+`"}`)
	f.adaNote = id(commit(t, cs, "create_note", `{"body":"Met at the Difference Engine demo","person_id":"`+f.ada+`"}`), "note")
	f.dupNote = id(commit(t, cs, "create_note", `{"body":"Asked about punch cards","person_id":"`+f.dup+`"}`), "note")
	f.orgNote = id(commit(t, cs, "create_note", `{"body":"Renewal due in March","org_id":"`+f.acme+`"}`), "note")
	return f
}

// classification of every write tool, spelled as the tool surface
// decision spells it.
var classification = map[string]string{
	"create_person": "safe_create", "update_person": "safe_update", "delete_person": "destructive_delete",
	"create_org": "safe_create", "update_org": "safe_update", "delete_org": "destructive_delete",
	"create_note": "safe_create", "update_note": "destructive_update", "delete_note": "destructive_delete",
	"link_person_to_org": "safe_update", "add_note_to_person": "safe_create", "merge_people": "destructive_update",
}

func TestToolsListClassifiesEveryWriteAndNeverOffersUserID(t *testing.T) {
	cs := newServer(t).connect(ada)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		schema, _ := json.Marshal(tool.InputSchema)
		if strings.Contains(string(schema), `"user_id"`) {
			t.Errorf("%s offers user_id: %s", tool.Name, schema)
		}
		want, isWrite := classification[tool.Name]
		if !isWrite {
			continue
		}
		if got := tool.Meta["mcpwrite/classification"]; got != want {
			t.Errorf("%s classification = %v, want %s", tool.Name, got, want)
		}
		if got := tool.Meta["mcpwrite/confirmation"]; got != "PROPOSAL" {
			t.Errorf("%s confirmation = %v, want PROPOSAL (the service default)", tool.Name, got)
		}
		if d := tool.Annotations.DestructiveHint; d == nil || *d != strings.HasPrefix(want, "destructive") {
			t.Errorf("%s destructiveHint = %v, want %v", tool.Name, d, strings.HasPrefix(want, "destructive"))
		}
	}
	sort.Strings(names)
	want := []string{"add_note_to_person", "apply_proposal", "create_note", "create_org", "create_person", "delete_note", "delete_org", "delete_person",
		"discard_proposal", "find_people_at_org", "get_note", "get_org", "get_person", "get_write_schema", "link_person_to_org",
		"list_notes", "list_orgs", "list_people", "merge_people", "update_note", "update_org", "update_person", "validate_write"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("tools (-want +got):\n%s", diff)
	}
}

func TestCreatePersonIsProposedThenAppliedByIDOnce(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada)
	out, isErr := call(t, cs, "create_person", `{"first_name":"Charles","last_name":"Babbage","email":"charles@example.org"}`)
	if isErr {
		t.Fatalf("create_person: %v", out)
	}
	assertJSON(t, out, `{
		"success": true,
		"proposal": {
			"proposal_id": "prop_YIGURRDE4ONK2A4L4H7SSBLDMM",
			"action": "create",
			"tool": "create_person",
			"entity": {"type": "person", "id": "per_019f0fca-2998-76c1-90a9-12520b1c7c69"},
			"classification": "safe_create",
			"summary": "Create person: first_name=\"Charles\", last_name=\"Babbage\", email=\"charles@example.org\"",
			"diff": [{"field": "email", "before": null, "after": "charles@example.org"}, {"field": "first_name", "before": null, "after": "Charles"},
				{"field": "last_name", "before": null, "after": "Babbage"}],
			"preview": {"id": "per_019f0fca-2998-76c1-90a9-12520b1c7c69", "first_name": "Charles", "last_name": "Babbage", "email": "charles@example.org"},
			"expires_at": "2026-06-28T20:07:15Z",
			"apply_with": "apply_proposal"
		},
		"suggestions": ["Nothing was written yet. Show the summary and preview to the user; if they confirm, call apply_proposal with proposal_id \"prop_YIGURRDE4ONK2A4L4H7SSBLDMM\" before it expires."],
		"warnings": []
	}`)
	if n := len(s.rec.received()); n != 0 {
		t.Fatalf("handler ran %d time(s) before the proposal was applied", n)
	}
	id := out["proposal"].(map[string]any)["proposal_id"].(string)

	// Another user cannot apply it, and learns nothing about it.
	other, isErr := apply(t, s.connect(grace), id)
	if code, field, _ := errorOf(t, other); !isErr || code != runtime.CodeProposalNotFound || field != "proposal_id" {
		t.Fatalf("grace applying ada's proposal = %v, want PROPOSAL_NOT_FOUND", other)
	}

	applied, isErr := apply(t, cs, id)
	if isErr {
		t.Fatalf("apply: %v", applied)
	}
	assertJSON(t, applied, `{
		"success": true,
		"person": {"id": "per_019f0fca-2998-76c1-90a9-12520b1c7c69", "first_name": "Charles", "last_name": "Babbage", "email": "charles@example.org", "version": 1, "created_at": "2026-06-28T19:52:15Z", "updated_at": "2026-06-28T19:52:15Z"},
		"suggestions": ["Call link_person_to_org to link a person to the organisation they work at, replacing any previous link", "Call add_note_to_person to add a note about a person"],
		"warnings": []
	}`)
	want := []proto.Message{&crmv1.CreatePersonRequest{
		UserId: "user-ada", Id: applied["person"].(map[string]any)["id"].(string),
		FirstName: "Charles", LastName: "Babbage", Email: "charles@example.org",
	}}
	if diff := cmp.Diff(want, s.rec.received(), protocmp.Transform()); diff != "" {
		t.Errorf("domain requests (-want +got):\n%s", diff)
	}

	replay, isErr := apply(t, cs, id)
	if isErr || replay["idempotent_replay"] != true {
		t.Fatalf("second apply = %v, want a replay", replay)
	}
	delete(replay, "idempotent_replay")
	if diff := cmp.Diff(applied, replay); diff != "" {
		t.Errorf("replay differs from the first apply (-first +replay):\n%s", diff)
	}
	if n := len(s.rec.received()); n != 1 {
		t.Errorf("handler ran %d times, want once", n)
	}
}

// everyWriteProposal is the proposal of each write of everyWrite: the
// ProposedChange's action, entity and structured diff.
var everyWriteProposal = map[string]string{
	"create_person":      `{"action":"create","entity":{"id":"per_019f0fca-2998-7a91-badb-776ad3a2e6ad","type":"person"},"diff":[{"after":"charles@example.org","before":null,"field":"email"},{"after":"Charles","before":null,"field":"first_name"},{"after":"Babbage","before":null,"field":"last_name"},{"after":"{{acme}}","before":null,"field":"org_id"}]}`,
	"update_person":      `{"action":"update","entity":{"id":"{{ada}}","type":"person"},"diff":[{"after":"Mathematician","before":"","field":"title"}]}`,
	"delete_person":      `{"action":"delete","entity":{"id":"{{ada}}","type":"person"},"diff":[{"after":null,"before":"ada@example.org","field":"email"},{"after":null,"before":"Ada","field":"first_name"},{"after":null,"before":"Lovelace","field":"last_name"},{"after":null,"before":"{{acme}}","field":"org_id"},{"after":null,"before":"","field":"phone"},{"after":null,"before":"","field":"title"}]}`,
	"create_org":         `{"action":"create","entity":{"id":"org_019f0fca-2998-7a91-badb-776ad3a2e6ad","type":"org"},"diff":[{"after":"difference.example","before":null,"field":"domain"},{"after":"Difference Engines plc","before":null,"field":"name"}]}`,
	"update_org":         `{"action":"update","entity":{"id":"{{acme}}","type":"org"},"diff":[{"after":"Engineering","before":"Computing","field":"industry"}]}`,
	"delete_org":         `{"action":"delete","entity":{"id":"{{acme}}","type":"org"},"diff":[{"after":null,"before":"engines.example","field":"domain"},{"after":null,"before":"Computing","field":"industry"},{"after":null,"before":"Analytical Engines Ltd","field":"name"}]}`,
	"create_note":        `{"action":"create","entity":{"id":"note_019f0fca-2998-7a91-badb-776ad3a2e6ad","type":"note"},"diff":[{"after":"Prefers email over calls","before":null,"field":"body"},{"after":"{{acme}}","before":null,"field":"org_id"},{"after":"Org","before":null,"field":"subject_kind"}]}`,
	"update_note":        `{"action":"update","entity":{"id":"{{adaNote}}","type":"note"},"diff":[{"after":"Met at the Analytical Engine demo","before":"Met at the Difference Engine demo","field":"body"}]}`,
	"delete_note":        `{"action":"delete","entity":{"id":"{{orgNote}}","type":"note"},"diff":[{"after":null,"before":"Renewal due in March","field":"body"}]}`,
	"link_person_to_org": `{"action":"link","entity":{"id":"{{dup}}","type":"person"},"diff":[{"after":"{{acme}}","before":"","field":"org_id"}]}`,
	// A merge request names two ids and no field of the kept person,
	// so the runtime's diff (the request's fields against the current
	// state) has no row: what the merge changes and loses is in
	// current_state and will_lose (TestDestructiveProposalsNameWhatIsLost).
	"merge_people": `{"action":"merge","entity":{"id":"{{ada}}","type":"person"},"diff":null}`,
}

// everyWrite is one proposal and apply per write tool, with its answer.
var everyWrite = []struct {
	tool, args string
	want       string
}{
	{"create_person", `{"first_name":"Charles","last_name":"Babbage","email":"charles@example.org","org_id":"{{acme}}"}`, `{"person":{"created_at":"2026-06-28T19:52:15Z","email":"charles@example.org","first_name":"Charles","id":"per_019f0fca-2998-7a91-badb-776ad3a2e6ad","last_name":"Babbage","org_id":"{{acme}}","updated_at":"2026-06-28T19:52:15Z","version":1},"success":true,"suggestions":["Call link_person_to_org to link a person to the organisation they work at, replacing any previous link","Call add_note_to_person to add a note about a person"],"warnings":[]}`},
	{"update_person", `{"person_id":"{{ada}}","title":"Mathematician"}`, `{"person":{"created_at":"2026-06-28T19:52:15Z","email":"ada@example.org","first_name":"Ada","id":"{{ada}}","last_name":"Lovelace","org_id":"{{acme}}","title":"Mathematician","updated_at":"2026-06-28T19:52:15Z","version":3},"success":true,"suggestions":[],"warnings":[]}`},
	{"delete_person", `{"person_id":"{{ada}}"}`, `{"deleted_notes":1,"person_id":"{{ada}}","success":true,"suggestions":[],"warnings":[]}`},
	{"create_org", `{"name":"Difference Engines plc","domain":"difference.example"}`, `{"org":{"created_at":"2026-06-28T19:52:15Z","domain":"difference.example","id":"org_019f0fca-2998-7a91-badb-776ad3a2e6ad","name":"Difference Engines plc","updated_at":"2026-06-28T19:52:15Z","version":1},"success":true,"suggestions":["Call link_person_to_org to link a person to the organisation they work at, replacing any previous link"],"warnings":[]}`},
	{"update_org", `{"org_id":"{{acme}}","industry":"Engineering"}`, `{"org":{"created_at":"2026-06-28T19:52:15Z","domain":"engines.example","id":"{{acme}}","industry":"Engineering","name":"Analytical Engines Ltd","updated_at":"2026-06-28T19:52:15Z","version":2},"success":true,"suggestions":[],"warnings":[]}`},
	{"delete_org", `{"org_id":"{{acme}}"}`, `{"deleted_notes":1,"org_id":"{{acme}}","success":true,"suggestions":[],"unlinked_people":1,"warnings":[]}`},
	{"create_note", `{"body":"Prefers email over calls","org_id":"{{acme}}"}`, `{"note":{"body":"Prefers email over calls","created_at":"2026-06-28T19:52:15Z","id":"note_019f0fca-2998-7a91-badb-776ad3a2e6ad","org_id":"{{acme}}","updated_at":"2026-06-28T19:52:15Z","version":1},"success":true,"suggestions":[],"warnings":[]}`},
	{"update_note", `{"note_id":"{{adaNote}}","body":"Met at the Analytical Engine demo"}`, `{"note":{"body":"Met at the Analytical Engine demo","created_at":"2026-06-28T19:52:15Z","id":"{{adaNote}}","person_id":"{{ada}}","updated_at":"2026-06-28T19:52:15Z","version":2},"success":true,"suggestions":[],"warnings":[]}`},
	{"delete_note", `{"note_id":"{{orgNote}}"}`, `{"note_id":"{{orgNote}}","success":true,"suggestions":[],"warnings":[]}`},
	{"link_person_to_org", `{"person_id":"{{dup}}","org_id":"{{acme}}"}`, `{"person":{"created_at":"2026-06-28T19:52:15Z","first_name":"Ada","id":"{{dup}}","last_name":"L.","org_id":"{{acme}}","phone":"+44 20 7946 0000","title":"Analyst","updated_at":"2026-06-28T19:52:15Z","version":2},"success":true,"suggestions":[],"warnings":[]}`},
	{"merge_people", `{"source_person_id":"{{dup}}","target_person_id":"{{ada}}"}`, `{"merged_person_id":"{{dup}}","moved_notes":1,"person":{"created_at":"2026-06-28T19:52:15Z","email":"ada@example.org","first_name":"Ada","id":"{{ada}}","last_name":"Lovelace","org_id":"{{acme}}","phone":"+44 20 7946 0000","title":"Analyst","updated_at":"2026-06-28T19:52:15Z","version":3},"success":true,"suggestions":[],"warnings":[]}`},
}

func TestEveryWriteCommitsThroughAProposal(t *testing.T) { everyWriteCommits(t, newServer) }

// everyWriteCommits proposes and applies every write of everyWrite on a
// server newServer makes.
func everyWriteCommits(t *testing.T, newServer func(*testing.T) *server) {
	if len(everyWriteProposal) != len(everyWrite) { // add_note_to_person: TestAddNoteToPersonIsProposedThenApplied (exact)
		t.Fatalf("%d proposals for %d writes", len(everyWriteProposal), len(everyWrite))
	}
	for _, tt := range everyWrite {
		t.Run(tt.tool, func(t *testing.T) {
			s := newServer(t)
			cs := s.connect(ada)
			f := setup(t, cs)
			before := len(s.rec.received())
			p := propose(t, cs, tt.tool, f.expand(tt.args))
			got, _ := json.Marshal(map[string]any{"action": p["action"], "entity": p["entity"], "diff": p["diff"]})
			var g, w any
			_ = json.Unmarshal(got, &g)
			if err := json.Unmarshal([]byte(f.expand(everyWriteProposal[tt.tool])), &w); err != nil {
				t.Fatalf("want proposal: %v", err)
			}
			if diff := cmp.Diff(w, g); diff != "" {
				t.Errorf("proposal action, entity and diff (-want +got):\n%s", diff)
			}
			if p["tool"] != tt.tool || p["classification"] != classification[tt.tool] || p["apply_with"] != "apply_proposal" {
				t.Errorf("proposal = %v, want tool %s classified %s", p, tt.tool, classification[tt.tool])
			}
			if n := len(s.rec.received()); n != before {
				t.Fatalf("handler ran before the proposal was applied")
			}
			out, isErr := apply(t, cs, p["proposal_id"].(string))
			if isErr {
				t.Fatalf("apply: %v", out)
			}
			assertJSON(t, out, f.expand(tt.want))
			reqs := s.rec.received()
			if len(reqs) != before+1 {
				t.Fatalf("handler ran %d times, want once", len(reqs)-before)
			}
			if u := reqs[len(reqs)-1].ProtoReflect(); u.Get(u.Descriptor().Fields().ByName("user_id")).String() != "user-ada" {
				t.Errorf("domain request user_id = %v, want user-ada from the connection", reqs[len(reqs)-1])
			}
		})
	}
}

const notFoundPersonHint = "Use a person id returned by list_people or create_person; only your own records exist for you."

func TestAgentMistakesAreAnsweredBeforeAnythingIsProposed(t *testing.T) {
	tests := []struct {
		name, tool, args   string
		wantCodes          []string
		wantField, wantTop string
	}{
		{"camelCase argument", "create_person", `{"firstName":"Charles"}`,
			[]string{"UNKNOWN_FIELD@firstName", "MISSING_REQUIRED_FIELD@first_name"}, "firstName", "first_name"},
		{"user_id argument", "create_person", `{"first_name":"Charles","user_id":"user-grace"}`,
			[]string{"UNKNOWN_FIELD@user_id"}, "user_id", domain.UserIDHint},
		{"malformed email", "create_person", `{"first_name":"Charles","email":"charles at example.org"}`,
			[]string{"CONSTRAINT_VIOLATION@email"}, "email", ""},
		{"name instead of id", "update_person", `{"person_id":"Ada Lovelace","title":"Countess"}`,
			[]string{"NOT_FOUND@person_id"}, "person_id", notFoundPersonHint},
		{"nothing to change", "update_person", `{"person_id":"{{ada}}"}`,
			[]string{"VALIDATION_ERROR@"}, "", ""},
		{"email of another person", "update_person", `{"person_id":"{{dup}}","email":"ada@example.org"}`,
			[]string{"ALREADY_EXISTS@"}, "", "The existing person is {{ada}}: update it with update_person, or merge duplicates."},
		{"generic id argument", "delete_person", `{"id":"{{ada}}"}`,
			[]string{"UNKNOWN_FIELD@id", "MISSING_REQUIRED_FIELD@person_id"}, "id", "person_id"},
		{"deleted person", "delete_person", `{"person_id":"per_019f0fca-0000-7000-8000-000000000000"}`,
			[]string{"NOT_FOUND@person_id"}, "person_id", notFoundPersonHint},
		{"empty name", "create_org", `{"name":""}`,
			[]string{"CONSTRAINT_VIOLATION@name"}, "name", ""},
		{"URL instead of domain", "create_org", `{"name":"Difference Engines plc","domain":"https://difference.example/"}`,
			[]string{"CONSTRAINT_VIOLATION@domain"}, "domain", ""},
		{"unknown org", "update_org", `{"org_id":"org_acme","name":"Acme"}`,
			[]string{"NOT_FOUND@org_id"}, "org_id", "Use an org id returned by list_orgs or create_org; only your own records exist for you."},
		{"nothing to change", "update_org", `{"org_id":"{{acme}}"}`,
			[]string{"VALIDATION_ERROR@"}, "", ""},
		{"person id as org", "delete_org", `{"org_id":"{{ada}}"}`,
			[]string{"NOT_FOUND@org_id"}, "org_id", "Use an org id returned by list_orgs or create_org; only your own records exist for you."},
		{"short argument name", "delete_org", `{"org":"{{acme}}"}`,
			[]string{"UNKNOWN_FIELD@org", "MISSING_REQUIRED_FIELD@org_id"}, "org", "org_id"},
		{"no subject", "create_note", `{"body":"Call back on Monday"}`,
			[]string{"MISSING_REQUIRED_FIELD@person_id"}, "person_id", ""},
		{"two subjects", "create_note", `{"body":"Call back on Monday","person_id":"{{ada}}","org_id":"{{acme}}"}`,
			[]string{"VALIDATION_ERROR@org_id"}, "org_id", ""},
		{"text instead of body", "create_note", `{"text":"Call back on Monday","person_id":"{{ada}}"}`,
			[]string{"UNKNOWN_FIELD@text", "MISSING_REQUIRED_FIELD@body"}, "text", ""},
		{"missing body", "update_note", `{"note_id":"{{adaNote}}"}`,
			[]string{"MISSING_REQUIRED_FIELD@body"}, "body", ""},
		{"unknown note", "update_note", `{"note_id":"note_1","body":"Updated"}`,
			[]string{"NOT_FOUND@note_id"}, "note_id", "Use a note id returned by list_notes or create_note; only your own records exist for you."},
		{"person id as note", "delete_note", `{"note_id":"{{ada}}"}`,
			[]string{"NOT_FOUND@note_id"}, "note_id", "Use a note id returned by list_notes or create_note; only your own records exist for you."},
		{"no note id", "delete_note", `{}`,
			[]string{"MISSING_REQUIRED_FIELD@note_id"}, "note_id", ""},
		{"organization spelled out", "link_person_to_org", `{"person_id":"{{dup}}","organization_id":"{{acme}}"}`,
			[]string{"UNKNOWN_FIELD@organization_id", "MISSING_REQUIRED_FIELD@org_id"}, "organization_id", "org_id"},
		{"org name instead of id", "link_person_to_org", `{"person_id":"{{dup}}","org_id":"Analytical Engines Ltd"}`,
			[]string{"NOT_FOUND@org_id"}, "org_id", "Use an org id returned by list_orgs or create_org; only your own records exist for you."},
		{"person merged into themselves", "merge_people", `{"source_person_id":"{{ada}}","target_person_id":"{{ada}}"}`,
			[]string{"VALIDATION_ERROR@target_person_id"}, "target_person_id", ""},
		{"unknown target", "merge_people", `{"source_person_id":"{{dup}}","target_person_id":"per_ada"}`,
			[]string{"NOT_FOUND@target_person_id"}, "target_person_id", notFoundPersonHint},
	}
	for _, tt := range tests {
		t.Run(tt.tool+"/"+tt.name, func(t *testing.T) {
			s := newServer(t)
			cs := s.connect(ada)
			f := setup(t, cs)
			before := len(s.rec.received())
			out, isErr := call(t, cs, tt.tool, f.expand(tt.args))
			if !isErr {
				t.Fatalf("want isError, got %v", out)
			}
			if diff := cmp.Diff(tt.wantCodes, codes(out)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if _, field, top := errorOf(t, out); field != tt.wantField || top != f.expand(tt.wantTop) {
				t.Errorf("field, top suggestion = %q, %q; want %q, %q", field, top, tt.wantField, f.expand(tt.wantTop))
			}
			if _, proposed := out["proposal"]; proposed || len(s.rec.received()) != before {
				t.Errorf("a mistaken call was proposed or handled")
			}
		})
	}
}

func TestAnotherUsersIDsAreNotFound(t *testing.T) {
	tests := []struct{ tool, args, field string }{
		{"update_person", `{"person_id":"{{ada}}","title":"Impostor"}`, "person_id"},
		{"delete_person", `{"person_id":"{{ada}}"}`, "person_id"},
		{"update_org", `{"org_id":"{{acme}}","name":"Mine now"}`, "org_id"},
		{"create_note", `{"body":"Spy note","person_id":"{{ada}}"}`, "person_id"},
		{"delete_note", `{"note_id":"{{adaNote}}"}`, "note_id"},
		{"merge_people", `{"source_person_id":"{{dup}}","target_person_id":"{{ada}}"}`, "source_person_id"},
		{"get_person", `{"person_id":"{{ada}}"}`, "person_id"},
		{"get_org", `{"org_id":"{{acme}}"}`, "org_id"},
		{"get_note", `{"note_id":"{{adaNote}}"}`, "note_id"},
		{"list_notes", `{"person_id":"{{ada}}"}`, "person_id"},
		{"find_people_at_org", `{"org_id":"{{acme}}"}`, "org_id"},
		{"find_people_at_org", `{"org_name":"Analytical Engines Ltd"}`, "org_name"},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.field, func(t *testing.T) {
			s := newServer(t)
			f := setup(t, s.connect(ada))
			out, isErr := call(t, s.connect(grace), tt.tool, f.expand(tt.args))
			code, field, _ := errorOf(t, out)
			if !isErr || code != runtime.CodeNotFound || field != tt.field {
				t.Fatalf("grace %s on ada's records = %v, want NOT_FOUND on %s", tt.tool, out, tt.field)
			}
		})
	}
}

func TestProposalIsStaleWhenTheRecordChangedBeforeApply(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada)
	f := setup(t, cs)
	p := propose(t, cs, "update_person", `{"person_id":"`+f.ada+`","title":"Mathematician"}`)
	// The proposal names the person and shows what the update changes.
	pj, _ := json.Marshal(map[string]any{"action": p["action"], "entity": p["entity"], "diff": p["diff"]})
	if want := `{"action":"update","diff":[{"after":"Mathematician","before":"","field":"title"}],"entity":{"id":"` + f.ada + `","type":"person"}}`; string(pj) != want {
		t.Fatalf("proposal action, entity and diff = %s\nwant %s", pj, want)
	}
	commit(t, cs, "update_person", `{"person_id":"`+f.ada+`","phone":"+44 20 7946 0001"}`)
	handled := len(s.rec.received())
	id := p["proposal_id"].(string)
	out, isErr := apply(t, cs, id)
	if !isErr {
		t.Fatalf("apply of a stale proposal = %v", out)
	}
	fresh := takeFresh(t, out, id, "update_person", "Ada Lovelace (version 3, 1 note)")
	// The person as the user saw it is what changed: the answer says how.
	assertJSON(t, out["error"], `{
		"code": "PROPOSAL_STALE",
		"message": "Proposal \"`+id+`\" is stale: person `+f.ada+` changed since the user saw it (was: Ada Lovelace (version 2, 1 note); now: Ada Lovelace (version 3, 1 note)). Nothing was written.",
		"field": "proposal_id",
		"details": {"proposal_id": "`+id+`", "target": "person `+f.ada+`", "before": "Ada Lovelace (version 2, 1 note)", "after": "Ada Lovelace (version 3, 1 note)"},
		"suggestions": {"hint": "`+freshHint+`"}
	}`)
	if len(s.rec.received()) != handled {
		t.Error("a stale proposal reached the handler")
	}
	// The user confirms the same change on the person as it is now.
	if out, isErr := apply(t, cs, fresh); isErr || out["person"].(map[string]any)["title"] != "Mathematician" {
		t.Fatalf("apply of the fresh proposal = %v", out)
	}
}

func TestApplyReportsConflictsFoundAtCommit(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada)
	f := setup(t, cs)
	p := propose(t, cs, "create_person", `{"first_name":"Augusta","email":"ada@example.org"}`)
	out, isErr := apply(t, cs, p["proposal_id"].(string))
	if !isErr {
		t.Fatalf("apply of a duplicate email = %v", out)
	}
	assertJSON(t, out["error"], `{
		"code": "ALREADY_EXISTS",
		"message": "a person with this email already exists",
		"details": {"resource_type": "person", "resource_name": "`+f.ada+`"},
		"suggestions": {"hint": "The existing person is `+f.ada+`: update it with update_person, or merge duplicates."}
	}`)
}

// A merge proposal is bound to both people as the user saw them: a change
// to either one, a note added to the duplicate (it would move with the
// merge), or either one deleted before apply makes it stale, the answer
// says what changed, and nothing is merged.
func TestMergeProposalIsStaleWhenEitherPersonChanged(t *testing.T) {
	const shown = "merge Ada L. (version 1, 1 note) into Ada Lovelace (version 2, 1 note)"
	for _, tt := range []struct {
		name   string
		change func(t *testing.T, cs *mcp.ClientSession, f fixture)
		now    string
	}{
		{"kept person changed", func(t *testing.T, cs *mcp.ClientSession, f fixture) {
			commit(t, cs, "update_person", `{"person_id":"`+f.ada+`","title":"Countess"}`)
		}, "merge Ada L. (version 1, 1 note) into Ada Lovelace (version 3, 1 note)"},
		{"duplicate changed", func(t *testing.T, cs *mcp.ClientSession, f fixture) {
			commit(t, cs, "update_person", `{"person_id":"`+f.dup+`","title":"Countess"}`)
		}, "merge Ada L. (version 2, 1 note) into Ada Lovelace (version 2, 1 note)"},
		{"note added to the duplicate", func(t *testing.T, cs *mcp.ClientSession, f fixture) {
			commit(t, cs, "create_note", `{"body":"Private","person_id":"`+f.dup+`"}`)
		}, "merge Ada L. (version 1, 2 notes) into Ada Lovelace (version 2, 1 note)"},
		{"duplicate deleted", func(t *testing.T, cs *mcp.ClientSession, f fixture) {
			commit(t, cs, "delete_person", `{"person_id":"`+f.dup+`"}`)
		}, "no longer exists"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t)
			cs := s.connect(ada)
			f := setup(t, cs)
			p := propose(t, cs, "merge_people", `{"source_person_id":"`+f.dup+`","target_person_id":"`+f.ada+`"}`)
			target := "people " + f.dup + " and " + f.ada
			if p["target"] != target || p["current_state"] != shown {
				t.Fatalf("the proposal does not show the state it is bound to: %v", p)
			}
			tt.change(t, cs, f)
			handled := len(s.rec.received())
			id := p["proposal_id"].(string)
			out, isErr := apply(t, cs, id)
			if !isErr {
				t.Fatalf("apply of a stale merge = %v", out)
			}
			hint := "Call the write tool again so the user confirms the current state."
			if tt.now != "no longer exists" { // a merge of people who still exist is proposed afresh
				takeFresh(t, out, id, "merge_people", tt.now)
				hint = freshHint
			}
			assertJSON(t, out["error"], `{
				"code": "PROPOSAL_STALE",
				"message": "Proposal \"`+id+`\" is stale: `+target+` changed since the user saw it (was: `+shown+`; now: `+tt.now+`). Nothing was written.",
				"field": "proposal_id",
				"details": {"proposal_id": "`+id+`", "target": "`+target+`", "before": "`+shown+`", "after": "`+tt.now+`"},
				"suggestions": {"hint": "`+hint+`"}
			}`)
			if len(s.rec.received()) != handled {
				t.Error("a stale merge reached the handler")
			}
		})
	}
}

// An unchanged merge applies.
func TestMergeProposalOfUnchangedPeopleApplies(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada)
	f := setup(t, cs)
	p := propose(t, cs, "merge_people", `{"source_person_id":"`+f.dup+`","target_person_id":"`+f.ada+`"}`)
	out, isErr := apply(t, cs, p["proposal_id"].(string))
	if isErr || out["merged_person_id"] != f.dup || out["moved_notes"] != float64(1) {
		t.Fatalf("apply = %v", out)
	}
}

// A person's deletion is bound to the notes it deletes with them: a note
// added after the proposal makes it stale, and nothing is deleted.
func TestDeletePersonProposalIsStaleWhenANoteWasAdded(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada)
	f := setup(t, cs)
	p := propose(t, cs, "delete_person", `{"person_id":"`+f.dup+`"}`)
	const shown, now = "Ada L. (version 1, 1 note)", "Ada L. (version 1, 2 notes)"
	if p["target"] != "person "+f.dup || p["current_state"] != shown {
		t.Fatalf("the proposal does not show the state it is bound to: %v", p)
	}
	commit(t, cs, "create_note", `{"body":"Private","person_id":"`+f.dup+`"}`)
	id := p["proposal_id"].(string)
	out, isErr := apply(t, cs, id)
	if !isErr {
		t.Fatalf("apply of a stale deletion = %v", out)
	}
	takeFresh(t, out, id, "delete_person", now)
	assertJSON(t, out["error"], `{
		"code": "PROPOSAL_STALE",
		"message": "Proposal \"`+id+`\" is stale: person `+f.dup+` changed since the user saw it (was: `+shown+`; now: `+now+`). Nothing was written.",
		"field": "proposal_id",
		"details": {"proposal_id": "`+id+`", "target": "person `+f.dup+`", "before": "`+shown+`", "after": "`+now+`"},
		"suggestions": {"hint": "`+freshHint+`"}
	}`)
	if _, ok := s.rec.Record(ada.TenantID, ada.PrincipalID, "person", f.dup); !ok {
		t.Error("the person was deleted")
	}
}

// freshHint is the hint of a stale answer that carries a fresh proposal.
const freshHint = "Nothing was written. details.fresh_proposal is the same change against the current state: show it to the user and, if they confirm, call apply_proposal with its proposal_id."

// takeFresh removes details.fresh_proposal from a stale answer's error,
// checks it is a new proposal of tool bound to the state now, and returns
// its id.
func takeFresh(t *testing.T, out map[string]any, stale, tool, now string) string {
	t.Helper()
	e, _ := out["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	fresh, _ := d["fresh_proposal"].(map[string]any)
	delete(d, "fresh_proposal")
	id, _ := fresh["proposal_id"].(string)
	if id == "" || id == stale || fresh["tool"] != tool || fresh["current_state"] != now {
		t.Fatalf("fresh proposal %v, want a new %s bound to %q", fresh, tool, now)
	}
	return id
}
