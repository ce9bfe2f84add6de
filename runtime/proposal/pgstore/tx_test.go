package pgstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal/pgstore"
)

// FinishApply in a caller's transaction is fenced by the apply's token: an
// apply taken over after the lease cannot record its outcome (and so must
// roll back its write), the apply that took it over can, and a rollback
// leaves the proposal applying.
func TestTxFinishApplyIsFencedByTheApplyToken(t *testing.T) {
	pool := testPool(t)
	s, _ := newStore(t, pool, pgstore.WithApplyLease(time.Minute))
	ctx := context.Background()
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	p := &proposal.Proposal{Tenant: "t", Principal: "u", Tool: "deleteElement", Request: []byte{1}, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
	if err := s.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	first, err := s.BeginApply(ctx, p.ID, "t", "u", t0.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.BeginApply(ctx, p.ID, "t", "u", t0.Add(2*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if !second.ApplyStartedAt.After(first.ApplyStartedAt) {
		t.Fatalf("tokens %v, %v", first.ApplyStartedAt, second.ApplyStartedAt)
	}
	finish := func(token time.Time, commit bool) error {
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback(ctx) }()
		if err := s.WithTx(tx).FinishApply(ctx, p.ID, token, []byte(`{"success":true}`), false); err != nil {
			return err
		}
		if commit {
			return tx.Commit(ctx)
		}
		return nil
	}
	if err := finish(first.ApplyStartedAt, true); !errors.Is(err, proposal.ErrNotApplying) {
		t.Fatalf("the taken-over apply: %v, want ErrNotApplying", err)
	}
	if err := finish(second.ApplyStartedAt, false); err != nil {
		t.Fatalf("rolled back: %v", err)
	}
	if got, _ := s.Get(ctx, p.ID, "t", "u", t0.Add(3*time.Minute)); got.State != proposal.StateApplying {
		t.Fatalf("after a rollback the proposal is %s, want applying", got.State)
	}
	if err := finish(second.ApplyStartedAt, true); err != nil {
		t.Fatalf("the current apply: %v", err)
	}
	got, err := s.Get(ctx, p.ID, "t", "u", t0.Add(3*time.Minute))
	if err != nil || got.State != proposal.StateApplied || string(got.Result) != `{"success":true}` {
		t.Fatalf("after the commit: %+v %v", got, err)
	}
	if err := finish(second.ApplyStartedAt, true); !errors.Is(err, proposal.ErrNotApplying) {
		t.Fatalf("finishing an applied proposal again: %v", err)
	}
	if err := s.WithTx(pgx.Tx(nil)).FinishApply(ctx, "no\x00id", second.ApplyStartedAt, nil, false); !errors.Is(err, proposal.ErrNotFound) {
		t.Fatalf("an id that cannot exist: %v", err)
	}
}
