package crm_test

import (
	"context"
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	crmv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/gen/crm/v1"
)

// documentTools are the tools the tool surface decision names: coarse
// verb_noun CRUD per entity (people, orgs, notes) and the four domain tools
// that earn their place.
var documentTools = []string{
	"list_people", "get_person", "create_person", "update_person", "delete_person",
	"list_orgs", "get_org", "create_org", "update_org", "delete_org",
	"list_notes", "get_note", "create_note", "update_note", "delete_note",
	"find_people_at_org", "link_person_to_org", "add_note_to_person", "merge_people",
}

// Discovery is exhaustive: one tools/list at the handshake returns every
// tool, with no cursor to follow; every name is verb_noun snake_case, plural
// for collections (list_*) and singular otherwise.
func TestToolsListIsExhaustiveAndNamedVerbNoun(t *testing.T) {
	cs := newServer(t).connect(ada)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.NextCursor != "" {
		t.Fatalf("tools/list paginates (next cursor %q): the document lists every tool at once", res.NextCursor)
	}
	listed := map[string]bool{}
	verbNoun := regexp.MustCompile(`^[a-z]+(_[a-z]+)+$`)
	for _, tool := range res.Tools {
		listed[tool.Name] = true
		if !verbNoun.MatchString(tool.Name) {
			t.Errorf("%s is not verb_noun snake_case", tool.Name)
		}
	}
	for _, name := range documentTools {
		if !listed[name] {
			t.Errorf("%s, named by the document, is not listed", name)
		}
		verb, noun, _ := strings.Cut(name, "_")
		plural := noun == "people" || noun == "orgs" || noun == "notes"
		switch verb {
		case "list":
			if !plural {
				t.Errorf("%s lists a collection: its noun must be plural", name)
			}
		case "get", "create", "update", "delete":
			if plural {
				t.Errorf("%s acts on one item: its noun must be singular", name)
			}
		}
	}
}

// add_note_to_person: a note about a person in one call (person_id and
// body), proposed like every write and applied by id.
func TestAddNoteToPersonIsProposedThenApplied(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada)
	f := setup(t, cs)
	before := len(s.rec.received())
	out, isErr := call(t, cs, "add_note_to_person", `{"person_id":"`+f.ada+`","body":"Prefers email over calls"}`)
	if isErr {
		t.Fatalf("add_note_to_person: %v", out)
	}
	const note = "note_019f0fca-2998-7a91-badb-776ad3a2e6ad"
	assertJSON(t, out, f.expand(`{
		"success": true,
		"proposal": {
			"proposal_id": "prop_TM42NIF4R5PXZCZOXM4XNBS6XM",
			"action": "create",
			"tool": "add_note_to_person",
			"entity": {"type": "note", "id": "`+note+`"},
			"classification": "safe_create",
			"summary": "Add note to person: person_id=\"{{ada}}\", body=\"Prefers email over calls\"",
			"diff": [{"field": "body", "before": null, "after": "Prefers email over calls"}, {"field": "person_id", "before": null, "after": "{{ada}}"},
				{"field": "subject_kind", "before": null, "after": "Person"}],
			"preview": {"id": "`+note+`", "person_id": "{{ada}}", "body": "Prefers email over calls", "subject_kind": "Person"},
			"expires_at": "2026-06-28T20:07:15Z",
			"apply_with": "apply_proposal"
		},
		"suggestions": ["Nothing was written yet. Show the summary and preview to the user; if they confirm, call apply_proposal with proposal_id \"prop_TM42NIF4R5PXZCZOXM4XNBS6XM\" before it expires."],
		"warnings": []
	}`))
	if len(s.rec.received()) != before {
		t.Fatal("the handler ran before the proposal was applied")
	}
	applied, isErr := apply(t, cs, "prop_TM42NIF4R5PXZCZOXM4XNBS6XM")
	if isErr {
		t.Fatalf("apply: %v", applied)
	}
	assertJSON(t, applied, f.expand(`{
		"success": true,
		"note": {"id": "`+note+`", "body": "Prefers email over calls", "person_id": "{{ada}}", "version": 1, "created_at": "2026-06-28T19:52:15Z", "updated_at": "2026-06-28T19:52:15Z"},
		"suggestions": ["Call list_notes to list your notes, oldest first; optionally only those about one person or organisation"],
		"warnings": []
	}`))
	reqs := s.rec.received()
	want := &crmv1.AddNoteToPersonRequest{UserId: "user-ada", Id: note, PersonId: f.ada, Body: "Prefers email over calls", SubjectKind: crmv1.SubjectKind_SUBJECT_KIND_PERSON}
	if diff := cmp.Diff(proto.Message(want), reqs[len(reqs)-1], protocmp.Transform()); diff != "" {
		t.Errorf("domain request (-want +got):\n%s", diff)
	}
	notes, _ := call(t, cs, "list_notes", `{"person_id":"`+f.ada+`"}`)
	if got := len(notes["notes"].([]any)); got != 2 {
		t.Errorf("Ada has %d notes after the apply, want 2", got)
	}
}

func TestAddNoteToPersonMistakesAreAnswered(t *testing.T) {
	tests := []struct {
		name, args         string
		wantCodes          []string
		wantField, wantTop string
	}{
		{"organisation instead of person", `{"org_id":"{{acme}}","body":"Renewal"}`,
			[]string{"UNKNOWN_FIELD@org_id", "MISSING_REQUIRED_FIELD@person_id"}, "org_id", ""},
		{"unknown person", `{"person_id":"per_019f0fca-0000-7000-8000-000000000000","body":"Hello"}`,
			[]string{"NOT_FOUND@person_id"}, "person_id", notFoundPersonHint},
		{"org id as person", `{"person_id":"{{acme}}","body":"Hello"}`,
			[]string{"NOT_FOUND@person_id"}, "person_id", notFoundPersonHint},
		{"no body", `{"person_id":"{{ada}}"}`,
			[]string{"MISSING_REQUIRED_FIELD@body"}, "body", ""},
		{"acting user as argument", `{"person_id":"{{ada}}","body":"Hello","user_id":"user-grace"}`,
			[]string{"UNKNOWN_FIELD@user_id"}, "user_id", "Do not send user_id: the acting user comes from the authenticated connection. Remove the argument and retry."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t)
			cs := s.connect(ada)
			f := setup(t, cs)
			before := len(s.rec.received())
			out, isErr := call(t, cs, "add_note_to_person", f.expand(tt.args))
			if !isErr {
				t.Fatalf("want isError, got %v", out)
			}
			if diff := cmp.Diff(tt.wantCodes, codes(out)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if _, field, top := errorOf(t, out); field != tt.wantField || top != tt.wantTop {
				t.Errorf("field, top suggestion = %q, %q; want %q, %q", field, top, tt.wantField, tt.wantTop)
			}
			if _, proposed := out["proposal"]; proposed || len(s.rec.received()) != before {
				t.Errorf("a mistaken call was proposed or handled")
			}
		})
	}
}

// Every destructive proposal names what is lost, concretely: the records
// deleted with it, the links it removes, the values it overwrites. Every
// proposal names the entity and the state the user confirms, so the user
// sees the danger before confirming; a safe_update names no loss.
func TestDestructiveProposalsNameWhatIsLost(t *testing.T) {
	tests := []struct {
		tool, args                      string
		entity, target, state, willLose string
	}{
		{"delete_person", `{"person_id":"{{ada}}"}`, `{"type":"person","id":"{{ada}}"}`, "person {{ada}}", "Ada Lovelace (version 2, 1 note)",
			`person Ada Lovelace ({{ada}}), their 1 note ("Met at the Difference Engine demo") and their link to Analytical Engines Ltd ({{acme}})`},
		{"delete_person", `{"person_id":"{{dup}}"}`, `{"type":"person","id":"{{dup}}"}`, "person {{dup}}", "Ada L. (version 1, 1 note)",
			`person Ada L. ({{dup}}) and their 1 note ("Asked about punch cards")`},
		{"delete_org", `{"org_id":"{{acme}}"}`, `{"type":"org","id":"{{acme}}"}`, "org {{acme}}", "Analytical Engines Ltd (version 1, 1 note, 1 person)",
			`organisation Analytical Engines Ltd ({{acme}}), its 1 note ("Renewal due in March") and the links of 1 person to it (Ada Lovelace; they are kept, without an organisation)`},
		{"delete_note", `{"note_id":"{{adaNote}}"}`, `{"type":"note","id":"{{adaNote}}"}`, "note {{adaNote}}", `note about Ada Lovelace (version 1): "Met at the Difference Engine demo"`,
			`note {{adaNote}} about Ada Lovelace: "Met at the Difference Engine demo"`},
		{"update_note", `{"note_id":"{{adaNote}}","body":"Met at the Analytical Engine demo"}`, `{"type":"note","id":"{{adaNote}}"}`, "note {{adaNote}}", `note about Ada Lovelace (version 1): "Met at the Difference Engine demo"`,
			`the current text of note {{adaNote}}: "Met at the Difference Engine demo"`},
		{"merge_people", `{"source_person_id":"{{dup}}","target_person_id":"{{ada}}"}`, `{"type":"person","id":"{{ada}}"}`, "people {{dup}} and {{ada}}", "merge Ada L. (version 1, 1 note) into Ada Lovelace (version 2, 1 note)",
			`person Ada L. ({{dup}}), deleted after the merge; their last_name "L." (Ada Lovelace keeps "Lovelace"); their note moves to Ada Lovelace`},
		// safe_update: the proposal names its entity and state but no loss,
		// as ADR-0030 names what is lost for destructive_* only.
		{"update_person", `{"person_id":"{{dup}}","title":"Countess"}`, `{"type":"person","id":"{{dup}}"}`, "person {{dup}}", "Ada L. (version 1, 1 note)", ""},
		{"update_org", `{"org_id":"{{acme}}","industry":"Engineering"}`, `{"type":"org","id":"{{acme}}"}`, "org {{acme}}", "Analytical Engines Ltd (version 1, 1 note, 1 person)", ""},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
			s := newServer(t)
			cs := s.connect(ada)
			f := setup(t, cs)
			p := propose(t, cs, tt.tool, f.expand(tt.args))
			got, _ := json.Marshal(map[string]any{"entity": p["entity"], "target": p["target"], "current_state": p["current_state"], "will_lose": p["will_lose"]})
			var willLose any
			if tt.willLose != "" {
				willLose = f.expand(tt.willLose)
			}
			want, _ := json.Marshal(map[string]any{"entity": json.RawMessage(f.expand(tt.entity)), "target": f.expand(tt.target), "current_state": tt.state, "will_lose": willLose})
			var g, w any
			_ = json.Unmarshal(got, &g)
			_ = json.Unmarshal(want, &w)
			if diff := cmp.Diff(w, g); diff != "" {
				t.Errorf("proposal (-want +got):\n%s", diff)
			}
		})
	}
	// Safe creates lose nothing and say so by saying nothing.
	s := newServer(t)
	cs := s.connect(ada)
	f := setup(t, cs)
	for _, c := range [][2]string{{"create_person", `{"first_name":"Charles"}`}, {"create_note", `{"body":"x","org_id":"{{acme}}"}`}, {"add_note_to_person", `{"body":"x","person_id":"{{ada}}"}`}} {
		if p := propose(t, cs, c[0], f.expand(c[1])); p["will_lose"] != nil {
			t.Errorf("%s proposal claims a loss: %v", c[0], p["will_lose"])
		}
	}
}

// An organisation's deletion is bound to the people whose link it removes:
// a person linked after the proposal makes it stale (the user confirmed
// unlinking one person, not two), and nothing is deleted.
func TestDeleteOrgProposalIsStaleWhenAPersonWasLinked(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada)
	f := setup(t, cs)
	p := propose(t, cs, "delete_org", `{"org_id":"`+f.acme+`"}`)
	commit(t, cs, "link_person_to_org", `{"person_id":"`+f.dup+`","org_id":"`+f.acme+`"}`)
	id := p["proposal_id"].(string)
	out, isErr := apply(t, cs, id)
	if !isErr {
		t.Fatalf("apply of a stale deletion = %v", out)
	}
	const shown, now = "Analytical Engines Ltd (version 1, 1 note, 1 person)", "Analytical Engines Ltd (version 1, 1 note, 2 people)"
	fresh := takeFresh(t, out, id, "delete_org", now)
	assertJSON(t, out["error"], `{
		"code": "PROPOSAL_STALE",
		"message": "Proposal \"`+id+`\" is stale: org `+f.acme+` changed since the user saw it (was: `+shown+`; now: `+now+`). Nothing was written.",
		"field": "proposal_id",
		"details": {"proposal_id": "`+id+`", "target": "org `+f.acme+`", "before": "`+shown+`", "after": "`+now+`"},
		"suggestions": {"hint": "`+freshHint+`"}
	}`)
	if _, ok := s.rec.Record(ada.TenantID, ada.PrincipalID, "org", f.acme); !ok {
		t.Fatal("the organisation was deleted")
	}
	if out, isErr := apply(t, cs, fresh); isErr || out["unlinked_people"] != float64(2) {
		t.Fatalf("apply of the fresh proposal = %v", out)
	}
}

// The agent may describe the change in its own words: every write tool
// declares the optional summary (reads do not), the proposal shows it as
// agent_summary beside the server's summary, it never reaches the domain
// request, and a fresh proposal of a stale one keeps it.
func TestAgentSummaryIsShownWithTheProposalNeverWritten(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, tool := range res.Tools {
		b, _ := json.Marshal(tool.InputSchema)
		var in struct {
			Properties map[string]struct {
				Type        string `json:"type"`
				MaxLength   int    `json:"maxLength"`
				Description string `json:"description"`
			} `json:"properties"`
		}
		_ = json.Unmarshal(b, &in)
		if p, ok := in.Properties["summary"]; ok {
			declared = append(declared, tool.Name)
			if p.Type != "string" || p.MaxLength != 200 || !strings.HasPrefix(p.Description, "Optional: the change in your own words") {
				t.Errorf("%s summary schema = %+v", tool.Name, p)
			}
		}
	}
	var writes []string
	for name := range classification {
		writes = append(writes, name)
	}
	sort.Strings(declared)
	sort.Strings(writes)
	if diff := cmp.Diff(writes, declared); diff != "" {
		t.Errorf("tools declaring summary (-every write +declared):\n%s", diff)
	}

	f := setup(t, cs)
	const said = "Merge the duplicate Ada L. into Ada Lovelace"
	args := `{"source_person_id":"` + f.dup + `","target_person_id":"` + f.ada + `","summary":"` + said + `"}`
	p := propose(t, cs, "merge_people", args)
	if p["agent_summary"] != said || p["summary"] != `Merge people: source_person_id="`+f.dup+`", target_person_id="`+f.ada+`"` {
		t.Fatalf("proposal summaries = %q / %q", p["summary"], p["agent_summary"])
	}
	if _, inPreview := p["preview"].(map[string]any)["summary"]; inPreview {
		t.Errorf("the agent's summary is in the request preview: %v", p["preview"])
	}
	// Stale (the kept person changed): the fresh proposal keeps the words.
	commit(t, cs, "update_person", `{"person_id":"`+f.ada+`","title":"Countess"}`)
	out, isErr := apply(t, cs, p["proposal_id"].(string))
	if !isErr {
		t.Fatalf("apply of a stale merge = %v", out)
	}
	fresh := out["error"].(map[string]any)["details"].(map[string]any)["fresh_proposal"].(map[string]any)
	if fresh["agent_summary"] != said {
		t.Fatalf("fresh proposal agent_summary = %v, want %q", fresh["agent_summary"], said)
	}
	out, isErr = apply(t, cs, fresh["proposal_id"].(string))
	if isErr {
		t.Fatalf("apply: %v", out)
	}
	reqs := s.rec.received()
	want := &crmv1.MergePeopleRequest{UserId: "user-ada", SourcePersonId: f.dup, TargetPersonId: f.ada, SourceVersion: 1, ExpectedVersion: 3}
	if diff := cmp.Diff(proto.Message(want), reqs[len(reqs)-1], protocmp.Transform()); diff != "" {
		t.Errorf("domain request (-want +got):\n%s", diff)
	}

	// Bounded, and a read takes none.
	out, _ = call(t, cs, "delete_note", `{"note_id":"`+f.orgNote+`","summary":"`+strings.Repeat("a", 201)+`"}`)
	if diff := cmp.Diff([]string{"CONSTRAINT_VIOLATION@summary"}, codes(out)); diff != "" {
		t.Errorf("summary of 201 characters (-want +got):\n%s", diff)
	}
	out, _ = call(t, cs, "get_person", `{"person_id":"`+f.ada+`","summary":"Look up Ada"}`)
	if diff := cmp.Diff([]string{"UNKNOWN_FIELD@summary"}, codes(out)); diff != "" {
		t.Errorf("summary on a read (-want +got):\n%s", diff)
	}
}

// A proposal is confirmed by its id alone: the payload cannot be sent again
// (or altered) at apply time.
func TestApplyTakesTheProposalIDOnly(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada)
	f := setup(t, cs)
	p := propose(t, cs, "update_person", `{"person_id":"`+f.ada+`","title":"Mathematician"}`)
	handled := len(s.rec.received())
	out, isErr := call(t, cs, "apply_proposal", `{"proposal_id":"`+p["proposal_id"].(string)+`","title":"Countess"}`)
	if !isErr {
		t.Fatalf("apply with a payload = %v", out)
	}
	assertJSON(t, out, `{"success": false,
		"error": {"code": "UNKNOWN_FIELD", "field": "title", "message": "unknown argument \"title\"", "suggestions": {"valid_values": ["proposal_id"]}},
		"errors": [{"code": "UNKNOWN_FIELD", "field": "title", "message": "unknown argument \"title\"", "suggestions": {"valid_values": ["proposal_id"]}}]}`)
	if len(s.rec.received()) != handled {
		t.Fatal("the proposal was applied")
	}
	if out, isErr := apply(t, cs, p["proposal_id"].(string)); isErr || out["person"].(map[string]any)["title"] != "Mathematician" {
		t.Fatalf("apply by id = %v", out)
	}
}

// A proposal to change an existing record diffs each field it changes,
// before and after.
func TestUpdateProposalsDiffTheFieldsTheyChange(t *testing.T) {
	tests := []struct{ tool, args, diff string }{
		{"update_person", `{"person_id":"{{dup}}","title":"Countess","phone":"+44 20 7946 0000"}`,
			`[{"field":"title","before":"Analyst","after":"Countess"}]`},
		{"update_org", `{"org_id":"{{acme}}","industry":"Engineering","name":"Analytical Engines Ltd"}`,
			`[{"field":"industry","before":"Computing","after":"Engineering"}]`},
		{"update_note", `{"note_id":"{{adaNote}}","body":"Met at the Analytical Engine demo"}`,
			`[{"after":"Met at the Analytical Engine demo","before":"Met at the Difference Engine demo","field":"body"}]`},
		{"link_person_to_org", `{"person_id":"{{dup}}","org_id":"{{acme}}"}`,
			`[{"field":"org_id","before":"","after":"{{acme}}"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			s := newServer(t)
			cs := s.connect(ada)
			f := setup(t, cs)
			assertJSON(t, propose(t, cs, tt.tool, f.expand(tt.args))["diff"], f.expand(tt.diff))
		})
	}
}

// ADR-0030's ProposedChange carries a structured diff on every proposal: a
// create from nothing, an update from the current values, a delete to
// nothing.
func TestEveryProposalCarriesAStructuredDiff(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada)
	f := setup(t, cs)
	for _, tt := range []struct{ tool, args, diff string }{
		{"create_org", `{"name":"Difference Ltd"}`, `[{"after":"Difference Ltd","before":null,"field":"name"}]`},
		{"update_note", `{"note_id":"{{adaNote}}","body":"Met at the Analytical Engine demo"}`,
			`[{"after":"Met at the Analytical Engine demo","before":"Met at the Difference Engine demo","field":"body"}]`},
		{"delete_note", `{"note_id":"{{adaNote}}"}`, `[{"after":null,"before":"Met at the Difference Engine demo","field":"body"}]`},
	} {
		t.Run(tt.tool, func(t *testing.T) {
			p := propose(t, cs, tt.tool, f.expand(tt.args))
			got, _ := json.Marshal(p["diff"]) // keys in name order, as encoding/json writes a map
			if string(got) != f.expand(tt.diff) {
				t.Errorf("diff = %s, want %s", got, f.expand(tt.diff))
			}
		})
	}
}
