package runtime_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// claimCounter counts the claims the runtime takes itself.
type claimCounter struct {
	*idempotency.MemoryStore
	claims atomic.Int64
}

func (s *claimCounter) Claim(ctx context.Context, k idempotency.Key, fp string, now time.Time, lease time.Duration) (idempotency.ClaimResult, error) {
	s.claims.Add(1)
	return s.MemoryStore.Claim(ctx, k, fp, now, lease)
}

// txHandler wraps create_note as a handler on a database does with
// ClaimInHandler: it claims the key itself (the "transaction" is the store
// here), gives a held key back as idempotency.HeldError, releases the claim
// when the write fails (a rollback) and records the outcome with the write.
func txHandler(store *idempotency.MemoryStore, claimed *atomic.Int64) func(*impl.Service) {
	return func(svc *impl.Service) {
		tool := svc.Tools[0]
		invoke := tool.Invoke
		tool.Invoke = func(ctx context.Context, req proto.Message) (proto.Message, error) {
			out, ok := runtime.OutcomeFrom(ctx)
			if !ok || !out.ClaimInTx || out.Lease <= 0 {
				return nil, errors.New("no key to claim in the transaction")
			}
			res, err := store.Claim(ctx, out.Key, out.Fingerprint, out.Now, out.Lease)
			if err != nil {
				return nil, err
			}
			if !res.Claimed {
				return nil, &idempotency.HeldError{Record: res.Existing}
			}
			claimed.Add(1)
			resp, err := invoke(ctx, req)
			if err != nil {
				_ = store.Release(ctx, out.Key, out.Fingerprint) // rolled back with the write
				return nil, err
			}
			body, err := out.Render(resp)
			if err != nil {
				return nil, err
			}
			if err := store.Complete(ctx, out.Key, out.Fingerprint, body, false, out.Now, out.TTL); err != nil {
				return nil, err
			}
			out.Recorded()
			return resp, nil
		}
	}
}

// With ClaimInHandler the runtime leaves the key of a direct write to the
// handler: it does not claim it first, answers a key the handler finds
// held (replay, reused key), and claims only to record a business error
// the handler rolled back, so its retry replays it too.
func TestClaimInHandler(t *testing.T) {
	store := &claimCounter{MemoryStore: idempotency.NewMemoryStore()}
	var claimed atomic.Int64
	h := newHarness(t, harnessOpts{
		opts:    []runtime.Option{runtime.WithIdempotency(runtime.IdempotencyOptions{Store: store, ClaimInHandler: true})},
		service: txHandler(store.MemoryStore, &claimed),
	})
	args := `{"title":"Buy milk","client_request_id":"k-1"}`
	first := h.call(alice, "create_note", args)
	again := h.call(alice, "create_note", args)
	if first.isError || again.isError || valueAt(t, again.text, "idempotent_replay") != "true" || h.dom.count("create_note") != 1 {
		t.Fatalf("first %s, again %s, executions %d", first.text, again.text, h.dom.count("create_note"))
	}
	if other := h.call(alice, "create_note", `{"title":"Other","client_request_id":"k-1"}`); field(t, other.text, "error.code") != "IDEMPOTENCY_KEY_REUSED" {
		t.Fatalf("reused key: %s", other.text)
	}
	failed := h.call(alice, "create_note", `{"title":"missing","client_request_id":"k-2"}`)
	retry := h.call(alice, "create_note", `{"title":"missing","client_request_id":"k-2"}`)
	if field(t, failed.text, "error.code") != "NOT_FOUND" || valueAt(t, retry.text, "idempotent_replay") != "true" || field(t, retry.text, "error.code") != "NOT_FOUND" {
		t.Fatalf("business error %s, retry %s", failed.text, retry.text)
	}
	if n := store.claims.Load(); n != 1 {
		t.Fatalf("the runtime claimed %d keys itself, want 1 (to record the business error the handler rolled back)", n)
	}
	if claimed.Load() != 2 {
		t.Fatalf("the handler claimed %d keys, want 2", claimed.Load())
	}
}

// A handler that ignores ClaimInTx still has its outcome recorded: the
// runtime claims the key after the handler answered and records it, logs
// the misconfiguration once and claims the tool's keys itself from then
// on, so the retry replays (two claims by the runtime, one execution).
func TestClaimInHandlerIgnoredStillRecords(t *testing.T) {
	store := &claimCounter{MemoryStore: idempotency.NewMemoryStore()}
	h := newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithIdempotency(runtime.IdempotencyOptions{Store: store, ClaimInHandler: true})}})
	args := `{"title":"Buy milk","client_request_id":"k-1"}`
	first := h.call(alice, "create_note", args)
	again := h.call(alice, "create_note", args)
	if first.isError || valueAt(t, again.text, "idempotent_replay") != "true" || h.dom.count("create_note") != 1 || store.claims.Load() != 2 {
		t.Fatalf("first %s, again %s, executions %d, runtime claims %d", first.text, again.text, h.dom.count("create_note"), store.claims.Load())
	}
	h.logMu.Lock()
	logs := h.log.String()
	h.logMu.Unlock()
	if strings.Count(logs, "ClaimInHandler is set but the handler does not record keyed writes in its transaction") != 1 {
		t.Fatalf("logs:\n%s", logs)
	}
}
