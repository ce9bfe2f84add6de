package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/pgstore"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/storetest"
)

const dsnEnv = "MCPWRITE_TEST_POSTGRES_DSN"

// queryCounter is a pgx tracer counting statements, i.e. round trips once
// statements are prepared.
type queryCounter struct{ n atomic.Int64 }

func (c *queryCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}
func (c *queryCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

var (
	tableSeq atomic.Int64
	runID    = fmt.Sprintf("%d_%d", os.Getpid(), time.Now().UnixNano()%1_000_000)
)

type env struct {
	pool    *pgxpool.Pool
	queries *queryCounter
}

// newEnv connects to the test database or skips.
func newEnv(tb testing.TB) env {
	tb.Helper()
	dsn := os.Getenv(dsnEnv)
	if dsn == "" {
		tb.Skipf("set %s (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable) to run the PostgreSQL store tests", dsnEnv)
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		tb.Fatalf("%s: %v", dsnEnv, err)
	}
	qc := &queryCounter{}
	cfg.ConnConfig.Tracer = qc
	cfg.MaxConns = 16
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(pool.Close)
	return env{pool: pool, queries: qc}
}

// newTable returns a migrated store on a table of its own, dropped at the end.
func (e env) newTable(tb testing.TB, opts ...pgstore.Option) *pgstore.Store {
	tb.Helper()
	name := fmt.Sprintf("idem_test_%s_%d", runID, tableSeq.Add(1))
	s := pgstore.New(e.pool, append([]pgstore.Option{pgstore.WithTable(name)}, opts...)...)
	if err := s.Migrate(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.pool.Exec(context.Background(), "DROP TABLE IF EXISTS "+s.Table()) })
	return s
}

func TestPostgresStoreConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) idempotency.Store { return newEnv(t).newTable(t) })
}

func TestLayeredMemoryOverPostgresConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) idempotency.Store {
		return idempotency.NewLayered(idempotency.NewMemoryStore(), newEnv(t).newTable(t))
	})
}

func TestTxStoreConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) idempotency.Store {
		e := newEnv(t)
		s := e.newTable(t)
		return txPerCall{s: s, pool: e.pool}
	})
}

// txPerCall runs every operation through TxStore in its own committed
// transaction, proving TxStore has the same semantics as Store.
type txPerCall struct {
	s    *pgstore.Store
	pool *pgxpool.Pool
}

func (c txPerCall) run(ctx context.Context, f func(ts *pgstore.TxStore) error) error {
	return pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error { return f(c.s.WithTx(tx)) })
}
func (c txPerCall) Claim(ctx context.Context, k idempotency.Key, fp string, now time.Time, lease time.Duration) (res idempotency.ClaimResult, err error) {
	err = c.run(ctx, func(ts *pgstore.TxStore) error { res, err = ts.Claim(ctx, k, fp, now, lease); return err })
	return res, err
}
func (c txPerCall) Complete(ctx context.Context, k idempotency.Key, fp string, resp []byte, isErr bool, now time.Time, ttl time.Duration) error {
	return c.run(ctx, func(ts *pgstore.TxStore) error { return ts.Complete(ctx, k, fp, resp, isErr, now, ttl) })
}
func (c txPerCall) Release(ctx context.Context, k idempotency.Key, fp string) error {
	return c.run(ctx, func(ts *pgstore.TxStore) error { return ts.Release(ctx, k, fp) })
}
func (c txPerCall) Get(ctx context.Context, k idempotency.Key, now time.Time) (rec *idempotency.Record, err error) {
	err = c.run(ctx, func(ts *pgstore.TxStore) error { rec, err = ts.Get(ctx, k, now); return err })
	return rec, err
}

func TestLayeredFailureModesOverPostgres(t *testing.T) {
	storetest.RunFailureModes(t, func(t *testing.T) idempotency.Store { return newEnv(t).newTable(t) })
}

// TestDomainWriteAndKeyCommitTogether shows the transactional variant: the
// domain insert and the key's completion share one transaction.
func TestDomainWriteAndKeyCommitTogether(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	domain := fmt.Sprintf("idem_test_domain_%s_%d", runID, tableSeq.Add(1))
	if _, err := e.pool.Exec(ctx, "CREATE TABLE "+domain+" (id TEXT PRIMARY KEY, name TEXT NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.pool.Exec(context.Background(), "DROP TABLE IF EXISTS "+domain) })
	now := idempotency.TruncateTime(time.Now())
	resp := []byte(`{"success":true,"element":{"id":"e1"}}`)
	cases := []struct {
		name        string
		claimInTx   bool
		commit      bool
		wantRows    int
		wantRecord  func(k idempotency.Key) *idempotency.Record // nil: ErrNotFound
		wantClaimed bool                                        // a retry after the transaction claims
	}{
		{name: "commit persists the write and the key", commit: true, wantRows: 1,
			wantRecord: func(k idempotency.Key) *idempotency.Record {
				return &idempotency.Record{Key: k, Fingerprint: "fp", State: idempotency.StateCompleted, Response: resp, CreatedAt: now, ExpiresAt: now.Add(time.Second + idempotency.DefaultDurableTTL)}
			}},
		{name: "rollback leaves no write and no completion; the claim stays leased", commit: false, wantRows: 0,
			wantRecord: func(k idempotency.Key) *idempotency.Record {
				return &idempotency.Record{Key: k, Fingerprint: "fp", State: idempotency.StateInProgress, CreatedAt: now, LeaseUntil: now.Add(time.Minute), ExpiresAt: now.Add(time.Minute)}
			}},
		{name: "rollback of a claim made in the transaction leaves neither", claimInTx: true, commit: false, wantRows: 0, wantClaimed: true},
		{name: "commit of a claim made in the transaction persists both", claimInTx: true, commit: true, wantRows: 1,
			wantRecord: func(k idempotency.Key) *idempotency.Record {
				return &idempotency.Record{Key: k, Fingerprint: "fp", State: idempotency.StateCompleted, Response: resp, CreatedAt: now, ExpiresAt: now.Add(time.Second + idempotency.DefaultDurableTTL)}
			}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := e.newTable(t)
			k := idempotency.Key{Tenant: "tenant-a", Tool: "create_element", Key: fmt.Sprint("req-", i)}
			id := fmt.Sprint("e", i)
			if !tc.claimInTx {
				if res, err := s.Claim(ctx, k, "fp", now, time.Minute); err != nil || !res.Claimed {
					t.Fatalf("claim = %+v, %v", res, err)
				}
			}
			tx, err := e.pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			ts := s.WithTx(tx)
			if tc.claimInTx {
				if res, err := ts.Claim(ctx, k, "fp", now, time.Minute); err != nil || !res.Claimed {
					t.Fatalf("claim in tx = %+v, %v", res, err)
				}
			}
			if _, err := tx.Exec(ctx, "INSERT INTO "+domain+" (id, name) VALUES ($1, 'OrderService')", id); err != nil {
				t.Fatal(err)
			}
			if err := ts.Complete(ctx, k, "fp", resp, false, now.Add(time.Second), idempotency.DefaultDurableTTL); err != nil {
				t.Fatal(err)
			}
			if tc.commit {
				err = tx.Commit(ctx)
			} else {
				err = tx.Rollback(ctx)
			}
			if err != nil {
				t.Fatal(err)
			}
			var rows int
			if err := e.pool.QueryRow(ctx, "SELECT count(*) FROM "+domain+" WHERE id = $1", id).Scan(&rows); err != nil {
				t.Fatal(err)
			}
			if rows != tc.wantRows {
				t.Errorf("domain rows = %d, want %d", rows, tc.wantRows)
			}
			got, err := s.Get(ctx, k, now.Add(2*time.Second))
			if tc.wantRecord == nil {
				if !errors.Is(err, idempotency.ErrNotFound) {
					t.Errorf("Get = %+v, %v; want ErrNotFound", got, err)
				}
			} else if d := storetest.Diff(got, tc.wantRecord(k)); err != nil || d != "" {
				t.Errorf("Get: %v %s", err, d)
			}
			res, err := s.Claim(ctx, k, "fp", now.Add(3*time.Second), time.Minute)
			if err != nil || res.Claimed != tc.wantClaimed {
				t.Errorf("retry claim = %+v, %v; want Claimed %v", res, err, tc.wantClaimed)
			}
		})
	}
}

// TestTransactionalCompleteLosingTheKeyFails: a second execution whose
// Complete finds the key completed gets ErrClaimLost, so it rolls back its
// duplicate domain write.
func TestTransactionalCompleteLosingTheKeyFails(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s := e.newTable(t)
	now := idempotency.TruncateTime(time.Now())
	k := idempotency.Key{Tenant: "t", Tool: "x", Key: "k"}
	if err := s.Complete(ctx, k, "fp", []byte("first"), false, now, time.Hour); err != nil {
		t.Fatal(err)
	}
	err := pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		return s.WithTx(tx).Complete(ctx, k, "fp", []byte("second"), false, now.Add(time.Second), time.Hour)
	})
	if !errors.Is(err, idempotency.ErrClaimLost) {
		t.Fatalf("second transactional Complete = %v, want ErrClaimLost", err)
	}
	got, err := s.Get(ctx, k, now.Add(2*time.Second))
	if err != nil || string(got.Response) != "first" {
		t.Fatalf("Get = %+v, %v; want the first response", got, err)
	}
}

func TestMigrateIsIdempotentAndCleanupDeletesExpiredRows(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s := e.newTable(t)
	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("second Migrate: %v", err)
	}
	real := time.Now()
	past := real.Add(-8 * 24 * time.Hour)
	steps := []struct {
		key, fp string
		at      time.Time
		ttl     time.Duration
		claim   bool
	}{
		{"expired-completed", "fp", past, idempotency.DefaultDurableTTL, false},
		{"expired-claim", "fp", past, 0, true},
		{"live-completed", "fp", real, idempotency.DefaultDurableTTL, false},
		{"live-claim", "fp", real, 0, true},
	}
	for _, st := range steps {
		k := idempotency.Key{Tenant: "t", Tool: "x", Key: st.key}
		var err error
		if st.claim {
			_, err = s.Claim(ctx, k, st.fp, st.at, time.Hour)
		} else {
			err = s.Complete(ctx, k, st.fp, []byte("r"), false, st.at, st.ttl)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	n, err := s.Cleanup(ctx)
	if err != nil || n != 2 {
		t.Fatalf("Cleanup = %d, %v; want 2", n, err)
	}
	var left []string
	rows, _ := e.pool.Query(ctx, "SELECT client_request_id FROM "+s.Table()+" ORDER BY 1")
	left, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || strings.Join(left, ",") != "live-claim,live-completed" {
		t.Fatalf("rows left = %v, %v; want live-claim,live-completed", left, err)
	}
	var viaSQL int64
	if err := e.pool.QueryRow(ctx, "SELECT mcpwrite_idempotency_cleanup($1)", s.Table()).Scan(&viaSQL); err != nil || viaSQL != 0 {
		t.Fatalf("SQL cleanup after Go cleanup = %d, %v; want 0", viaSQL, err)
	}
}

func TestMigrationSQLShipsTheDefaultSchema(t *testing.T) {
	for _, want := range []string{
		"CREATE TABLE IF NOT EXISTS mcpwrite_idempotency_keys (",
		"PRIMARY KEY (tenant_id, tool, client_request_id)",
		"response_payload  BYTEA",
		"CREATE INDEX IF NOT EXISTS mcpwrite_idempotency_keys_expires_at_idx",
		"CREATE OR REPLACE FUNCTION mcpwrite_idempotency_cleanup(tbl text DEFAULT 'mcpwrite_idempotency_keys')",
	} {
		if !strings.Contains(pgstore.MigrationSQL, want) {
			t.Errorf("MigrationSQL lacks %q", want)
		}
	}
	got, err := pgstore.New(nil, pgstore.WithTable("app.idem")).MigrationFor()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`CREATE TABLE IF NOT EXISTS "app"."idem" (`, `CREATE INDEX IF NOT EXISTS "idem_expires_at_idx"`, `ON "app"."idem" (expires_at)`, "DEFAULT 'mcpwrite_idempotency_keys'"} {
		if !strings.Contains(got, want) {
			t.Errorf("MigrationFor(app.idem) lacks %q", want)
		}
	}
}

func TestInvalidTableNameIsReturnedByEveryMethod(t *testing.T) {
	ctx := context.Background()
	const want = `pgstore: invalid table name "idem; DROP TABLE x": want name or schema.name of letters, digits and _ (at most 48 each)`
	s := pgstore.New(nil, pgstore.WithTable("idem; DROP TABLE x"))
	k := idempotency.Key{Tenant: "t", Tool: "x", Key: "k"}
	_, claimErr := s.Claim(ctx, k, "fp", time.Now(), time.Minute)
	_, getErr := s.Get(ctx, k, time.Now())
	_, cleanErr := s.Cleanup(ctx)
	for name, err := range map[string]error{
		"Migrate":  s.Migrate(ctx),
		"Claim":    claimErr,
		"Complete": s.Complete(ctx, k, "fp", nil, false, time.Now(), time.Hour),
		"Release":  s.Release(ctx, k, "fp"),
		"Get":      getErr,
		"Cleanup":  cleanErr,
	} {
		if err == nil || err.Error() != want {
			t.Errorf("%s = %v, want %q", name, err, want)
		}
	}
}

func TestPostgresOperationsAreOneRoundTrip(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s := e.newTable(t)
	now := time.Now()
	k := idempotency.Key{Tenant: "t", Tool: "x", Key: "k"}
	cases := []struct {
		name string
		op   func() error
	}{
		{"claim", func() error { _, err := s.Claim(ctx, k, "fp", now, time.Minute); return err }},
		{"claim finding the claim", func() error { _, err := s.Claim(ctx, k, "fp", now, time.Minute); return err }},
		{"complete", func() error { return s.Complete(ctx, k, "fp", []byte("r"), false, now, time.Hour) }},
		{"claim finding the completed record (replay)", func() error { _, err := s.Claim(ctx, k, "fp", now, time.Minute); return err }},
		{"get", func() error { _, err := s.Get(ctx, k, now); return err }},
		{"release", func() error { return s.Release(ctx, k, "fp") }},
	}
	for _, tc := range cases {
		before := e.queries.n.Load()
		if err := tc.op(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := e.queries.n.Load() - before; got != 1 {
			t.Errorf("%s: %d statements, want 1", tc.name, got)
		}
	}
}

func BenchmarkClaimComplete(b *testing.B) {
	b.Run("pg", func(b *testing.B) {
		e := newEnv(b)
		storetest.BenchClaimComplete(b, e.newTable(b), e.queries.n.Load)
	})
	b.Run("layered-memory-over-pg", func(b *testing.B) {
		e := newEnv(b)
		storetest.BenchClaimComplete(b, idempotency.NewLayered(idempotency.NewMemoryStore(), e.newTable(b)), e.queries.n.Load)
	})
}
