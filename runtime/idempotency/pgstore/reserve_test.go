package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/pgstore"
)

// reserveIn reserves k in tx in a batch of its own.
func reserveIn(ctx context.Context, tx pgx.Tx, s *pgstore.Store, k idempotency.Key, now time.Time) (idempotency.ClaimResult, error) {
	b := &pgx.Batch{}
	p, ok := s.WithTx(tx).QueueReserve(b, k, now)
	if !ok {
		return idempotency.ClaimResult{}, errors.New("QueueReserve declined")
	}
	br := tx.SendBatch(ctx, b)
	res, settled, err := p.Read(br)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err == nil && !settled {
		err = errors.New("a reservation was not settled")
	}
	return res, err
}

// completeWith records the outcome of k in tx with a row of side, in one
// statement, sent with the rest of b.
func completeWith(ctx context.Context, tx pgx.Tx, s *pgstore.Store, side string, k idempotency.Key, fp, response string, now time.Time, then ...string) error {
	b := &pgx.Batch{}
	if err := s.WithTx(tx).QueueCompleteWith(b, "INSERT INTO "+side+" (v) VALUES ($1)", []any{response}, k, fp, []byte(response), false, now, time.Hour); err != nil {
		return err
	}
	for _, q := range then {
		b.Queue(q)
	}
	return tx.SendBatch(ctx, b).Close()
}

// sideTable creates a table the tests' writes insert into.
func sideTable(t *testing.T, e env, s *pgstore.Store) string {
	t.Helper()
	side := strings.Trim(s.Table(), `"`) + "_side"
	if _, err := e.pool.Exec(context.Background(), "CREATE TABLE "+side+" (v text)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.pool.Exec(context.Background(), "DROP TABLE IF EXISTS "+side) })
	return side
}

// holdKey begins the first of two transactions on one key and runs take in
// it (the key's reservation or write); it answers the transaction, still
// open, and its backend's pid, which the second waits for.
func holdKey(t *testing.T, e env, take func(pgx.Tx) error) (pgx.Tx, int32) {
	t.Helper()
	ctx := context.Background()
	first, err := e.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := take(first); err != nil {
		t.Fatalf("the first transaction: %v", err)
	}
	var holder int32
	if err := first.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&holder); err != nil {
		t.Fatal(err)
	}
	return first, holder
}

// waitForReserveWaiter waits until a reservation waits for the
// transaction of the backend holder.
func waitForReserveWaiter(t *testing.T, e env, holder int32) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var n int
		if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'advisory'
			AND query LIKE '%mcpwrite_idempotency_reserve%' AND $1 = ANY(pg_blocking_pids(pid))`, holder).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the second reservation of the key never waited for the first")
		}
	}
}

// A second transaction reserving a key waits for the first: when the first
// commits its outcome (written once, completed, with its write) the second
// finds that record; when the first rolls back the second gets the key.
func TestReservedKeyWaitsForTheFirstTransaction(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s := e.newTable(t)
	side := sideTable(t, e, s)
	now := idempotency.TruncateTime(time.Now())
	for _, commit := range []bool{true, false} {
		k := idempotency.Key{Tenant: "t", Tool: "x", Key: map[bool]string{true: "committed", false: "rolled-back"}[commit]}
		first, holder := holdKey(t, e, func(tx pgx.Tx) error {
			if res, err := reserveIn(ctx, tx, s, k, now); err != nil || !res.Claimed {
				return fmt.Errorf("reservation = %+v, %v; want the key", res, err)
			}
			return nil
		})
		type result struct {
			res idempotency.ClaimResult
			err error
		}
		second := make(chan result, 1)
		go func() {
			var r result
			r.err = pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
				if r.res, r.err = reserveIn(ctx, tx, s, k, now); r.err != nil || !r.res.Claimed {
					return r.err
				}
				return completeWith(ctx, tx, s, side, k, "fp", "second", now)
			})
			second <- r
		}()
		waitForReserveWaiter(t, e, holder)
		if commit {
			if err := completeWith(ctx, first, s, side, k, "fp", "first", now); err != nil {
				t.Fatal(err)
			}
			if err := first.Commit(ctx); err != nil {
				t.Fatal(err)
			}
		} else if err := first.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		r := <-second
		if r.err != nil {
			t.Fatal(r.err)
		}
		want := "first"
		if commit {
			if r.res.Claimed || r.res.Existing.State != idempotency.StateCompleted || string(r.res.Existing.Response) != "first" {
				t.Fatalf("after the first committed the second reservation = %+v; want the completed record \"first\"", r.res)
			}
		} else {
			want = "second"
			if !r.res.Claimed {
				t.Fatalf("after the first rolled back the second reservation = %+v; want the key", r.res)
			}
		}
		got, err := s.Get(ctx, k, now)
		if err != nil || got.State != idempotency.StateCompleted || string(got.Response) != want {
			t.Fatalf("record of %s = %+v, %v; want completed %q", k.Key, got, err, want)
		}
		var rows int
		if err := e.pool.QueryRow(ctx, "SELECT count(*) FROM "+side+" WHERE v = $1", want).Scan(&rows); err != nil || rows != 1 {
			t.Fatalf("writes of %q = %d, %v; want 1", want, rows, err)
		}
	}
}

// completedElsewhere reserves the key "lost" in a transaction it returns
// (rolled back when the test ends), then has a call that does not reserve
// complete the key meanwhile, with the response "elsewhere".
func completedElsewhere(t *testing.T, e env, s *pgstore.Store, now time.Time) (pgx.Tx, idempotency.Key) {
	t.Helper()
	ctx := context.Background()
	lost := idempotency.Key{Tenant: "t", Tool: "x", Key: "lost"}
	tx, err := e.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback(ctx) })
	if res, err := reserveIn(ctx, tx, s, lost, now); err != nil || !res.Claimed {
		t.Fatalf("reservation = %+v, %v", res, err)
	}
	if err := s.Complete(ctx, lost, "other", []byte("elsewhere"), false, now, time.Hour); err != nil {
		t.Fatal(err)
	}
	return tx, lost
}

// The reservation answers what holds the key: a live claim made outside a
// transaction (in progress), not one past its lease, which the outcome
// then takes over; the outcome is refused (ErrClaimLost, the write with
// it undone, a commit queued after it not run) when another call completed
// the key meanwhile.
func TestReservationAndClaimsMadeOutsideTransactions(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s := e.newTable(t)
	side := sideTable(t, e, s)
	now := idempotency.TruncateTime(time.Now())
	live := idempotency.Key{Tenant: "t", Tool: "x", Key: "live"}
	if _, err := s.Claim(ctx, live, "fp", now, time.Minute); err != nil {
		t.Fatal(err)
	}
	stale := idempotency.Key{Tenant: "t", Tool: "x", Key: "stale"}
	if _, err := s.Claim(ctx, stale, "fp", now.Add(-time.Hour), time.Minute); err != nil {
		t.Fatal(err)
	}
	err := pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		res, err := reserveIn(ctx, tx, s, live, now)
		if err != nil || res.Claimed || res.Existing.State != idempotency.StateInProgress {
			t.Fatalf("reservation of a live claim = %+v, %v; want it in progress", res, err)
		}
		res, err = reserveIn(ctx, tx, s, stale, now)
		if err != nil || !res.Claimed {
			t.Fatalf("reservation of a claim past its lease = %+v, %v; want the key", res, err)
		}
		return completeWith(ctx, tx, s, side, stale, "fp", "taken over", now)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, stale, now); err != nil || got.State != idempotency.StateCompleted || string(got.Response) != "taken over" {
		t.Fatalf("record taken over = %+v, %v", got, err)
	}

	tx, lost := completedElsewhere(t, e, s, now)
	if err := completeWith(ctx, tx, s, side, lost, "fp", "mine", now, "commit"); !errors.Is(err, idempotency.ErrClaimLost) {
		t.Fatalf("outcome of a key completed elsewhere = %v, want ErrClaimLost", err)
	}
	if err := tx.Commit(ctx); !errors.Is(err, pgx.ErrTxCommitRollback) {
		t.Fatalf("commit after the lost outcome = %v; want the transaction aborted (ErrTxCommitRollback)", err)
	}
	var rows int
	if err := e.pool.QueryRow(ctx, "SELECT count(*) FROM "+side+" WHERE v = 'mine'").Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("writes of the lost outcome = %d, %v; want 0", rows, err)
	}
	if got, _ := s.Get(ctx, lost, now); string(got.Response) != "elsewhere" {
		t.Fatalf("the key completed elsewhere changed: %q", got.Response)
	}
}

// A database migrated by an earlier release (the table, without the
// reservation's functions) is upgraded by Migrate: shown in a schema of
// its own, so that dropping the functions touches no other test. A store
// with a quota or invalid options declines to queue a reservation.
func TestMigrateAddsTheReservationToAnEarlierDatabase(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	schema := "idem_upgrade_" + runID
	if _, err := e.pool.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.pool.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE") })
	cfg, err := pgxpool.ParseConfig(os.Getenv(dsnEnv))
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	s := pgstore.New(pool)
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "DROP FUNCTION mcpwrite_idempotency_reserve; DROP FUNCTION mcpwrite_idempotency_lost", pgx.QueryExecModeSimpleProtocol); err != nil {
		t.Fatal(err)
	}
	k := idempotency.Key{Tenant: "t", Tool: "x", Key: "k"}
	now := time.Now()
	reserve := func() error {
		return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			_, err := reserveIn(ctx, tx, s, k, now)
			return err
		})
	}
	if err := reserve(); err == nil || !strings.Contains(err.Error(), "mcpwrite_idempotency_reserve") {
		t.Fatalf("a reservation without the functions = %v; want the missing function", err)
	}
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := reserve(); err != nil {
		t.Fatalf("reservation after Migrate: %v", err)
	}

	got, err := pgstore.New(nil, pgstore.WithTable("app.idem")).MigrationFor()
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{got, pgstore.MigrationSQL} {
		for _, want := range []string{"CREATE OR REPLACE FUNCTION mcpwrite_idempotency_reserve(tbl regclass,", "CREATE OR REPLACE FUNCTION mcpwrite_idempotency_lost("} {
			if !strings.Contains(sql, want) {
				t.Errorf("migration lacks %q", want)
			}
		}
	}
	for name, st := range map[string]*pgstore.Store{
		"quota":        pgstore.New(e.pool, pgstore.WithMaxRecordsPerTenant(5)),
		"invalid name": pgstore.New(e.pool, pgstore.WithTable("bad-name")),
	} {
		b := &pgx.Batch{}
		if p, ok := st.WithTx(nil).QueueReserve(b, k, now); ok || p != nil || b.Len() != 0 {
			t.Errorf("QueueReserve with %s: %v, %v, %d queued; want declined and nothing queued", name, p, ok, b.Len())
		}
	}
}

// A caller statement with a WITH list of its own writes every row of it
// with the outcome, in one statement, and none of them when the key is no
// longer the transaction's.
func TestCompleteWithAStatementOfSeveralWrites(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s := e.newTable(t)
	side := sideTable(t, e, s)
	now := idempotency.TruncateTime(time.Now())
	stmt := "WITH first AS (INSERT INTO " + side + " (v) VALUES ($2 || ' (first, ''(quoted)'')')),\n second AS (INSERT INTO " + side +
		" (v) VALUES ($2 || ' (second)'))\nINSERT INTO " + side + " (v) VALUES ($1)"
	write := func(tx pgx.Tx, k idempotency.Key, then ...string) error {
		b := &pgx.Batch{}
		if err := s.WithTx(tx).QueueCompleteWith(b, stmt, []any{k.Key, k.Key + " also"}, k, "fp", []byte(k.Key), false, now, time.Hour); err != nil {
			return err
		}
		for _, q := range then {
			b.Queue(q)
		}
		return tx.SendBatch(ctx, b).Close()
	}
	k := idempotency.Key{Tenant: "t", Tool: "x", Key: "several"}
	if err := pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		if res, err := reserveIn(ctx, tx, s, k, now); err != nil || !res.Claimed {
			t.Fatalf("reservation = %+v, %v", res, err)
		}
		return write(tx, k)
	}); err != nil {
		t.Fatal(err)
	}
	rows, _ := e.pool.Query(ctx, "SELECT v FROM "+side+" ORDER BY v")
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if want := []string{"several", "several also (first, '(quoted)')", "several also (second)"}; err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("rows = %q, %v; want %q", got, err, want)
	}
	if rec, err := s.Get(ctx, k, now); err != nil || rec.State != idempotency.StateCompleted || string(rec.Response) != "several" {
		t.Fatalf("record = %+v, %v", rec, err)
	}

	tx, lost := completedElsewhere(t, e, s, now)
	if err := write(tx, lost, "commit"); !errors.Is(err, idempotency.ErrClaimLost) {
		t.Fatalf("outcome of a key completed elsewhere = %v, want ErrClaimLost", err)
	}
	_ = tx.Rollback(ctx)
	var n int
	if err := e.pool.QueryRow(ctx, "SELECT count(*) FROM "+side+" WHERE v LIKE 'lost%'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("rows of the lost outcome = %d, %v; want 0", n, err)
	}
}
