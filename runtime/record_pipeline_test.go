package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
)

// flakyStore fails the first failComplete Complete calls; it records the
// lease of every claim.
type flakyStore struct {
	*idempotency.MemoryStore
	mu           sync.Mutex
	failComplete int
	completes    int
	leases       []time.Duration
}

func (s *flakyStore) Claim(ctx context.Context, k idempotency.Key, fp string, now time.Time, lease time.Duration) (idempotency.ClaimResult, error) {
	s.mu.Lock()
	s.leases = append(s.leases, lease)
	s.mu.Unlock()
	return s.MemoryStore.Claim(ctx, k, fp, now, lease)
}

func (s *flakyStore) Complete(ctx context.Context, k idempotency.Key, fp string, resp []byte, isErr bool, now time.Time, ttl time.Duration) error {
	s.mu.Lock()
	s.completes++
	fail := s.completes <= s.failComplete
	s.mu.Unlock()
	if fail {
		return errors.New("store is down")
	}
	return s.MemoryStore.Complete(ctx, k, fp, resp, isErr, now, ttl)
}

// A write whose outcome cannot be recorded is never reported as success:
// the caller gets UNAVAILABLE with the result it would have had, and the
// operator a log line with the same trace_id.
func TestUnrecordedOutcomeIsAnErrorAndLogged(t *testing.T) {
	store := &flakyStore{MemoryStore: idempotency.NewMemoryStore(), failComplete: 1 << 30}
	h := newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithIdempotency(runtime.IdempotencyOptions{Store: store})}})
	got := h.call(alice, "create_note", `{"title":"Buy milk","description":"2 l","client_request_id":"k-1"}`)
	if !got.isError || field(t, got.text, "error.code") != "UNAVAILABLE" {
		t.Fatalf("got %s", got.text)
	}
	wantMsg := `create_note ran, but its outcome could not be recorded under client_request_id "k-1": a retry with this key after 30s may run it again`
	if m := field(t, got.text, "error.message"); m != wantMsg {
		t.Fatalf("message %q, want %q", m, wantMsg)
	}
	if field(t, got.text, "error.details.result.note.title") != "Buy milk" || valueAt(t, got.text, "error.details.applied") != "true" {
		t.Fatalf("details lack the applied result: %s", got.text)
	}
	if store.completes != 3 {
		t.Fatalf("Complete tried %d times, want 3", store.completes)
	}
	trace := field(t, got.text, "error.trace_id")
	h.logMu.Lock()
	logs := h.log.String()
	h.logMu.Unlock()
	if trace == "" || !strings.Contains(logs, "idempotency outcome not recorded") || !strings.Contains(logs, "trace_id="+trace) || !strings.Contains(logs, "store is down") {
		t.Fatalf("trace %q, logs:\n%s", trace, logs)
	}
	// The claim stays until its lease ends, so an immediate retry does not run twice.
	retry := h.call(alice, "create_note", `{"title":"Buy milk","description":"2 l","client_request_id":"k-1"}`)
	if field(t, retry.text, "error.code") != "IDEMPOTENCY_IN_PROGRESS" || h.dom.count("create_note") != 1 {
		t.Fatalf("retry: %s (executions %d)", retry.text, h.dom.count("create_note"))
	}
}

// A store that recovers within the retries records the outcome: success,
// and the retry replays.
func TestOutcomeRecordIsRetried(t *testing.T) {
	store := &flakyStore{MemoryStore: idempotency.NewMemoryStore(), failComplete: 2}
	h := newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithIdempotency(runtime.IdempotencyOptions{Store: store})}})
	args := `{"title":"Buy milk","description":"2 l","client_request_id":"k-2"}`
	if got := h.call(alice, "create_note", args); got.isError {
		t.Fatalf("got %s", got.text)
	}
	retry := h.call(alice, "create_note", args)
	if valueAt(t, retry.text, "idempotent_replay") != "true" || store.completes != 3 || h.dom.count("create_note") != 1 {
		t.Fatalf("retry %s, completes %d, executions %d", retry.text, store.completes, h.dom.count("create_note"))
	}
}

// Keys are scoped by principal: a colleague sending the same key and
// arguments runs their own write and never receives another's result.
func TestIdempotencyKeysAreScopedByPrincipal(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	bob := caller{"acme", "bob"}
	args := `{"title":"Standup","description":"daily","client_request_id":"same-key"}`
	a := h.call(alice, "create_note", args)
	b := h.call(bob, "create_note", args)
	if a.isError || b.isError || h.dom.count("create_note") != 2 {
		t.Fatalf("alice %s bob %s executions %d", a.text, b.text, h.dom.count("create_note"))
	}
	if field(t, a.text, "note.id") == field(t, b.text, "note.id") {
		t.Fatalf("bob received alice's note: %s", b.text)
	}
	for _, who := range []caller{alice, bob} {
		r := h.call(who, "create_note", args)
		if valueAt(t, r.text, "idempotent_replay") != "true" {
			t.Fatalf("%s retry did not replay: %s", who.principal, r.text)
		}
	}
	if ra, rb := h.call(alice, "create_note", args), h.call(bob, "create_note", args); field(t, ra.text, "note.id") != field(t, a.text, "note.id") || field(t, rb.text, "note.id") != field(t, b.text, "note.id") {
		t.Fatalf("replays crossed: alice %s bob %s", ra.text, rb.text)
	}
}

func TestIdempotencyLeaseOption(t *testing.T) {
	for _, tt := range []struct {
		opts []runtime.Option
		want time.Duration
	}{
		{nil, idempotency.DefaultLease},
		{[]runtime.Option{runtime.WithIdempotency(runtime.IdempotencyOptions{Lease: 5 * time.Second})}, 5 * time.Second},
		{[]runtime.Option{runtime.WithIdempotency(runtime.IdempotencyOptions{Lease: -1})}, idempotency.DefaultLease},
	} {
		store := &flakyStore{MemoryStore: idempotency.NewMemoryStore()}
		h := newHarness(t, harnessOpts{opts: append([]runtime.Option{runtime.WithIdempotency(runtime.IdempotencyOptions{Store: store})}, tt.opts...)})
		h.call(alice, "create_note", `{"title":"x","description":"y","client_request_id":"lease"}`)
		if len(store.leases) != 1 || store.leases[0] != tt.want {
			t.Fatalf("leases %v, want [%s]", store.leases, tt.want)
		}
	}
}

// A claim left behind by a call that crashed (the process died between
// claim and outcome) is taken over by the first retry after the lease.
func TestAbandonedClaimIsTakenOverAfterTheLease(t *testing.T) {
	store := idempotency.NewMemoryStore()
	h := newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithIdempotency(runtime.IdempotencyOptions{Store: store}), runtime.WithIdempotency(runtime.IdempotencyOptions{Lease: 10 * time.Second})}})
	args := `{"title":"Crash","description":"d","client_request_id":"orphan"}`
	fp, err := idempotency.Fingerprint([]byte(args))
	if err != nil {
		t.Fatal(err)
	}
	if cr, err := store.Claim(context.Background(), idempotency.ScopedKey("acme", "alice", "create_note", "orphan"), fp, h.clock.Now(), 10*time.Second); err != nil || !cr.Claimed {
		t.Fatalf("claim: %v %v", cr, err)
	}
	h.clock.Advance(9 * time.Second)
	if r := h.call(alice, "create_note", args); field(t, r.text, "error.code") != "IDEMPOTENCY_IN_PROGRESS" {
		t.Fatalf("within the lease: %s", r.text)
	}
	h.clock.Advance(2 * time.Second)
	if r := h.call(alice, "create_note", args); r.isError || h.dom.count("create_note") != 1 {
		t.Fatalf("after the lease: %s (executions %d)", r.text, h.dom.count("create_note"))
	}
}

// A result larger than the replay bound is answered in full once; its key
// replays an error saying the call completed, and never runs it again.
func TestOversizedResultReplaysACompletedMarker(t *testing.T) {
	h := newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithIdempotency(runtime.IdempotencyOptions{MaxStoredResponse: 64})}})
	args := `{"title":"Big","description":"` + strings.Repeat("x", 200) + `","client_request_id":"big"}`
	first := h.call(alice, "create_note", args)
	if first.isError || field(t, first.text, "note.title") != "Big" {
		t.Fatalf("first: %s", first.text)
	}
	retry := h.call(alice, "create_note", args)
	if !retry.isError || field(t, retry.text, "error.code") != "RESOURCE_EXHAUSTED" || valueAt(t, retry.text, "error.details.completed") != "true" || valueAt(t, retry.text, "idempotent_replay") != "true" {
		t.Fatalf("retry: %s", retry.text)
	}
	want := "the original create_note call with this client_request_id completed, but its result (" + valueAt(t, retry.text, "error.details.result_bytes") + " bytes) was larger than the 64 bytes kept for replays, so it cannot be shown again"
	if m := field(t, retry.text, "error.message"); m != want || len(first.text) < 200 {
		t.Fatalf("message %q, want %q", m, want)
	}
	if h.dom.count("create_note") != 1 {
		t.Fatalf("executions %d, want 1", h.dom.count("create_note"))
	}
}

// valueAt formats the JSON value at a dotted path of text ("" when absent).
func valueAt(t *testing.T, text, path string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[k]
	}
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// downStore fails every call, as an unreachable database does.
type downStore struct{ idempotency.Store }

func (downStore) Claim(context.Context, idempotency.Key, string, time.Time, time.Duration) (idempotency.ClaimResult, error) {
	return idempotency.ClaimResult{}, errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
}

// A store that cannot take the claim answers UNAVAILABLE before anything
// runs, with a trace_id the operator finds in the log with the cause.
func TestStoreOutageIsUnavailableAndNothingRuns(t *testing.T) {
	h := newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithIdempotency(runtime.IdempotencyOptions{Store: downStore{idempotency.NewMemoryStore()}})}})
	got := h.call(alice, "create_note", `{"title":"x","description":"y","client_request_id":"k-down"}`)
	if !got.isError || field(t, got.text, "error.code") != "UNAVAILABLE" ||
		field(t, got.text, "error.message") != "the idempotency store is unavailable, so nothing was run or written" {
		t.Fatalf("got %s", got.text)
	}
	if h.dom.count("create_note") != 0 {
		t.Fatal("the handler ran without a claim")
	}
	trace := field(t, got.text, "error.trace_id")
	h.logMu.Lock()
	logs := h.log.String()
	h.logMu.Unlock()
	if !strings.Contains(logs, "idempotency store failed") || !strings.Contains(logs, "trace_id="+trace) || !strings.Contains(logs, "connection refused") {
		t.Fatalf("logs:\n%s", logs)
	}
}

// A business error whose outcome cannot be recorded is not said to be
// applied: the caller is told nothing was written and sees the error, the
// claim is released, and a retry runs the call again.
func TestUnrecordedBusinessErrorSaysNothingWasWritten(t *testing.T) {
	store := &flakyStore{MemoryStore: idempotency.NewMemoryStore(), failComplete: 3}
	h := newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithIdempotency(runtime.IdempotencyOptions{Store: store})}})
	args := `{"title":"missing","description":"d","client_request_id":"k-biz"}`
	got := h.call(alice, "create_note", args)
	if !got.isError || field(t, got.text, "error.code") != "UNAVAILABLE" {
		t.Fatalf("got %s", got.text)
	}
	wantMsg := `create_note answered an error and wrote nothing, but that outcome could not be recorded under client_request_id "k-biz", so a retry with this key runs the call again`
	if m := field(t, got.text, "error.message"); m != wantMsg {
		t.Fatalf("message %q, want %q", m, wantMsg)
	}
	if valueAt(t, got.text, "error.details.applied") != "false" || field(t, got.text, "error.details.result.error.code") != "NOT_FOUND" {
		t.Fatalf("details: %s", got.text)
	}
	trace := field(t, got.text, "error.trace_id")
	for _, want := range []string{"level=ERROR", "tool=create_note", "tenant=acme", "client_request_id=k-biz", "applied=false", "trace_id=" + trace} {
		if !strings.Contains(h.logs(), want) {
			t.Fatalf("log lacks %q:\n%s", want, h.logs())
		}
	}
	// The store answers again: the retry runs and its outcome is recorded.
	retry := h.call(alice, "create_note", args)
	if field(t, retry.text, "error.code") != "NOT_FOUND" || h.dom.count("create_note") != 2 {
		t.Fatalf("retry: %s (executions %d)", retry.text, h.dom.count("create_note"))
	}
	if again := h.call(alice, "create_note", args); valueAt(t, again.text, "idempotent_replay") != "true" || h.dom.count("create_note") != 2 {
		t.Fatalf("second retry: %s (executions %d)", again.text, h.dom.count("create_note"))
	}
}

// Without WithLogger the runtime logs through slog.Default(), which writes
// to stderr unless the program set another default: nothing is discarded.
func TestDefaultLoggerIsSlogDefault(t *testing.T) {
	var buf strings.Builder
	var mu sync.Mutex
	old := slog.Default()
	slog.SetDefault(slogTo(&buf, &mu))
	t.Cleanup(func() { slog.SetDefault(old) })
	h := newHarness(t, harnessOpts{opts: []runtime.Option{
		runtime.WithLogger(nil),
		runtime.WithIdempotency(runtime.IdempotencyOptions{Store: downStore{idempotency.NewMemoryStore()}}),
	}})
	got := h.call(alice, "create_note", `{"title":"x","description":"y","client_request_id":"k-default"}`)
	trace := field(t, got.text, "error.trace_id")
	mu.Lock()
	logs := buf.String()
	mu.Unlock()
	for _, want := range []string{"level=ERROR", `msg="mcpwrite: idempotency store failed"`, "tool=create_note", "op=claim", "tenant=acme", "client_request_id=k-default", "trace_id=" + trace} {
		if !strings.Contains(logs, want) {
			t.Fatalf("default logger lacks %q:\n%s", want, logs)
		}
	}
	if h.logs() != "" {
		t.Fatalf("the harness logger was used: %s", h.logs())
	}
}

// Through the pipeline, tenant globex's flood of failing keyed calls fills
// the in-memory store and evicts only its own keys: tenant acme's key still
// replays and its handler ran once.
func TestFloodOfOneTenantDoesNotEvictAnothersKey(t *testing.T) {
	const bound = 200
	store := idempotency.NewMemoryStore(idempotency.WithMaxEntries(bound))
	h := newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithIdempotency(runtime.IdempotencyOptions{Store: store})}})
	args := `{"title":"Keep me","description":"d","client_request_id":"acme-key"}`
	first := h.call(alice, "create_note", args)
	if first.isError {
		t.Fatalf("first: %s", first.text)
	}
	globex := caller{"globex", "mallory"}
	for i := range bound + 100 {
		r := h.call(globex, "create_note", fmt.Sprintf(`{"title":"missing","description":"d","client_request_id":"flood-%d"}`, i))
		if field(t, r.text, "error.code") != "NOT_FOUND" {
			t.Fatalf("flood %d: %s", i, r.text)
		}
	}
	if store.Len() != bound {
		t.Fatalf("store holds %d records, want %d", store.Len(), bound)
	}
	retry := h.call(alice, "create_note", args)
	if valueAt(t, retry.text, "idempotent_replay") != "true" || field(t, retry.text, "note.id") != field(t, first.text, "note.id") {
		t.Fatalf("acme's retry did not replay: %s", retry.text)
	}
	if got, want := h.dom.count("create_note"), 1+bound+100; got != want {
		t.Fatalf("executions %d, want %d (acme's once, each flood call once)", got, want)
	}
	// globex's oldest keys were the ones evicted: its first key runs again.
	if r := h.call(globex, "create_note", `{"title":"missing","description":"d","client_request_id":"flood-0"}`); valueAt(t, r.text, "idempotent_replay") != "" {
		t.Fatalf("globex's oldest key still replays: %s", r.text)
	}
}

// A result the in-memory store cannot hold under its byte bound is
// answered in full once; the key keeps the completed marker, so a retry is
// told the call completed and never runs it again.
func TestResultLargerThanTheStoreKeepsTheCompletedMarker(t *testing.T) {
	store := idempotency.NewMemoryStore(idempotency.WithMaxBytes(4000))
	h := newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithIdempotency(runtime.IdempotencyOptions{Store: store})}})
	args := `{"title":"Big","description":"` + strings.Repeat("x", 5000) + `","client_request_id":"big"}`
	first := h.call(alice, "create_note", args)
	if first.isError || field(t, first.text, "note.description") != strings.Repeat("x", 5000) {
		t.Fatalf("first: %s", first.text)
	}
	retry := h.call(alice, "create_note", args)
	if !retry.isError || field(t, retry.text, "error.code") != "RESOURCE_EXHAUSTED" || valueAt(t, retry.text, "error.details.completed") != "true" ||
		valueAt(t, retry.text, "error.details.limit_bytes") != "4000" || valueAt(t, retry.text, "idempotent_replay") != "true" {
		t.Fatalf("retry: %s", retry.text)
	}
	if h.dom.count("create_note") != 1 || store.Len() != 1 {
		t.Fatalf("executions %d, records %d; want 1, 1", h.dom.count("create_note"), store.Len())
	}
	if h.logs() != "" {
		t.Fatalf("a refused size is not a store failure, yet logged: %s", h.logs())
	}
}

// A colleague's call with the same client_request_id gets a proposal of
// their own, never yours: proposals are keyed by principal too, and each
// retry returns its own principal's proposal, which only that principal can
// apply.
func TestColleagueWithTheSameKeyGetsTheirOwnProposal(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	bob := caller{"acme", "bob"}
	args := `{"id":"n1","client_request_id":"del-1"}`
	pa := field(t, h.call(alice, "delete_note", args).text, "proposal.proposal_id")
	pb := field(t, h.call(bob, "delete_note", args).text, "proposal.proposal_id")
	if pa == "" || pa == pb {
		t.Fatalf("alice %q, bob %q: want two proposals", pa, pb)
	}
	for who, want := range map[caller]string{alice: pa, bob: pb} {
		r := h.call(who, "delete_note", args)
		if got := field(t, r.text, "proposal.proposal_id"); got != want || valueAt(t, r.text, "idempotent_replay") != "true" {
			t.Fatalf("%s's retry: %s, want a replay of %s", who.principal, r.text, want)
		}
	}
	if got := h.call(bob, "apply_proposal", `{"proposal_id":"`+pa+`"}`); field(t, got.text, "error.code") != "PROPOSAL_NOT_FOUND" {
		t.Fatalf("bob applied alice's proposal: %s", got.text)
	}
	if h.dom.count("delete_note") != 0 {
		t.Fatalf("executions %d, want 0 before any apply", h.dom.count("delete_note"))
	}
}

// confirmDownStore fails the claims that record a confirmation's use.
type confirmDownStore struct{ *idempotency.MemoryStore }

func (s confirmDownStore) Claim(ctx context.Context, k idempotency.Key, fp string, now time.Time, lease time.Duration) (idempotency.ClaimResult, error) {
	if strings.HasSuffix(k.Tool, "#confirmation") {
		return idempotency.ClaimResult{}, errors.New("read tcp 127.0.0.1:5432: i/o timeout")
	}
	return s.MemoryStore.Claim(ctx, k, fp, now, lease)
}

// A confirmation whose use cannot be recorded writes nothing and answers
// UNAVAILABLE (a store failure, not a server bug), logged with its
// trace_id; the call's own claim is released, so the retry runs once the
// store answers.
func TestConfirmationUseNotRecordedIsUnavailable(t *testing.T) {
	store := confirmDownStore{idempotency.NewMemoryStore()}
	h := manualRoundTrip(t, runtime.WithIdempotency(runtime.IdempotencyOptions{Store: store}))
	h.seedNote("n1")
	args := `{"id":"n1","client_request_id":"del-c"}`
	state := h.ask(alice, "delete_note", args, deleteN1Message)
	got := text(t, h.rawCall(alice, "delete_note", args, state, yes))
	if field(t, got, "error.code") != "UNAVAILABLE" || field(t, got, "error.message") != "the idempotency store is unavailable, so nothing was run or written" {
		t.Fatalf("got %s", got)
	}
	if h.dom.count("delete_note") != 0 {
		t.Fatal("the handler ran although the confirmation use was not recorded")
	}
	trace := field(t, got, "error.trace_id")
	for _, want := range []string{"level=ERROR", "op=confirmation", "tool=delete_note", "tenant=acme", "client_request_id=del-c", "trace_id=" + trace, "i/o timeout"} {
		if !strings.Contains(h.logs(), want) {
			t.Fatalf("log lacks %q:\n%s", want, h.logs())
		}
	}
	if _, err := store.Get(context.Background(), idempotency.ScopedKey("acme", "alice", "delete_note", "del-c"), h.clock.Now()); !errors.Is(err, idempotency.ErrNotFound) {
		t.Fatalf("the call's claim was kept: %v", err)
	}
}
