package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
)

// WithQuotas sets the per-tenant and per-principal quotas of open (pending
// or applying, unexpired) proposals; zero fields keep
// proposal.DefaultMaxPendingPerTenant and
// proposal.DefaultMaxPendingPerPrincipal. Every replica sharing the table
// must use the same quotas.
func WithQuotas(q proposal.Quotas) Option {
	return func(s *Store) { s.quotas = q.Resolved() }
}

// quotaQueries are the statements of createWithinQuota.
func (s *Store) quotaQueries() (lock, count string) {
	t := s.table
	return `SELECT pg_advisory_xact_lock(hashtext($1))`,
		`SELECT count(*), count(*) FILTER (WHERE principal = $2),
			min(expires_at), min(expires_at) FILTER (WHERE principal = $2)
		FROM ` + t + ` WHERE tenant = $1 AND state IN (1, 2) AND expires_at > $3`
}

// createWithinQuota inserts c in one transaction that holds the tenant's
// advisory lock while it counts the tenant's and the principal's open
// proposals, so concurrent creates across replicas never exceed a quota.
func (s *Store) createWithinQuota(ctx context.Context, c *proposal.Proposal, now time.Time) error {
	lock, count := s.quotaQueries()
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("pgstore: create: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, lock, "mcpwrite.proposal.quota:"+s.table+":"+c.Tenant); err != nil {
		return fmt.Errorf("pgstore: create: quota lock: %w", err)
	}
	var (
		inTenant, ofPrincipal   int
		tenantMin, principalMin *time.Time
	)
	if err := tx.QueryRow(ctx, count, c.Tenant, c.Principal, proposal.NormalizeTime(now)).
		Scan(&inTenant, &ofPrincipal, &tenantMin, &principalMin); err != nil {
		return fmt.Errorf("pgstore: create: quota count: %w", err)
	}
	switch {
	case ofPrincipal >= s.quotas.PerPrincipal:
		return &proposal.QuotaError{Scope: proposal.ScopePrincipal, Limit: s.quotas.PerPrincipal, RetryAfter: wait(principalMin, now)}
	case inTenant >= s.quotas.PerTenant:
		return &proposal.QuotaError{Scope: proposal.ScopeTenant, Limit: s.quotas.PerTenant, RetryAfter: wait(tenantMin, now)}
	}
	if _, err := tx.Exec(ctx, s.qInsert, c.ID, c.Tenant, c.Principal, c.Tool, c.Classification,
		c.Summary, c.Request, jsonArg(c.Arguments), jsonArg(c.Preview), c.CreatedAt, c.ExpiresAt,
		c.Target, c.StateDigest, c.StateSummary); err != nil {
		if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok && pgErr.Code == "23505" {
			return proposal.ErrDuplicate
		}
		return fmt.Errorf("pgstore: create: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("pgstore: create: commit: %w", err)
	}
	return nil
}

// wait is how long until expires (at least a second).
func wait(expires *time.Time, now time.Time) time.Duration {
	if expires == nil {
		return time.Second
	}
	d := expires.Sub(now).Round(time.Second)
	return max(d, time.Second)
}
