package pgstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/pgstore"
)

// queueClaimWithRead claims k in a transaction with QueueClaim, reading
// "SELECT 41 + 1" in the same batch, and commits when the key was claimed.
func queueClaimWithRead(t *testing.T, e env, s *pgstore.Store, k idempotency.Key, fp string, now time.Time) (idempotency.ClaimResult, bool, int) {
	t.Helper()
	ctx := context.Background()
	var (
		res      idempotency.ClaimResult
		settled  bool
		answer   int
		queueErr error
	)
	err := pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		p, ok := s.WithTx(tx).QueueClaim(b, k, fp, now, time.Minute)
		if !ok {
			t.Fatal("QueueClaim on a store without a quota: ok = false")
		}
		b.Queue("SELECT 41 + 1")
		br := tx.SendBatch(ctx, b)
		res, settled, queueErr = p.Read(br)
		if queueErr != nil {
			br.Close()
			return queueErr
		}
		if err := br.QueryRow().Scan(&answer); err != nil {
			br.Close()
			return err
		}
		if err := br.Close(); err != nil {
			return err
		}
		if !res.Claimed {
			return errRollback
		}
		return nil
	})
	if err != nil && err != errRollback {
		t.Fatal(err)
	}
	return res, settled, answer
}

type rollback struct{}

func (rollback) Error() string { return "roll back" }

var errRollback error = rollback{}

// A claim queued with the read that follows it is one round trip and
// answers as Claim does: the first claims the key (and the read runs after
// it), a second sees the claim held, with its fingerprint.
func TestQueuedClaimIsOneRoundTripWithTheRead(t *testing.T) {
	e := newEnv(t)
	s := e.newTable(t)
	now := idempotency.TruncateTime(time.Now())
	k := idempotency.Key{Tenant: "t", Tool: "x", Key: "queued"}
	before := e.queries.n.Load()
	res, settled, answer := queueClaimWithRead(t, e, s, k, "fp-1", now)
	// The tracer sees begin and commit: the claim went in the batch, not
	// as a query of its own.
	if n := e.queries.n.Load() - before; !settled || !res.Claimed || answer != 42 || n != 2 {
		t.Fatalf("first queued claim: %+v settled %v read %d, %d statements outside the batch; want claimed, settled, 42, 2 (begin, commit)", res, settled, answer, n)
	}
	res, settled, answer = queueClaimWithRead(t, e, s, k, "fp-2", now.Add(time.Second))
	if !settled || res.Claimed || res.Existing == nil || res.Existing.Fingerprint != "fp-1" ||
		res.Existing.State != idempotency.StateInProgress || answer != 42 {
		t.Fatalf("second queued claim: %+v (existing %+v) settled %v read %d; want held by fp-1 in progress", res, res.Existing, settled, answer)
	}
}

// A store with a per-tenant quota counts before it claims: QueueClaim
// queues nothing and tells the caller to Claim.
func TestQueuedClaimDeclinesWithAQuota(t *testing.T) {
	e := newEnv(t)
	s := e.newTable(t, pgstore.WithMaxRecordsPerTenant(3))
	err := pgx.BeginFunc(context.Background(), e.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		if p, ok := s.WithTx(tx).QueueClaim(b, idempotency.Key{Tenant: "t", Tool: "x", Key: "q"}, "fp", time.Now(), time.Minute); ok || p != nil || b.Len() != 0 {
			t.Fatalf("QueueClaim with a quota: %v, %v, %d queued; want declined and nothing queued", p, ok, b.Len())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
