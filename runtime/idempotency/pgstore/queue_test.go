package pgstore_test

import (
	"context"
	"errors"
	"fmt"
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

// QueueCompleteWith's statement takes the caller's arguments, then the
// completion's eight (key, fingerprint, outcome, times), appended as
// append does: into the caller's slice when it has room for them, so a
// caller that makes its arguments with that room makes them once; a slice
// without room is left as it was.
func TestQueueCompleteWithAppendsToTheArguments(t *testing.T) {
	s := pgstore.New(nil)
	k := idempotency.Key{Tenant: "t", Tool: "x", Key: "k"}
	now := idempotency.TruncateTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	stmt := "INSERT INTO side (a, b) VALUES ($1, $2)"
	for _, room := range []int{0, 8} {
		args := append(make([]any, 0, 2+room), "a", "b")
		b := &pgx.Batch{}
		if err := s.WithTx(nil).QueueCompleteWith(b, stmt, args, k, "fp", []byte("done"), true, now, time.Hour); err != nil {
			t.Fatal(err)
		}
		got := b.QueuedQueries[0].Arguments
		want := []any{"a", "b", "t", "x", "k", "fp", []byte("done"), true, now, now.Add(time.Hour)}
		if len(got) != len(want) || len(args) != 2 || args[0] != "a" || args[1] != "b" {
			t.Fatalf("room %d: arguments %v (caller's %v), want %v", room, got, args, want)
		}
		for i := range want {
			if g, w := fmt.Sprint(got[i]), fmt.Sprint(want[i]); g != w {
				t.Errorf("room %d: argument %d = %s, want %s", room, i, g, w)
			}
		}
		if shared := &got[0] == &args[:1][0]; shared != (room >= 8) {
			t.Errorf("room %d: the statement's arguments are the caller's slice: %v", room, shared)
		}
	}
}
