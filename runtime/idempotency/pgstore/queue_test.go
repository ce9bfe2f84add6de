package pgstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/pgstore"
)

// A claim in a transaction and its outcome queued in the batch of the
// write commit together; a queued outcome for a key another call holds
// fails the batch with ErrClaimLost and the transaction rolls back.
func TestQueuedCompleteCommitsWithTheBatch(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s := e.newTable(t)
	now := idempotency.TruncateTime(time.Now())
	k := idempotency.Key{Tenant: "t", Tool: "x", Key: "k"}
	err := pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		ts := s.WithTx(tx)
		res, err := ts.Claim(ctx, k, "fp", now, time.Minute)
		if err != nil || !res.Claimed {
			t.Fatalf("claim in the transaction: %+v %v", res, err)
		}
		b := &pgx.Batch{}
		b.Queue("SELECT 1")
		if err := ts.QueueComplete(b, k, "fp", []byte("done"), false, now, time.Hour); err != nil {
			return err
		}
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, k, now)
	if err != nil || got.State != idempotency.StateCompleted || string(got.Response) != "done" {
		t.Fatalf("Get = %+v, %v", got, err)
	}

	err = pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		if err := s.WithTx(tx).QueueComplete(b, k, "other", []byte("second"), false, now.Add(time.Second), time.Hour); err != nil {
			return err
		}
		return tx.SendBatch(ctx, b).Close()
	})
	if !errors.Is(err, idempotency.ErrClaimLost) {
		t.Fatalf("queued Complete of a key held by another call = %v, want ErrClaimLost", err)
	}
	if got, _ := s.Get(ctx, k, now); string(got.Response) != "done" {
		t.Fatalf("the held key changed: %q", got.Response)
	}

	bad := pgstore.New(e.pool, pgstore.WithTable("bad-name"))
	if err := bad.WithTx(nil).QueueComplete(&pgx.Batch{}, k, "fp", nil, false, now, time.Hour); err == nil {
		t.Fatal("a store with invalid options queued a statement")
	}
}
