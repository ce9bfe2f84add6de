package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
)

// querier is what both a pool and a transaction offer.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

const (
	// quotaCountSQL counts a tenant's live records, at most $3 of them.
	quotaCountSQL = `SELECT count(*), min(expires_at) FROM (SELECT expires_at FROM %[1]s
		WHERE tenant_id = $1 AND expires_at > $2 LIMIT $3) live`
	// quotaHeldSQL tells whether the tenant already holds the key.
	quotaHeldSQL = `SELECT true FROM %[1]s WHERE tenant_id = $1 AND tool = $2 AND client_request_id = $3`
)

// checkQuota refuses a claim of a key k's tenant does not hold while the
// tenant holds maxPerTenant live records of the table ident (quoted).
func checkQuota(ctx context.Context, q querier, ident string, maxPerTenant int, k idempotency.Key, now time.Time) error {
	if maxPerTenant <= 0 {
		return nil
	}
	var (
		n        int
		earliest *time.Time
	)
	if err := q.QueryRow(ctx, fmt.Sprintf(quotaCountSQL, ident), k.Tenant, now, maxPerTenant).Scan(&n, &earliest); err != nil {
		return fmt.Errorf("pgstore: claim: quota count: %w", err)
	}
	if n < maxPerTenant {
		return nil
	}
	var held bool
	err := q.QueryRow(ctx, fmt.Sprintf(quotaHeldSQL, ident), k.Tenant, k.Tool, k.Key).Scan(&held)
	switch {
	case err == nil:
		return nil // a retry or replay of a key the tenant holds
	case !errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("pgstore: claim: quota lookup: %w", err)
	}
	retry := time.Second
	if earliest != nil && earliest.Sub(now) > retry {
		retry = earliest.Sub(now).Round(time.Second)
	}
	return &idempotency.QuotaError{Limit: maxPerTenant, RetryAfter: retry}
}
