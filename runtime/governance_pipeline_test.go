package runtime_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// seedNote creates a note directly in the domain.
func (h *harness) seedNote(id string) {
	h.dom.mu.Lock()
	defer h.dom.mu.Unlock()
	h.dom.notes[id] = true
}

func TestProposalFlow(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.seedNote("n1")
	// delete_note asks for ELICIT; this client has no elicitation, so it proposes.
	prop := h.call(alice, "delete_note", `{"id":"n1"}`)
	id := field(t, prop.text, "proposal.proposal_id")
	want := compact(`{"success":true,"proposal":{"proposal_id":"` + id + `","action":"delete","tool":"delete_note","classification":"DESTRUCTIVE_DELETE",
		"summary":"Delete note: id=\"n1\"",
		"preview":{"id":"n1"},
		"expires_at":"2025-01-02T03:19:05Z","apply_with":"apply_proposal"},
		"suggestions":["Nothing was written yet. Show the summary and preview to the user; if they confirm, call apply_proposal with proposal_id \"` + id + `\" before it expires."],
		"warnings":[]}`)
	if prop.isError || prop.text != want || !strings.HasPrefix(id, "prop_") {
		t.Fatalf("proposal:\n%s\nwant\n%s", prop.text, want)
	}
	if h.dom.count("delete_note") != 0 {
		t.Fatal("proposing wrote")
	}

	notFound := compact(`{"success":false,
		"error":{"code":"PROPOSAL_NOT_FOUND","message":"proposal \"` + id + `\" not found","field":"proposal_id","details":{"proposal_id":"` + id + `"},"suggestions":{"hint":"Proposals can only be applied by the tenant and principal that made them. Call the write tool again to make a new proposal."}},
		"errors":[{"code":"PROPOSAL_NOT_FOUND","message":"proposal \"` + id + `\" not found","field":"proposal_id","details":{"proposal_id":"` + id + `"},"suggestions":{"hint":"Proposals can only be applied by the tenant and principal that made them. Call the write tool again to make a new proposal."}}]}`)
	for _, other := range []caller{{"acme", "mallory"}, {"globex", "alice"}, {}} {
		if got := h.call(other, "apply_proposal", `{"proposal_id":"`+id+`"}`); !got.isError || got.text != notFound {
			t.Fatalf("apply by %v:\n%s\nwant\n%s", other, got.text, notFound)
		}
	}

	applied := h.call(alice, "apply_proposal", `{"proposal_id":"`+id+`"}`)
	wantApplied := compact(`{"success":true,"id":"n1","deleted":true,"suggestions":[],"warnings":[]}`)
	if applied.isError || applied.text != wantApplied {
		t.Fatalf("apply:\n%s\nwant\n%s", applied.text, wantApplied)
	}
	again := h.call(alice, "apply_proposal", `{"proposal_id":"`+id+`"}`)
	if wantAgain := strings.TrimSuffix(wantApplied, "}") + `,"idempotent_replay":true}`; again.isError || again.text != wantAgain {
		t.Fatalf("second apply:\n%s\nwant\n%s", again.text, wantAgain)
	}
	if n := h.dom.count("delete_note"); n != 1 {
		t.Fatalf("handler calls %d, want 1", n)
	}
	if got := h.call(alice, "discard_proposal", `{"proposal_id":"`+id+`"}`); !got.isError || !strings.Contains(got.text, `"message":"proposal \"`+id+`\" was already applied"`) {
		t.Fatalf("discard after apply: %s", got.text)
	}
}

func TestProposalExpires(t *testing.T) {
	h := newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithProposals(nil, time.Minute)}})
	h.seedNote("n1")
	id := field(t, h.call(alice, "delete_note", `{"id":"n1"}`).text, "proposal.proposal_id")
	h.clock.Advance(time.Minute)
	got := h.call(alice, "apply_proposal", `{"proposal_id":"`+id+`"}`)
	want := compact(`{"success":false,
		"error":{"code":"PROPOSAL_EXPIRED","message":"proposal \"` + id + `\" has expired","field":"proposal_id","details":{"proposal_id":"` + id + `"},"suggestions":{"hint":"Call the write tool again to make a fresh proposal and ask the user again."}},
		"errors":[{"code":"PROPOSAL_EXPIRED","message":"proposal \"` + id + `\" has expired","field":"proposal_id","details":{"proposal_id":"` + id + `"},"suggestions":{"hint":"Call the write tool again to make a fresh proposal and ask the user again."}}]}`)
	if !got.isError || got.text != want {
		t.Fatalf("got\n%s\nwant\n%s", got.text, want)
	}
	if h.dom.count("delete_note") != 0 {
		t.Fatal("expired proposal was applied")
	}
}

func TestDiscardedProposalCannotBeApplied(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.seedNote("n1")
	id := field(t, h.call(alice, "delete_note", `{"id":"n1"}`).text, "proposal.proposal_id")
	for i := 0; i < 2; i++ { // discarding twice succeeds
		got := h.call(alice, "discard_proposal", `{"proposal_id":"`+id+`"}`)
		if want := `{"success":true,"proposal_id":"` + id + `","discarded":true}`; got.isError || got.text != want {
			t.Fatalf("discard %d: %s", i, got.text)
		}
	}
	got := h.call(alice, "apply_proposal", `{"proposal_id":"`+id+`"}`)
	if !got.isError || !strings.Contains(got.text, `"code":"PROPOSAL_NOT_FOUND","message":"proposal \"`+id+`\" was discarded"`) {
		t.Fatalf("apply after discard: %s", got.text)
	}
	if h.dom.count("delete_note") != 0 {
		t.Fatal("discarded proposal was applied")
	}
}

// proposeCreates forces proposals for create_note.
func proposeCreates(ctx context.Context, pc runtime.PolicyCall) runtime.Confirmation {
	if pc.Tool == "create_note" {
		return runtime.ConfirmProposal
	}
	return ""
}

func TestStaleProposalIsRefused(t *testing.T) {
	h := newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithPolicy(proposeCreates)}})
	id := field(t, h.call(alice, "create_note", `{"title":"Buy milk"}`).text, "proposal.proposal_id")
	h.dom.setModel("model-2") // the resolver now answers differently
	got := h.call(alice, "apply_proposal", `{"proposal_id":"`+id+`"}`)
	// The answer carries the same change proposed against the current
	// state, so the user can confirm that instead.
	fresh := field(t, got.text, "error.details.fresh_proposal.proposal_id")
	entry := `{"code":"PROPOSAL_STALE","message":"proposal \"` + id + `\" is stale: the server would now fill it differently","field":"proposal_id",
		"details":{"changed_fields":["model_id"],
			"fresh_proposal":{"proposal_id":"` + fresh + `","action":"create","tool":"create_note","entity":{"type":"note","id":"note-04040404"},"classification":"SAFE_CREATE","summary":"Create note: title=\"Buy milk\"",
				"diff":[{"field":"title","before":null,"after":"Buy milk"}],
				"preview":{"id":"note-04040404","title":"Buy milk"},
				"expires_at":"2025-01-02T03:19:05Z","apply_with":"apply_proposal"},
			"proposal_id":"` + id + `"},
		"suggestions":{"hint":"Nothing was written. details.fresh_proposal is the same change against the current state: show it to the user and, if they confirm, call apply_proposal with its proposal_id."}}`
	want := compact(`{"success":false,"error":` + entry + `,"errors":[` + entry + `]}`)
	if !got.isError || got.text != want || fresh == id {
		t.Fatalf("got\n%s\nwant\n%s", got.text, want)
	}
	if h.dom.count("create_note") != 0 {
		t.Fatal("stale proposal was applied")
	}
	// Generated IDs and timestamps differ on every enrichment and do not make
	// a proposal stale: back on the proposed model, it applies.
	h.dom.setModel("model-1")
	h.clock.Advance(time.Minute)
	got = h.call(alice, "apply_proposal", `{"proposal_id":"`+id+`"}`)
	if got.isError || !strings.HasPrefix(got.text, `{"success":true,"note":{"id":"note-01010101","title":"Buy milk","model_id":"model-1"}`) {
		t.Fatalf("apply after the world changed back: %s", got.text)
	}
	// The fresh proposal was made against model-2: with model-2 current
	// again, it applies as the user saw it.
	h.dom.setModel("model-2")
	got = h.call(alice, "apply_proposal", `{"proposal_id":"`+fresh+`"}`)
	if got.isError || !strings.HasPrefix(got.text, `{"success":true,"note":{"id":"note-04040404","title":"Buy milk","model_id":"model-2"}`) {
		t.Fatalf("apply of the fresh proposal: %s", got.text)
	}
}

func TestProposalWithClientRequestIDIsReturnedAgain(t *testing.T) {
	h := newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithPolicy(proposeCreates)}})
	first := h.call(alice, "create_note", `{"title":"Buy milk","client_request_id":"p1"}`)
	second := h.call(alice, "create_note", `{"title":"Buy milk","client_request_id":"p1"}`)
	if field(t, first.text, "proposal.proposal_id") != field(t, second.text, "proposal.proposal_id") ||
		!strings.Contains(second.text, `"idempotent_replay":true`) {
		t.Fatalf("retried call made another proposal:\n%s\n%s", first.text, second.text)
	}
}

func TestPolicyCanLetAdminsCommitDirectly(t *testing.T) {
	var seen []runtime.PolicyCall
	policy := func(ctx context.Context, pc runtime.PolicyCall) runtime.Confirmation {
		seen = append(seen, pc)
		if pc.RequestContext.PrincipalID == "admin" {
			return runtime.ConfirmDirect
		}
		return ""
	}
	h := newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithPolicy(policy)}})
	h.seedNote("n1")
	got := h.call(caller{"acme", "admin"}, "delete_note", `{"id":"n1"}`)
	if want := `{"success":true,"id":"n1","deleted":true,"suggestions":[],"warnings":[]}`; got.isError || got.text != want {
		t.Fatalf("got %s\nwant %s", got.text, want)
	}
	want := runtime.PolicyCall{Tool: "delete_note", Classification: "DESTRUCTIVE_DELETE", Kind: "DELETE",
		RequestContext: runtime.RequestContext{TenantID: "acme", PrincipalID: "admin", CorrelationID: "corr-1"},
		Confirmation:   runtime.ConfirmElicit}
	if len(seen) != 1 || seen[0] != want {
		t.Fatalf("policy saw %+v\nwant %+v", seen, want)
	}
	// Everyone else still gets a proposal.
	h.seedNote("n2")
	if got := h.call(alice, "delete_note", `{"id":"n2"}`); !strings.Contains(got.text, `"proposal":{`) {
		t.Fatalf("non-admin: %s", got.text)
	}
}

func TestErrorHookAddsDomainSuggestions(t *testing.T) {
	hook := func(ctx context.Context, tool string, req proto.Message, e *runtime.ErrorEntry) {
		if e.Code == runtime.CodeNotFound {
			e.Suggestions = &runtime.Suggestions{Hint: "Use list_models to find a model", Extra: map[string]any{"similar": []string{"model-2"}}}
		}
	}
	h := newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithErrorHook(hook)}})
	got := h.call(alice, "create_note", `{"title":"missing"}`)
	want := compact(`{"success":false,
		"error":{"code":"NOT_FOUND","message":"model model-1 not found","suggestions":{"hint":"Use list_models to find a model","similar":["model-2"]}},
		"errors":[{"code":"NOT_FOUND","message":"model model-1 not found","suggestions":{"hint":"Use list_models to find a model","similar":["model-2"]}}]}`)
	if !got.isError || got.text != want {
		t.Fatalf("got\n%s\nwant\n%s", got.text, want)
	}
}
