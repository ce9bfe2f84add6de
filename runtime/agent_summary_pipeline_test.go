package runtime_test

import (
	"strings"
	"testing"
)

// A write that can become a proposal takes the agent's own summary of the
// change: the proposal shows it beside the server's summary line, and it
// never reaches the request (preview and handler see the same request as
// without it).
func TestProposalShowsTheAgentsSummaryBesideTheServers(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.seedNote("n1")
	prop := h.call(alice, "delete_note", `{"id":"n1","summary":"  Remove the note about the old supplier  "}`)
	id := field(t, prop.text, "proposal.proposal_id")
	want := compact(`{"success":true,"proposal":{"proposal_id":"` + id + `","action":"delete","tool":"delete_note","classification":"DESTRUCTIVE_DELETE",
		"summary":"Delete note: id=\"n1\"",
		"agent_summary":"Remove the note about the old supplier",
		"preview":{"id":"n1"},
		"expires_at":"2025-01-02T03:19:05Z","apply_with":"apply_proposal"},
		"suggestions":["Nothing was written yet. Show the summary and preview to the user; if they confirm, call apply_proposal with proposal_id \"` + id + `\" before it expires."],
		"warnings":[]}`)
	if prop.isError || prop.text != want {
		t.Fatalf("proposal:\n%s\nwant\n%s", prop.text, want)
	}
	applied := h.call(alice, "apply_proposal", `{"proposal_id":"`+id+`"}`)
	if want := compact(`{"success":true,"id":"n1","deleted":true,"suggestions":[],"warnings":[]}`); applied.isError || applied.text != want {
		t.Fatalf("apply:\n%s\nwant\n%s", applied.text, want)
	}
	// Without a summary the proposal has none: the server's line stays.
	h.seedNote("n2")
	if got := h.call(alice, "delete_note", `{"id":"n2","summary":null}`); got.isError || strings.Contains(got.text, "agent_summary") || !strings.Contains(got.text, `"summary":"Delete note: id=\"n2\""`) {
		t.Fatalf("proposal without an agent summary: %s", got.text)
	}
}

// Text that would act on how a summary displays is shown, not obeyed.
func TestAgentSummaryIsNeutralizedForTheUser(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.seedNote("n1")
	got := h.call(alice, "delete_note", `{"id":"n1","summary":"Tidy up\u202e etoN"}`)
	if s := field(t, got.text, "proposal.agent_summary"); got.isError || s != `Tidy up\u202E etoN` {
		t.Fatalf("agent_summary = %q in %s", s, got.text)
	}
}

// The summary is checked like any argument: every problem is answered before
// anything is proposed, and a tool that takes no summary refuses it as an
// unknown field.
func TestAgentSummaryMistakesAreAnswered(t *testing.T) {
	long := strings.Repeat("x", 201)
	tests := []struct{ name, tool, args, want string }{
		{"too long", "delete_note", `{"id":"n1","summary":"` + long + `"}`,
			`{"code":"CONSTRAINT_VIOLATION","message":"must be 1 to 200 characters, got 201","field":"summary","suggestions":{"hint":"Describe the change in one short line, or leave summary out."}}`},
		{"blank", "delete_note", `{"id":"n1","summary":"   "}`,
			`{"code":"CONSTRAINT_VIOLATION","message":"must be 1 to 200 characters, got 0","field":"summary","suggestions":{"hint":"Describe the change in one short line, or leave summary out."}}`},
		{"not a string", "delete_note", `{"id":"n1","summary":["delete","n1"]}`,
			`{"code":"INVALID_TYPE","message":"expected string, got array","field":"summary","details":{"expected":"string","got":"array"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			h.seedNote("n1")
			got := h.call(alice, tt.tool, tt.args)
			if want := compact(`{"success":false,"error":` + tt.want + `,"errors":[` + tt.want + `]}`); !got.isError || got.text != want {
				t.Fatalf("got\n%s\nwant\n%s", got.text, want)
			}
		})
	}
	// create_note commits directly (it cannot propose without a policy), so
	// it declares no summary and strict decoding refuses one.
	h := newHarness(t, harnessOpts{})
	got := h.call(alice, "create_note", `{"title":"Buy milk","summary":"Add a note"}`)
	if code := field(t, got.text, "error.code"); !got.isError || code != "UNKNOWN_FIELD" || field(t, got.text, "error.field") != "summary" {
		t.Fatalf("summary on a tool that takes none: %s", got.text)
	}
	if n := h.dom.count("create_note"); n != 0 {
		t.Fatalf("handler ran %d times", n)
	}
}
