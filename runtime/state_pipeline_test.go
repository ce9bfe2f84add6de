package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
)

// noteStates is what the notes domain shows about each note: a version the
// test bumps to stand for a rename or a refill.
type noteStates struct {
	mu  sync.Mutex
	ver map[string]int
	h   *harness
}

func (s *noteStates) bump(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ver[id]++
}

func (s *noteStates) preview(_ context.Context, tool string, req proto.Message) (runtime.EntityState, bool, error) {
	if tool != "delete_note" {
		return runtime.EntityState{}, false, nil
	}
	m := req.ProtoReflect()
	id := m.Get(m.Descriptor().Fields().ByName(protoreflect.Name("id"))).String()
	s.h.dom.mu.Lock()
	exists := s.h.dom.notes[id]
	s.h.dom.mu.Unlock()
	if !exists {
		return runtime.EntityState{}, false, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.ver[id]
	return runtime.EntityState{Target: "note " + id, Digest: fmt.Sprint("v", v), Summary: fmt.Sprintf("note %s, version %d", id, v)}, true, nil
}

func withStates(t *testing.T, mk func(opts ...runtime.Option) *harness) (*harness, *noteStates) {
	t.Helper()
	st := &noteStates{ver: map[string]int{}}
	h := mk(runtime.WithPreviews(runtime.Previews{State: st.preview}))
	st.h = h
	return h, st
}

// A proposal remembers the state it previewed; applying after that state
// changed (renamed, refilled, deleted and re-created) answers
// PROPOSAL_STALE with what changed and writes nothing.
func TestProposalIsBoundToThePreviewedState(t *testing.T) {
	mk := func(opts ...runtime.Option) *harness { return newHarness(t, harnessOpts{opts: opts}) }
	stale := func(id, now string) string {
		return envelope(`{"code":"PROPOSAL_STALE","message":"Proposal \"` + id + `\" is stale: note n1 changed since the user saw it (was: note n1, version 0; now: ` + now + `). Nothing was written.",
			"field":"proposal_id","details":{"after":"` + now + `","before":"note n1, version 0","proposal_id":"` + id + `","target":"note n1"},
			"suggestions":{"hint":"Call the write tool again so the user confirms the current state."}}`)
	}
	// staleWithFresh is the answer when the note still exists: the same
	// delete proposed against its current state comes with it.
	staleWithFresh := func(id, fresh, now string) string {
		return envelope(`{"code":"PROPOSAL_STALE","message":"Proposal \"` + id + `\" is stale: note n1 changed since the user saw it (was: note n1, version 0; now: ` + now + `). Nothing was written.",
			"field":"proposal_id","details":{"after":"` + now + `","before":"note n1, version 0",
				"fresh_proposal":{"proposal_id":"` + fresh + `","action":"delete","tool":"delete_note","classification":"DESTRUCTIVE_DELETE","summary":"Delete note: id=\"n1\"",
					"target":"note n1","current_state":"` + now + `","preview":{"id":"n1"},
					"expires_at":"2025-01-02T03:19:05Z","apply_with":"apply_proposal"},
				"proposal_id":"` + id + `","target":"note n1"},
			"suggestions":{"hint":"Nothing was written. details.fresh_proposal is the same change against the current state: show it to the user and, if they confirm, call apply_proposal with its proposal_id."}}`)
	}
	t.Run("changed", func(t *testing.T) {
		h, st := withStates(t, mk)
		h.seedNote("n1")
		prop := h.call(alice, "delete_note", `{"id":"n1"}`)
		id := field(t, prop.text, "proposal.proposal_id")
		if field(t, prop.text, "proposal.target") != "note n1" || field(t, prop.text, "proposal.current_state") != "note n1, version 0" {
			t.Fatalf("proposal: %s", prop.text)
		}
		st.bump("n1")
		got := h.call(alice, "apply_proposal", `{"proposal_id":"`+id+`"}`)
		fresh := field(t, got.text, "error.details.fresh_proposal.proposal_id")
		if want := staleWithFresh(id, fresh, "note n1, version 1"); !got.isError || got.text != want || fresh == id {
			t.Fatalf("got\n%s\nwant\n%s", got.text, want)
		}
		if h.dom.count("delete_note") != 0 {
			t.Fatal("a stale proposal ran")
		}
		// The user confirms the fresh one: it applies once.
		if got := h.call(alice, "apply_proposal", `{"proposal_id":"`+fresh+`"}`); got.isError || h.dom.count("delete_note") != 1 {
			t.Fatalf("apply of the fresh proposal: %s", got.text)
		}
	})
	t.Run("deleted", func(t *testing.T) {
		h, _ := withStates(t, mk)
		h.seedNote("n1")
		id := field(t, h.call(alice, "delete_note", `{"id":"n1"}`).text, "proposal.proposal_id")
		h.dom.mu.Lock()
		delete(h.dom.notes, "n1")
		h.dom.mu.Unlock()
		if got := h.call(alice, "apply_proposal", `{"proposal_id":"`+id+`"}`); got.text != stale(id, "no longer exists") {
			t.Fatalf("got\n%s", got.text)
		}
	})
	t.Run("deleted and re-created under the same id", func(t *testing.T) {
		h, st := withStates(t, mk)
		h.seedNote("n1")
		id := field(t, h.call(alice, "delete_note", `{"id":"n1"}`).text, "proposal.proposal_id")
		h.dom.mu.Lock()
		delete(h.dom.notes, "n1")
		h.dom.mu.Unlock()
		st.bump("n1") // a re-created note is another version
		h.seedNote("n1")
		got := h.call(alice, "apply_proposal", `{"proposal_id":"`+id+`"}`)
		if got.text != staleWithFresh(id, field(t, got.text, "error.details.fresh_proposal.proposal_id"), "note n1, version 1") || h.dom.count("delete_note") != 0 {
			t.Fatalf("got\n%s", got.text)
		}
	})
	t.Run("unchanged applies", func(t *testing.T) {
		h, _ := withStates(t, mk)
		h.seedNote("n1")
		id := field(t, h.call(alice, "delete_note", `{"id":"n1"}`).text, "proposal.proposal_id")
		if got := h.call(alice, "apply_proposal", `{"proposal_id":"`+id+`"}`); got.isError || h.dom.count("delete_note") != 1 {
			t.Fatalf("got\n%s", got.text)
		}
	})
}

// The round-trip confirmation carries the state digest: answering yes
// after the note changed is stale, and nothing is written.
func TestRoundTripConfirmationIsBoundToThePreviewedState(t *testing.T) {
	mk := func(opts ...runtime.Option) *harness { return manualRoundTrip(t, opts...) }
	h, st := withStates(t, mk)
	h.seedNote("n1")
	state := h.ask(alice, "delete_note", `{"id":"n1"}`, deleteN1Message)
	st.bump("n1")
	got := text(t, h.rawCall(alice, "delete_note", `{"id":"n1"}`, state, yes))
	want := envelope(`{"code":"PROPOSAL_STALE","message":"The confirmation is stale: note n1 changed since the user saw it (was: note n1, version 0; now: note n1, version 1). Nothing was written.",
		"details":{"after":"note n1, version 1","before":"note n1, version 0","target":"note n1"},
		"suggestions":{"hint":"Call the write tool again so the user confirms the current state."}}`)
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if h.dom.count("delete_note") != 0 {
		t.Fatal("a stale confirmation wrote")
	}
	// Unchanged since asked: the write runs.
	state = h.ask(alice, "delete_note", `{"id":"n1"}`, deleteN1Message)
	if got := text(t, h.rawCall(alice, "delete_note", `{"id":"n1"}`, state, yes)); got != deletedN1 || h.dom.count("delete_note") != 1 {
		t.Fatalf("got\n%s", got)
	}
}

// The confirmation message neutralises what a name could do to the text a
// user reads: a right-to-left override, a newline that forges a second
// line, a terminal escape.
func TestConfirmationTextNeutralisesNames(t *testing.T) {
	h := manualRoundTrip(t, runtime.WithPreviews(runtime.Previews{Loss: func(context.Context, string, proto.Message) (string, error) {
		return "note \"evil\u202Egnp.exe\"\nAlso: nothing\x1b[2J", nil
	}}))
	h.seedNote("n1")
	want := "Confirm Delete note: id=\"n1\". This permanently deletes data; it cannot be undone. What will be lost: note \"evil\\u202Egnp.exe\"\\u000AAlso: nothing\\u001B[2J.\n\n" +
		"id: n1"
	h.ask(alice, "delete_note", `{"id":"n1"}`, want)
}

// failingFinish is a proposal store whose results cannot be saved.
type failingFinish struct {
	*proposal.MemoryStore
	finishes int
}

func (s *failingFinish) FinishApply(context.Context, string, []byte, bool) error {
	s.finishes++
	return errors.New("disk full")
}

// An applied proposal whose result cannot be saved is never reported as
// success: the caller is told it was applied and must not be applied again,
// with the result, and the failure is logged with the same trace_id.
func TestUnsavedProposalResultIsAnErrorAndLogged(t *testing.T) {
	store := &failingFinish{MemoryStore: proposal.NewMemoryStore()}
	h := newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithProposals(store, 0)}})
	h.seedNote("n1")
	id := field(t, h.call(alice, "delete_note", `{"id":"n1"}`).text, "proposal.proposal_id")
	got := h.call(alice, "apply_proposal", `{"proposal_id":"`+id+`"}`)
	if !got.isError || field(t, got.text, "error.code") != "UNAVAILABLE" ||
		field(t, got.text, "error.message") != `proposal "`+id+`" was applied, but its result could not be saved: do not apply it again` ||
		valueAt(t, got.text, "error.details.result.deleted") != "true" {
		t.Fatalf("got %s", got.text)
	}
	if store.finishes != 3 || h.dom.count("delete_note") != 1 {
		t.Fatalf("finishes %d, executions %d", store.finishes, h.dom.count("delete_note"))
	}
	h.logMu.Lock()
	logs := h.log.String()
	h.logMu.Unlock()
	if !strings.Contains(logs, "proposal result not saved") || !strings.Contains(logs, "trace_id="+field(t, got.text, "error.trace_id")) {
		t.Fatalf("logs:\n%s", logs)
	}
}

// A service with field_naming JSON_NAME names a proposal's id proposalId:
// a stale proposal's answer blames that argument whether the state changed
// before the apply's check or under the handler's write lock (the handler
// answers proposal.ErrStale), and the proposal is pending again.
func TestStaleProposalBlamesTheServiceNamedArgument(t *testing.T) {
	var underLock bool
	var st *noteStates
	h, st := withStates(t, func(opts ...runtime.Option) *harness {
		return newHarness(t, harnessOpts{opts: opts, doc: func(doc string) string {
			return strings.Replace(doc, `"apply_tool": "apply_proposal",`, `"apply_tool": "apply_proposal", "field_naming": "JSON_NAME",`, 1)
		}, service: func(svc *impl.Service) {
			del := svc.Tools[1]
			invoke := del.Invoke
			del.Invoke = func(ctx context.Context, req proto.Message) (proto.Message, error) {
				if o, ok := runtime.OutcomeFrom(ctx); ok && o.ProposalID != "" && underLock {
					st.bump(getStr(req, "id"))
					return nil, fmt.Errorf("note n1 changed under the lock: %w", proposal.ErrStale)
				}
				return invoke(ctx, req)
			}
		}})
	})
	stale := func(id, fresh string, was int) string {
		return envelope(fmt.Sprintf(`{"code":"PROPOSAL_STALE","message":"Proposal \"%[1]s\" is stale: note n1 changed since the user saw it (was: note n1, version %[3]d; now: note n1, version %[4]d). Nothing was written.",
			"field":"proposalId","details":{"after":"note n1, version %[4]d","before":"note n1, version %[3]d",
				"fresh_proposal":{"proposal_id":"%[2]s","action":"delete","tool":"delete_note","classification":"DESTRUCTIVE_DELETE","summary":"Delete note: id=\"n1\"",
					"target":"note n1","current_state":"note n1, version %[4]d","preview":{"id":"n1"},
					"expires_at":"2025-01-02T03:19:05Z","apply_with":"apply_proposal"},
				"proposal_id":"%[1]s","target":"note n1"},
			"suggestions":{"hint":"Nothing was written. details.fresh_proposal is the same change against the current state: show it to the user and, if they confirm, call apply_proposal with its proposal_id."}}`, id, fresh, was, was+1))
	}
	h.seedNote("n1")
	id := field(t, h.call(alice, "delete_note", `{"id":"n1"}`).text, "proposal.proposal_id")
	st.bump("n1")
	checked := h.call(alice, "apply_proposal", `{"proposalId":"`+id+`"}`)
	second := field(t, checked.text, "error.details.fresh_proposal.proposal_id")
	if want := stale(id, second, 0); !checked.isError || checked.text != want {
		t.Fatalf("stale at the check:\n got %s\nwant %s", checked.text, want)
	}
	underLock = true
	locked := h.call(alice, "apply_proposal", `{"proposalId":"`+second+`"}`)
	third := field(t, locked.text, "error.details.fresh_proposal.proposal_id")
	if want := stale(second, third, 1); !locked.isError || locked.text != want {
		t.Fatalf("stale under the write lock:\n got %s\nwant %s", locked.text, want)
	}
	// Given back, not left applying: applying it again meets the state
	// check instead of another apply.
	underLock = false
	again := h.call(alice, "apply_proposal", `{"proposalId":"`+second+`"}`)
	if field(t, again.text, "error.code") != "PROPOSAL_STALE" || field(t, again.text, "error.field") != "proposalId" || h.dom.count("delete_note") != 0 {
		t.Fatalf("apply again: %s (writes %d)", again.text, h.dom.count("delete_note"))
	}
}
