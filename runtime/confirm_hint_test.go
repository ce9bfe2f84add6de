package runtime_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// proposalDelete makes delete_note confirmed by proposal, with a
// confirmation_message.
func proposalDelete(doc string) string {
	return strings.Replace(doc, `"confirmation": "ELICIT",`, `"confirmation": "PROPOSAL", "confirmation_message": "Delete note {id} for good?",`, 1)
}

// An agent that confirms a proposal-confirmed write itself (confirm: true,
// force, yes, confirmed) is told how confirmation works on that tool, not
// that it sent an unknown field; nothing is written or proposed.
func TestConfirmArgumentsTeachTheProposalFlow(t *testing.T) {
	h := newHarness(t, harnessOpts{doc: proposalDelete})
	h.seedNote("n1")
	for _, word := range []string{"confirm", "confirmed", "force", "yes"} {
		got := h.call(alice, "delete_note", `{"id":"n1","`+word+`":true}`)
		entry := `{"code":"UNKNOWN_FIELD","message":"unknown field \"` + word + `\": delete_note is confirmed by proposal, not by an argument","field":"` + word + `",
			"suggestions":{"hint":"Call delete_note without ` + word + `: it writes nothing and answers with a proposal (proposal_id). Show it to the user; if they confirm, call apply_proposal with that proposal_id."}}`
		want := compact(`{"success":false,"error":` + entry + `,"errors":[` + entry + `]}`)
		if !got.isError || got.text != want {
			t.Errorf("%s: got (isError %v)\n%s\nwant\n%s", word, got.isError, got.text, want)
		}
	}
	if n := h.dom.count("delete_note"); n != 0 {
		t.Fatalf("handler calls %d, want 0", n)
	}
}

// A proposal carries the tool's confirmation_message, filled from the
// call, as its elicitation asks it.
func TestProposalCarriesTheConfirmationMessage(t *testing.T) {
	h := newHarness(t, harnessOpts{doc: proposalDelete})
	h.seedNote("n1")
	got := h.call(alice, "delete_note", `{"id":"n1"}`)
	var body struct {
		Proposal map[string]any `json:"proposal"`
	}
	if err := json.Unmarshal([]byte(got.text), &body); err != nil || got.isError {
		t.Fatalf("answer (isError %v): %s", got.isError, got.text)
	}
	if m := body.Proposal["confirmation_message"]; m != "Delete note n1 for good?" {
		t.Fatalf("confirmation_message %v in %s", m, got.text)
	}
}
