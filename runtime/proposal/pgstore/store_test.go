package pgstore_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal/pgstore"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal/storetest"
)

const dsnVar = "MCPWRITE_TEST_POSTGRES_DSN"

// testPool connects to the test database, or skips without one.
func testPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	dsn := os.Getenv(dsnVar)
	if dsn == "" {
		t.Skip("set " + dsnVar + " to run the PostgreSQL proposal store tests")
	}
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatalf("pgxpool.New: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// uniqueTable returns a table name no other test run uses, and drops the
// table and its cleanup function when the test ends.
func uniqueTable(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "mcpwrite_proposals_test_" + hex.EncodeToString(b)
	t.Cleanup(func() {
		ctx := context.Background()
		if _, err := pool.Exec(ctx, `DROP TABLE IF EXISTS `+name); err != nil {
			t.Errorf("drop %s: %v", name, err)
		}
		if _, err := pool.Exec(ctx, `DROP FUNCTION IF EXISTS `+name+`_cleanup(timestamptz)`); err != nil {
			t.Errorf("drop %s_cleanup: %v", name, err)
		}
	})
	return name
}

func newStore(t *testing.T, pool *pgxpool.Pool, opts ...pgstore.Option) (*pgstore.Store, string) {
	t.Helper()
	table := uniqueTable(t, pool)
	s := pgstore.New(pool, append([]pgstore.Option{pgstore.WithTable(table)}, opts...)...)
	if err := s.Migrate(context.Background()); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	return s, table
}

func TestStoreConformance(t *testing.T) {
	pool := testPool(t)
	storetest.Run(t, func(t *testing.T) proposal.Store {
		s, _ := newStore(t, pool)
		return s
	})
}

// TestStoreConformanceSimpleProtocol runs the suite as deployments behind a
// transaction-pooling proxy do: without prepared statements, where every
// argument is sent as text.
func TestStoreConformanceSimpleProtocol(t *testing.T) {
	testPool(t) // skips without a database
	cfg, err := pgxpool.ParseConfig(os.Getenv(dsnVar))
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	storetest.Run(t, func(t *testing.T) proposal.Store {
		s, _ := newStore(t, pool)
		return s
	})
}

func TestMigrateIsIdempotentAndSafeConcurrently(t *testing.T) {
	pool := testPool(t)
	ctx := context.Background()
	table := uniqueTable(t, pool)
	s := pgstore.New(pool, pgstore.WithTable(table))
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() { errs[i] = s.Migrate(ctx) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("concurrent Migrate %d = %v", i, err)
		}
	}
	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("repeated Migrate = %v", err)
	}

	rows, err := pool.Query(ctx, `SELECT column_name, data_type, is_nullable FROM information_schema.columns
		WHERE table_name = $1 ORDER BY ordinal_position`, table)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var name, typ, null string
		if err := rows.Scan(&name, &typ, &null); err != nil {
			t.Fatal(err)
		}
		got = append(got, name+" "+typ+" "+null)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"id text NO", "tenant text NO", "principal text NO", "tool text NO",
		"classification text NO", "summary text NO", "request bytea YES",
		"arguments json YES", "preview json YES",
		"created_at timestamp with time zone NO", "expires_at timestamp with time zone NO",
		"state smallint NO", "result bytea YES", "result_is_error boolean NO",
		"applied_at timestamp with time zone YES",
		"target text NO", "state_digest text NO", "state_summary text NO",
		"apply_started_at timestamp with time zone YES",
	}
	if len(got) != len(want) {
		t.Fatalf("columns = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("column %d = %q, want %q", i, got[i], want[i])
		}
	}

	var indexes []string
	rows, err = pool.Query(ctx, `SELECT indexdef FROM pg_indexes WHERE tablename = $1 ORDER BY indexname`, table)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var def string
		if err := rows.Scan(&def); err != nil {
			t.Fatal(err)
		}
		indexes = append(indexes, def)
	}
	wantIdx := []string{
		"CREATE INDEX " + table + "_expires_idx ON public." + table + " USING btree (expires_at)",
		"CREATE INDEX " + table + "_owner_idx ON public." + table + " USING btree (tenant, principal)",
		"CREATE UNIQUE INDEX " + table + "_pkey ON public." + table + " USING btree (id)",
	}
	if len(indexes) != len(wantIdx) {
		t.Fatalf("indexes = %q, want %q", indexes, wantIdx)
	}
	for i := range wantIdx {
		if indexes[i] != wantIdx[i] {
			t.Fatalf("index %d = %q, want %q", i, indexes[i], wantIdx[i])
		}
	}
}

func TestCleanupDeletesProposalsPastRetentionInAnyState(t *testing.T) {
	pool := testPool(t)
	ctx := context.Background()
	now := time.Date(2031, 5, 6, 12, 0, 0, 0, time.UTC)
	s, table := newStore(t, pool, pgstore.WithRetention(time.Hour), pgstore.WithClock(func() time.Time { return now }))

	// Each proposal expires at now+offset; cleanup removes those at or
	// before now-1h.
	cases := []struct {
		id      string
		expires time.Duration
		state   string // "", "applying", "applied", "discarded"
		gone    bool
	}{
		{"pending-old", -2 * time.Hour, "", true},
		{"applying-old", -90 * time.Minute, "applying", true},
		{"applied-old", -3 * time.Hour, "applied", true},
		{"discarded-at-cutoff", -time.Hour, "discarded", true},
		{"pending-in-retention", -59 * time.Minute, "", false},
		{"applied-in-retention", -time.Minute, "applied", false},
		{"pending-live", time.Hour, "", false},
	}
	for _, c := range cases {
		exp := now.Add(c.expires)
		p := &proposal.Proposal{ID: c.id, Tenant: "t", Principal: "p", Tool: "create_task",
			CreatedAt: exp.Add(-15 * time.Minute), ExpiresAt: exp}
		if err := s.Create(ctx, p); err != nil {
			t.Fatalf("Create(%s) = %v", c.id, err)
		}
		before := exp.Add(-time.Minute)
		switch c.state {
		case "applying", "applied":
			if _, err := s.BeginApply(ctx, c.id, "t", "p", before); err != nil {
				t.Fatalf("BeginApply(%s) = %v", c.id, err)
			}
			if c.state == "applied" {
				if err := s.FinishApply(ctx, c.id, []byte("r"), false); err != nil {
					t.Fatalf("FinishApply(%s) = %v", c.id, err)
				}
			}
		case "discarded":
			if err := s.Discard(ctx, c.id, "t", "p", before); err != nil {
				t.Fatalf("Discard(%s) = %v", c.id, err)
			}
		}
	}
	n, err := s.Cleanup(ctx)
	if err != nil || n != 4 {
		t.Fatalf("Cleanup = %d, %v; want 4, nil", n, err)
	}
	for _, c := range cases {
		_, err := s.Get(ctx, c.id, "t", "p", now.Add(-2*time.Hour-time.Minute))
		if gone := errors.Is(err, proposal.ErrNotFound); gone != c.gone {
			t.Errorf("after Cleanup, Get(%s) = %v; gone = %v, want %v", c.id, err, gone, c.gone)
		}
	}
	if n, err := s.Cleanup(ctx); err != nil || n != 0 {
		t.Fatalf("second Cleanup = %d, %v; want 0, nil", n, err)
	}
	// The SQL function is usable from a scheduler without the Go store.
	var direct int64
	if err := pool.QueryRow(ctx, `SELECT `+table+`_cleanup($1)`, now.Add(2*time.Hour)).Scan(&direct); err != nil || direct != 3 {
		t.Fatalf("%s_cleanup(now+2h) = %d, %v; want 3, nil", table, direct, err)
	}
}

func TestBadConfigurationFailsEveryMethod(t *testing.T) {
	ctx := context.Background()
	var pool *pgxpool.Pool // a bad table name is reported before the pool is used
	tests := []struct {
		name string
		s    *pgstore.Store
		want string
	}{
		{"nil pool", pgstore.New(nil), "pgstore: nil pool"},
		{"upper case table", pgstore.New(pool, pgstore.WithTable("Proposals")), `pgstore: invalid table name "Proposals": want a lower-case identifier of at most 48 bytes`},
		{"injected table", pgstore.New(pool, pgstore.WithTable("p; DROP TABLE x")), `pgstore: invalid table name "p; DROP TABLE x": want a lower-case identifier of at most 48 bytes`},
		{"schema qualified table", pgstore.New(pool, pgstore.WithTable("s.p")), `pgstore: invalid table name "s.p": want a lower-case identifier of at most 48 bytes`},
		{"empty table", pgstore.New(pool, pgstore.WithTable("")), `pgstore: invalid table name "": want a lower-case identifier of at most 48 bytes`},
	}
	now := time.Now()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.s == nil {
				t.Fatal("New returned nil")
			}
			calls := map[string]error{"Migrate": tc.s.Migrate(ctx)}
			_, calls["Cleanup"] = tc.s.Cleanup(ctx)
			calls["Create"] = tc.s.Create(ctx, &proposal.Proposal{Tool: "x", CreatedAt: now, ExpiresAt: now.Add(time.Minute)})
			_, calls["Get"] = tc.s.Get(ctx, "id", "t", "p", now)
			_, calls["BeginApply"] = tc.s.BeginApply(ctx, "id", "t", "p", now)
			calls["FinishApply"] = tc.s.FinishApply(ctx, "id", nil, false)
			calls["AbortApply"] = tc.s.AbortApply(ctx, "id")
			calls["Discard"] = tc.s.Discard(ctx, "id", "t", "p", now)
			for name, err := range calls {
				if err == nil || err.Error() != tc.want {
					t.Errorf("%s = %v, want %q", name, err, tc.want)
				}
			}
		})
	}
}

func TestStoreQuotas(t *testing.T) {
	pool := testPool(t)
	storetest.RunQuotas(t, func(t *testing.T, q proposal.Quotas) proposal.Store {
		s, _ := newStore(t, pool, pgstore.WithQuotas(q))
		return s
	})
}
