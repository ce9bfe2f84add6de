// Package testdb gives the outbox tests a PostgreSQL pool, an outbox table
// of their own in the shape the relay reads, and writers that append to it.
package testdb

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DSNEnv and RedisEnv name the test servers.
const (
	DSNEnv   = "MCPWRITE_TEST_POSTGRES_DSN"
	RedisEnv = "MCPWRITE_TEST_REDIS_ADDR"
)

var (
	seq   atomic.Int64
	RunID = fmt.Sprintf("%d_%d", os.Getpid(), time.Now().UnixNano()%1_000_000)
)

// Pool connects to the test database or skips.
func Pool(tb testing.TB) *pgxpool.Pool {
	tb.Helper()
	dsn := os.Getenv(DSNEnv)
	if dsn == "" {
		tb.Skipf("set %s (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable) to run the outbox tests", DSNEnv)
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		tb.Fatalf("%s: %v", DSNEnv, err)
	}
	cfg.MaxConns = 24
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(pool.Close)
	return pool
}

// DDL creates an outbox table named name in the shape the relay reads.
func DDL(name string) string {
	return `CREATE TABLE ` + name + ` (
    id           bigserial   PRIMARY KEY,
    tenant       text        NOT NULL,
    tool         text        NOT NULL,
    request      jsonb       NOT NULL,
    response     jsonb       NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    txid         xid8        NOT NULL DEFAULT pg_current_xact_id(),
    delivered_at timestamptz
);
CREATE INDEX ` + name + `_undelivered ON ` + name + ` (txid, id) WHERE delivered_at IS NULL`
}

// Table creates a fresh outbox table, dropped at the end of the test.
func Table(tb testing.TB, pool *pgxpool.Pool) string {
	tb.Helper()
	name := fmt.Sprintf("outbox_test_%s_%d", RunID, seq.Add(1))
	if _, err := pool.Exec(context.Background(), DDL(name)); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _, _ = pool.Exec(context.Background(), "DROP TABLE IF EXISTS "+name) })
	return name
}

// Insert appends one row for tenant in tx and returns its id.
func Insert(ctx context.Context, tx pgx.Tx, table, tenant string, n int) (int64, error) {
	var id int64
	err := tx.QueryRow(ctx, `INSERT INTO `+table+` (tenant, tool, request, response) VALUES ($1, 'createElement', $2, '{"ok":true}') RETURNING id`,
		tenant, fmt.Sprintf(`{"n":%d}`, n)).Scan(&id)
	return id, err
}

// Write commits one row for tenant in a transaction of its own.
func Write(ctx context.Context, pool *pgxpool.Pool, table, tenant string, n int) (int64, error) {
	var id int64
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var err error
		id, err = Insert(ctx, tx, table, tenant, n)
		return err
	})
	return id, err
}

// Committed returns the committed rows' ids in (txid, id) order, per tenant.
func Committed(tb testing.TB, pool *pgxpool.Pool, table string) map[string][]int64 {
	tb.Helper()
	rows, err := pool.Query(context.Background(), `SELECT tenant, id FROM `+table+` ORDER BY txid, id`)
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string][]int64{}
	for rows.Next() {
		var t string
		var id int64
		if err := rows.Scan(&t, &id); err != nil {
			tb.Fatal(err)
		}
		out[t] = append(out[t], id)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}
