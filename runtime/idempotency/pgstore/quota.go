package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
)

// WithMaxRecordsPerTenant bounds the live (unexpired) records one tenant
// may hold: a claim of a new key past it is refused with an
// *idempotency.QuotaError (claims of keys the tenant holds, replays and
// retries, are not). n <= 0, the default, sets no bound: the table is
// bounded by its TTL clean-up and disk, and counting costs up to n index
// entries for each new key of a tenant near its bound. Set it where
// tenants are not trusted to keep their keys within reason.
func WithMaxRecordsPerTenant(n int) Option {
	return func(s *Store) {
		if n > 0 {
			s.maxPerTenant = n
		}
	}
}

const (
	// quotaCountSQL counts a tenant's live records, at most $3 of them.
	quotaCountSQL = `SELECT count(*), min(expires_at) FROM (SELECT expires_at FROM %[1]s
		WHERE tenant_id = $1 AND expires_at > $2 LIMIT $3) live`
	// quotaHeldSQL tells whether the tenant already holds the key.
	quotaHeldSQL = `SELECT true FROM %[1]s WHERE tenant_id = $1 AND tool = $2 AND client_request_id = $3`
)

// checkQuota refuses a claim of a key k's tenant does not hold while the
// tenant holds maxPerTenant live records.
func (s *Store) checkQuota(ctx context.Context, q querier, k idempotency.Key, now time.Time) error {
	if s.maxPerTenant <= 0 {
		return nil
	}
	var (
		n        int
		earliest *time.Time
	)
	if err := q.QueryRow(ctx, fmt.Sprintf(quotaCountSQL, s.ident), k.Tenant, now, s.maxPerTenant).Scan(&n, &earliest); err != nil {
		return fmt.Errorf("pgstore: claim: quota count: %w", err)
	}
	if n < s.maxPerTenant {
		return nil
	}
	var held bool
	err := q.QueryRow(ctx, fmt.Sprintf(quotaHeldSQL, s.ident), k.Tenant, k.Tool, k.Key).Scan(&held)
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
	return &idempotency.QuotaError{Limit: s.maxPerTenant, RetryAfter: retry}
}
