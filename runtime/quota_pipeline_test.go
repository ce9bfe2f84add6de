package runtime_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
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

// Many long confirmations of one tenant, each holding its idempotency claim
// while the user is asked: past the caller's quota of waiting confirmations
// a call is refused before it claims its key, and another tenant is still
// asked and writes.
func TestWaitingConfirmationQuotaIsolatesTenants(t *testing.T) {
	b := &blockingAsker{asked: make(chan string, 8), answers: make(chan *mcp.ElicitResult, 8)}
	h := newHarness(t, harnessOpts{
		opts:          []runtime.Option{runtime.WithElicitationQuotas(3, 2)},
		client:        &mcp.ClientOptions{ElicitationHandler: b.handle},
		clientSession: &mcp.ClientSessionOptions{ProtocolVersion: inCallProtocol},
	})
	for _, id := range []string{"n1", "n2", "n3", "n4", "n5", "n6"} {
		h.seedNote(id)
	}
	mallory, eve := caller{"globex", "mallory"}, caller{"globex", "eve"}
	var wg sync.WaitGroup
	waiting := make(chan result, 8)
	wait := func(who caller, note string) {
		t.Helper()
		wg.Go(func() { waiting <- h.call(who, "delete_note", `{"id":"`+note+`","client_request_id":"k-`+note+`"}`) })
		select {
		case <-b.asked:
		case <-time.After(3 * time.Second):
			t.Fatalf("%v was not asked to confirm %s", who, note)
		}
	}
	refused := func(who, quota string, limit int) string {
		l := map[int]string{2: "2", 3: "3"}[limit]
		e := `{"code":"RESOURCE_EXHAUSTED","message":"delete_note was not run: ` + who + ` the quota of ` + l + ` confirmations waiting for an answer; nothing was written",` +
			`"details":{"limit":` + l + `,"quota":"` + quota + `","retry_after_seconds":300},` +
			`"suggestions":{"hint":"Answer or cancel a confirmation the user is being asked, or retry after details.retry_after_seconds, when the longest wait ends (5m0s)."}}`
		return `{"success":false,"error":` + e + `,"errors":[` + e + `]}`
	}
	wait(mallory, "n1")
	wait(mallory, "n2")
	if got, want := h.call(mallory, "delete_note", `{"id":"n3","client_request_id":"k-n3"}`), refused("you have", "waiting_confirmations_per_principal", 2); got.text != want {
		t.Fatalf("mallory's third wait:\n%s\nwant\n%s", got.text, want)
	}
	wait(eve, "n3")
	if got, want := h.call(eve, "delete_note", `{"id":"n4","client_request_id":"k-n4"}`), refused("your tenant has", "waiting_confirmations_per_tenant", 3); got.text != want {
		t.Fatalf("eve past the tenant's quota:\n%s\nwant\n%s", got.text, want)
	}
	// Another tenant is asked while globex waits, and its write goes through.
	wait(alice, "n5")
	for range 4 {
		b.answers <- yes
	}
	wg.Wait()
	close(waiting)
	deleted := 0
	for r := range waiting {
		if !r.isError && strings.Contains(r.text, `"deleted":true`) {
			deleted++
		}
	}
	if deleted != 4 || h.dom.count("delete_note") != 4 {
		t.Fatalf("%d confirmed deletes answered, %d handler calls; want 4 and 4", deleted, h.dom.count("delete_note"))
	}
	// The refused call never claimed its key: once a wait ended it runs.
	h.seedNote("n3") // eve deleted it meanwhile
	go func() { b.answers <- yes }()
	if got := h.call(mallory, "delete_note", `{"id":"n3","client_request_id":"k-n3"}`); got.text != `{"success":true,"id":"n3","deleted":true,"suggestions":[],"warnings":[]}` {
		t.Fatalf("mallory's retry after the waits ended: %s", got.text)
	}
}

// quotaStore refuses new keys of one tenant as a store at its quota does.
type quotaStore struct {
	idempotency.Store
	full string
}

func (q quotaStore) Claim(ctx context.Context, k idempotency.Key, fp string, now time.Time, lease time.Duration) (idempotency.ClaimResult, error) {
	if k.Tenant == q.full {
		return idempotency.ClaimResult{}, &idempotency.QuotaError{Limit: 5, RetryAfter: 90 * time.Second}
	}
	return q.Store.Claim(ctx, k, fp, now, lease)
}

// A store's quota refusal is the caller's RESOURCE_EXHAUSTED, not
// UNAVAILABLE or INTERNAL; another tenant's keyed write runs.
func TestIdempotencyQuotaIsResourceExhausted(t *testing.T) {
	h := newHarness(t, harnessOpts{opts: []runtime.Option{
		runtime.WithIdempotency(runtime.IdempotencyOptions{Store: quotaStore{Store: idempotency.NewMemoryStore(), full: "globex"}}),
	}})
	e := `{"code":"RESOURCE_EXHAUSTED","message":"create_note was not run: your tenant holds the quota of 5 idempotency records (client_request_id keys); nothing was written",` +
		`"details":{"limit":5,"quota":"idempotency_records_per_tenant","retry_after_seconds":90},` +
		`"suggestions":{"hint":"Retry after details.retry_after_seconds, when the earliest record expires, or retry an earlier call with its own client_request_id."}}`
	want := `{"success":false,"error":` + e + `,"errors":[` + e + `]}`
	if got := h.call(caller{"globex", "mallory"}, "create_note", `{"title":"x","client_request_id":"k1"}`); got.text != want {
		t.Fatalf("over quota:\n%s\nwant\n%s", got.text, want)
	}
	if got := h.call(alice, "create_note", `{"title":"x","description":"y","client_request_id":"k1"}`); got.isError {
		t.Fatalf("another tenant: %s", got.text)
	}
	if h.dom.count("create_note") != 1 {
		t.Fatalf("handler calls %d, want 1", h.dom.count("create_note"))
	}
}

// A store full for every tenant answers RESOURCE_EXHAUSTED naming the
// server's bound, never INTERNAL.
func TestFullProposalStoreIsResourceExhausted(t *testing.T) {
	var h *harness
	store := proposal.NewMemoryStore(proposal.WithMaxPending(1), proposal.WithClock(func() time.Time { return h.clock.Now() }))
	h = newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithProposals(store, 0)}})
	h.seedNote("n1")
	if got := h.call(alice, "delete_note", `{"id":"n1"}`); got.isError {
		t.Fatalf("first proposal: %s", got.text)
	}
	e := `{"code":"RESOURCE_EXHAUSTED","message":"delete_note was not proposed: the server holds its limit of 1 pending proposals; nothing was written",` +
		`"details":{"limit":1,"quota":"pending_proposals_server","retry_after_seconds":900},"suggestions":{"hint":"Retry after details.retry_after_seconds."}}`
	if got, want := h.call(caller{"globex", "eve"}, "delete_note", `{"id":"n1"}`), `{"success":false,"error":`+e+`,"errors":[`+e+`]}`; got.text != want {
		t.Fatalf("full store:\n%s\nwant\n%s", got.text, want)
	}
}
