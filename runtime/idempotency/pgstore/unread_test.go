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

// completeUnread writes k's outcome with a row of side in tx without
// reading k's record: the key's lock (ReserveLock, a statement of its own)
// and the row with the outcome (QueueCompleteUnread), in one round trip.
func completeUnread(ctx context.Context, tx pgx.Tx, s *pgstore.Store, side string, k idempotency.Key, fp, response string, now time.Time) error {
	lock, ok := s.ReserveLock(1)
	if !ok {
		return errors.New("ReserveLock declined")
	}
	b := &pgx.Batch{}
	b.Queue("SELECT /* mcpwrite_idempotency_reserve */ "+lock, s.ReserveLockArgs(k)...)
	if err := s.WithTx(tx).QueueCompleteUnread(b, "INSERT INTO "+side+" (v) VALUES ($1)", []any{response}, k, fp, []byte(response), false, now, time.Hour); err != nil {
		return err
	}
	return tx.SendBatch(ctx, b).Close()
}

// An outcome written without reading its key's record is written where no
// record holds the key, or an expired one does (a claim's record expires
// when its lease ends); where a live record holds
// it, completed or in progress (claimed outside a transaction, of this
// fingerprint or another, its lease running), the write fails with ErrClaimLost and leaves
// the record as it was: the caller rolls back and reserves the key.
func TestCompleteUnreadWritesOnlyAKeyNoLiveRecordHolds(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s := e.newTable(t)
	side := sideTable(t, e, s)
	now := idempotency.TruncateTime(time.Now())
	for _, tt := range []struct {
		name    string
		before  func(k idempotency.Key) error
		written bool
		want    idempotency.Record // the record after the write, when it failed
	}{
		{name: "no record", written: true},
		{name: "completed", before: func(k idempotency.Key) error {
			return pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error { return completeWith(ctx, tx, s, side, k, "fp", "earlier", now) })
		}, want: idempotency.Record{Fingerprint: "fp", State: idempotency.StateCompleted, Response: []byte("earlier")}},
		{name: "in progress, same fingerprint", before: func(k idempotency.Key) error {
			_, err := s.Claim(ctx, k, "fp", now, time.Minute)
			return err
		}, want: idempotency.Record{Fingerprint: "fp", State: idempotency.StateInProgress}},
		{name: "in progress, its lease ended", before: func(k idempotency.Key) error {
			_, err := s.Claim(ctx, k, "other", now.Add(-time.Minute), time.Second)
			return err
		}, written: true},
		{name: "in progress, other fingerprint", before: func(k idempotency.Key) error {
			_, err := s.Claim(ctx, k, "other", now, time.Minute)
			return err
		}, want: idempotency.Record{Fingerprint: "other", State: idempotency.StateInProgress}},
		{name: "expired", before: func(k idempotency.Key) error {
			return pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
				return completeWith(ctx, tx, s, side, k, "fp", "expired", now.Add(-2*time.Hour))
			})
		}, written: true},
	} {
		k := idempotency.Key{Tenant: "t", Tool: "x", Key: tt.name}
		if tt.before != nil {
			if err := tt.before(k); err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
		}
		response := tt.name + ": unread"
		err := pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error { return completeUnread(ctx, tx, s, side, k, "fp", response, now) })
		var rows int
		if qerr := e.pool.QueryRow(ctx, "SELECT count(*) FROM "+side+" WHERE v = $1", response).Scan(&rows); qerr != nil {
			t.Fatal(qerr)
		}
		got, gerr := s.Get(ctx, k, now)
		if tt.written {
			if err != nil || rows != 1 || gerr != nil || got.State != idempotency.StateCompleted || got.Fingerprint != "fp" || string(got.Response) != response {
				t.Fatalf("%s: write = %v, its rows %d, record %+v (%v); want it written once, completed with %q", tt.name, err, rows, got, gerr, response)
			}
			continue
		}
		if !errors.Is(err, idempotency.ErrClaimLost) || rows != 0 {
			t.Fatalf("%s: write = %v with %d rows; want ErrClaimLost and no row", tt.name, err, rows)
		}
		if gerr != nil || got.State != tt.want.State || got.Fingerprint != tt.want.Fingerprint || string(got.Response) != string(tt.want.Response) {
			t.Fatalf("%s: record after the refused write = %+v (%v); want %+v", tt.name, got, gerr, tt.want)
		}
	}
}

// Two transactions writing one key without reading it take its lock: the
// second waits for the first, then fails with ErrClaimLost when the first
// committed (one row, the first's outcome), or writes when it rolled back.
func TestCompleteUnreadWaitsForTheKeysLock(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s := e.newTable(t)
	side := sideTable(t, e, s)
	now := idempotency.TruncateTime(time.Now())
	for _, commit := range []bool{true, false} {
		k := idempotency.Key{Tenant: "t", Tool: "x", Key: map[bool]string{true: "committed", false: "rolled back"}[commit]}
		first, holder := holdKey(t, e, func(tx pgx.Tx) error { return completeUnread(ctx, tx, s, side, k, "fp", k.Key+": first", now) })
		second := make(chan error, 1)
		go func() {
			second <- pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error { return completeUnread(ctx, tx, s, side, k, "fp", k.Key+": second", now) })
		}()
		waitForReserveWaiter(t, e, holder)
		want := k.Key + ": second"
		var err error
		if commit {
			want = k.Key + ": first"
			err = first.Commit(ctx)
		} else {
			err = first.Rollback(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
		err = <-second
		if commit != errors.Is(err, idempotency.ErrClaimLost) || (!commit && err != nil) {
			t.Fatalf("%s: second write = %v", k.Key, err)
		}
		got, err := s.Get(ctx, k, now)
		if err != nil || got.State != idempotency.StateCompleted || string(got.Response) != want {
			t.Fatalf("record of %s = %+v, %v; want completed %q", k.Key, got, err, want)
		}
		var rows int
		if err := e.pool.QueryRow(ctx, "SELECT count(*) FROM "+side+" WHERE v LIKE $1", k.Key+":%").Scan(&rows); err != nil || rows != 1 {
			t.Fatalf("writes of %s = %d, %v; want 1", k.Key, rows, err)
		}
	}
}
