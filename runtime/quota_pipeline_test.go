package runtime_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
)

// One tenant floods the proposal store to its quotas: its principals get a
// retryable RESOURCE_EXHAUSTED naming their own quota and when to retry,
// the log says why, and another tenant still proposes and applies.
func TestProposalQuotaIsolatesTenants(t *testing.T) {
	var h *harness
	store := proposal.NewMemoryStore(proposal.WithQuotas(proposal.Quotas{PerTenant: 3, PerPrincipal: 2}),
		proposal.WithClock(func() time.Time { return h.clock.Now() }))
	h = newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithProposals(store, 0)}})
	for _, id := range []string{"n1", "n2", "n3", "n4", "n5"} {
		h.seedNote(id)
	}
	mallory, eve := caller{"globex", "mallory"}, caller{"globex", "eve"}
	propose := func(who caller, note string) result {
		t.Helper()
		return h.call(who, "delete_note", `{"id":"`+note+`"}`)
	}
	var mine []string
	for _, note := range []string{"n1", "n2"} {
		got := propose(mallory, note)
		if got.isError || field(t, got.text, "proposal.proposal_id") == "" {
			t.Fatalf("mallory's proposal for %s: %s", note, got.text)
		}
		mine = append(mine, field(t, got.text, "proposal.proposal_id"))
	}
	h.clock.Advance(time.Minute)
	exhausted := func(who, quota string, limit, retry int) string {
		limitText := map[int]string{2: "2", 3: "3"}[limit]
		retryText := map[int]string{840: "840", 900: "900"}[retry]
		e := `{"code":"RESOURCE_EXHAUSTED","message":"delete_note was not proposed: ` + who + ` the quota of ` + limitText + ` pending proposals; nothing was written",` +
			`"details":{"limit":` + limitText + `,"quota":"` + quota + `","retry_after_seconds":` + retryText + `},` +
			`"suggestions":{"hint":"Apply a pending proposal with apply_proposal or discard one with discard_proposal, or retry after details.retry_after_seconds, when the earliest pending proposal expires."}}`
		return `{"success":false,"error":` + e + `,"errors":[` + e + `]}`
	}
	if got, want := propose(mallory, "n3"), exhausted("you hold", "pending_proposals_per_principal", 2, 840); !got.isError || got.text != want {
		t.Fatalf("mallory past the principal quota:\n%s\nwant\n%s", got.text, want)
	}
	if got := propose(eve, "n3"); got.isError {
		t.Fatalf("eve's first proposal: %s", got.text)
	}
	if got, want := propose(eve, "n4"), exhausted("your tenant holds", "pending_proposals_per_tenant", 3, 840); !got.isError || got.text != want {
		t.Fatalf("eve past the tenant quota:\n%s\nwant\n%s", got.text, want)
	}
	if logs := h.logs(); !strings.Contains(logs, "mcpwrite: proposal refused: quota reached") || strings.Contains(logs, "INTERNAL") {
		t.Fatalf("log:\n%s", logs)
	}

	// Another tenant is not affected: it proposes and applies.
	prop := propose(alice, "n5")
	id := field(t, prop.text, "proposal.proposal_id")
	if prop.isError || id == "" {
		t.Fatalf("alice's proposal: %s", prop.text)
	}
	applied := h.call(alice, "apply_proposal", `{"proposal_id":"`+id+`"}`)
	if want := compact(`{"success":true,"id":"n5","deleted":true,"suggestions":[],"warnings":[]}`); applied.isError || applied.text != want {
		t.Fatalf("alice's apply:\n%s\nwant\n%s", applied.text, want)
	}

	// Discarding frees a place for the principal that discarded.
	if got := h.call(mallory, "discard_proposal", `{"proposal_id":"`+mine[0]+`"}`); got.isError {
		t.Fatalf("mallory's discard: %s", got.text)
	}
	if got := propose(mallory, "n3"); got.isError {
		t.Fatalf("mallory after a discard: %s", got.text)
	}
}
