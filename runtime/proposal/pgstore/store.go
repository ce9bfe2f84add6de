// Package pgstore is the PostgreSQL proposal.Store: proposals survive
// restarts and are shared by every replica of a server, and each state
// change is a single conditional UPDATE so concurrent applies across
// processes still run a proposal once.
package pgstore

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
)

// DefaultTable is the table name unless WithTable says otherwise.
const DefaultTable = "mcpwrite_proposals"

//go:embed migrations/*.sql
var migrations embed.FS

// tableName keeps the name a plain lower-case identifier (no quoting or
// schema needed) short enough that "<table>_expires_idx" fits PostgreSQL's
// 63-byte limit; use search_path to place it in a schema.
var tableName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,47}$`)

// beginAttempts bounds BeginApply and Discard retries when the proposal
// changes between the conditional UPDATE and the read that explains it.
const beginAttempts = 3

// Option configures a Store.
type Option func(*Store)

// WithTable sets the table name (also the prefix of its indexes and of the
// cleanup function): a lower-case identifier of at most 48 bytes.
func WithTable(name string) Option {
	return func(s *Store) { s.table = name }
}

// WithRetention sets how long Cleanup keeps a proposal after its expiry (see
// proposal.DefaultRetention); d < 0 keeps the default.
func WithRetention(d time.Duration) Option {
	return func(s *Store) {
		if d >= 0 {
			s.retention = d
		}
	}
}

// WithApplyLease sets how long an apply may stay unfinished before a new
// BeginApply takes it over (d <= 0 keeps proposal.DefaultApplyLease).
func WithApplyLease(d time.Duration) Option {
	return func(s *Store) {
		if d > 0 {
			s.applyLease = d
		}
	}
}

// WithClock sets the clock Cleanup measures retention against; nil keeps
// time.Now. Lookups use their now argument.
func WithClock(now func() time.Time) Option {
	return func(s *Store) {
		if now != nil {
			s.clock = now
		}
	}
}

// Store is a proposal.Store on a PostgreSQL table. Run Migrate once at
// start-up and Cleanup periodically.
type Store struct {
	pool      *pgxpool.Pool
	table     string
	retention time.Duration
	// applyLease: an apply unfinished for this long may be begun again.
	applyLease time.Duration
	clock      func() time.Time
	quotas     proposal.Quotas // per tenant and principal (pg_proposal_quotas.go)
	err        error           // a configuration error, returned by every method

	qInsert, qGet, qBegin, qDiscard, qFinish, qAbort, qState, qCleanup string
}

var _ proposal.Store = (*Store)(nil)

const columns = `id, tenant, principal, tool, classification, summary, request,
	arguments, preview, created_at, expires_at, state, result, result_is_error,
	target, state_digest, state_summary, apply_started_at`

// New returns a Store on pool. A bad option (an invalid table name, a nil
// pool) does not panic: every method then returns the error.
func New(pool *pgxpool.Pool, opts ...Option) *Store {
	s := &Store{pool: pool, table: DefaultTable, retention: proposal.DefaultRetention, applyLease: proposal.DefaultApplyLease, clock: time.Now,
		quotas: proposal.Quotas{}.Resolved()}
	for _, o := range opts {
		if o != nil {
			o(s)
		}
	}
	switch {
	case !tableName.MatchString(s.table):
		s.err = fmt.Errorf("pgstore: invalid table name %q: want a lower-case identifier of at most 48 bytes", s.table)
	case pool == nil:
		s.err = errors.New("pgstore: nil pool")
	}
	t := s.table
	s.qInsert = `INSERT INTO ` + t + ` (id, tenant, principal, tool, classification, summary,
		request, arguments, preview, created_at, expires_at, state, target, state_digest, state_summary)
		VALUES ($1, $2, $3, $4, $5, $6, $7::bytea, $8::json, $9::json, $10, $11, 1, $12, $13, $14)`
	// A proposal is read and changed by its id, the primary key; its tenant
	// and principal are compared with IS NOT DISTINCT FROM (the same test:
	// neither is ever NULL), which no index answers, so that no plan reads
	// it by the owner index (tenant, principal) instead: on a table never
	// analysed that index looks as selective as the key, and a plan kept
	// from then on would read every proposal of the owner.
	s.qGet = `SELECT ` + columns + ` FROM ` + t + ` WHERE id = $1 AND (tenant, principal) IS NOT DISTINCT FROM ($2, $3)`
	s.qBegin = `UPDATE ` + t + ` SET state = 2, apply_started_at = $4
		WHERE id = $1 AND (tenant, principal) IS NOT DISTINCT FROM ($2, $3) AND expires_at > $4
		AND (state = 1 OR (state = 2 AND apply_started_at <= $5))
		RETURNING ` + columns
	s.qDiscard = `UPDATE ` + t + ` SET state = 4
		WHERE id = $1 AND (tenant, principal) IS NOT DISTINCT FROM ($2, $3) AND state = 1 AND expires_at > $4`
	s.qFinish = `UPDATE ` + t + ` SET state = 3, result = $2::bytea, result_is_error = $3, applied_at = now()
		WHERE id = $1 AND state = 2`
	s.qAbort = `UPDATE ` + t + ` SET state = 1 WHERE id = $1 AND state = 2`
	s.qState = `SELECT state FROM ` + t + ` WHERE id = $1`
	s.qCleanup = `SELECT ` + t + `_cleanup($1)`
	return s
}

// Migrate creates the table, its indexes and the cleanup function from the
// embedded migrations. It is idempotent and serialised by an advisory lock,
// so every replica may run it at start-up.
func (s *Store) Migrate(ctx context.Context) error {
	if s.err != nil {
		return s.err
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("pgstore: migrations: %w", err)
	}
	slices.Sort(names)
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("pgstore: migrate: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, "mcpwrite.proposal.migrate:"+s.table); err != nil {
		return fmt.Errorf("pgstore: migrate: lock: %w", err)
	}
	for _, name := range names {
		b, err := migrations.ReadFile(name)
		if err != nil {
			return fmt.Errorf("pgstore: migrate: %w", err)
		}
		// No arguments: pgx runs it with the simple protocol, which accepts
		// a multi-statement script.
		if _, err := tx.Exec(ctx, strings.ReplaceAll(string(b), DefaultTable, s.table)); err != nil {
			return fmt.Errorf("pgstore: migrate %s: %w", name, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("pgstore: migrate: %w", err)
	}
	return nil
}

// Cleanup deletes proposals whose expiry is at least the retention in the
// past, in any state, and returns how many it deleted.
func (s *Store) Cleanup(ctx context.Context) (int64, error) {
	if s.err != nil {
		return 0, s.err
	}
	var n int64
	cutoff := proposal.NormalizeTime(s.clock().Add(-s.retention))
	if err := s.pool.QueryRow(ctx, s.qCleanup, cutoff).Scan(&n); err != nil {
		return 0, fmt.Errorf("pgstore: cleanup: %w", err)
	}
	return n, nil
}

// Create stores p as pending. It fills p.ID with proposal.NewID when empty
// and sets p.State to StatePending. Errors: proposal.ErrInvalid,
// proposal.ErrDuplicate, a *proposal.QuotaError past the caller's tenant or
// principal quota (WithQuotas).
func (s *Store) Create(ctx context.Context, p *proposal.Proposal) error {
	if s.err != nil {
		return s.err
	}
	if err := p.Validate(); err != nil {
		return err
	}
	c := p.Clone()
	if c.ID == "" {
		c.ID = proposal.NewID()
	}
	if err := s.createWithinQuota(ctx, c, s.clock()); err != nil {
		return err
	}
	p.ID, p.State = c.ID, proposal.StatePending
	return nil
}

// Get returns the proposal in any state; an open proposal past its expiry
// answers proposal.ErrExpired.
func (s *Store) Get(ctx context.Context, id, tenant, principal string, now time.Time) (*proposal.Proposal, error) {
	if s.err != nil {
		return nil, s.err
	}
	p, err := s.get(ctx, id, tenant, principal)
	if err != nil {
		return nil, err
	}
	if p.Expired(orNow(now)) {
		return nil, proposal.ErrExpired
	}
	return p, nil
}

// BeginApply implements proposal.Store.BeginApply with one conditional
// UPDATE; only when it matches no row does a read tell which error applies.
func (s *Store) BeginApply(ctx context.Context, id, tenant, principal string, now time.Time) (*proposal.Proposal, error) {
	if s.err != nil {
		return nil, s.err
	}
	if !validKey(id, tenant, principal) {
		return nil, proposal.ErrNotFound
	}
	now = orNow(now)
	for range beginAttempts {
		p, err := scan(s.pool.QueryRow(ctx, s.qBegin, id, tenant, principal, proposal.NormalizeTime(now), proposal.NormalizeTime(now.Add(-s.applyLease))))
		if err == nil {
			return p, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("pgstore: begin apply: %w", err)
		}
		cur, err := s.get(ctx, id, tenant, principal)
		if err != nil {
			return nil, err
		}
		switch {
		case cur.State == proposal.StateApplied:
			return cur, nil
		case cur.State == proposal.StateDiscarded:
			return nil, proposal.ErrDiscarded
		case cur.Expired(now):
			return nil, proposal.ErrExpired
		case cur.State == proposal.StateApplying:
			return nil, proposal.ErrBusy
		}
		// Pending again (an abort raced the UPDATE): try once more.
	}
	return nil, proposal.ErrBusy
}

// FinishApply records the result of an apply begun with BeginApply.
// Errors: proposal.ErrNotFound, proposal.ErrNotApplying.
func (s *Store) FinishApply(ctx context.Context, id string, result []byte, isError bool) error {
	if s.err != nil {
		return s.err
	}
	if len(result) == 0 {
		result = nil
	}
	return s.transition(ctx, "finish apply", s.qFinish, id, result, isError)
}

// AbortApply returns an applying proposal to pending.
// Errors: proposal.ErrNotFound, proposal.ErrNotApplying.
func (s *Store) AbortApply(ctx context.Context, id string) error {
	if s.err != nil {
		return s.err
	}
	return s.transition(ctx, "abort apply", s.qAbort, id)
}

// Discard moves a pending proposal to discarded; discarding a discarded
// proposal succeeds. Errors: proposal.ErrNotFound, proposal.ErrExpired,
// proposal.ErrBusy, proposal.ErrApplied.
func (s *Store) Discard(ctx context.Context, id, tenant, principal string, now time.Time) error {
	if s.err != nil {
		return s.err
	}
	if !validKey(id, tenant, principal) {
		return proposal.ErrNotFound
	}
	now = orNow(now)
	for range beginAttempts {
		tag, err := s.pool.Exec(ctx, s.qDiscard, id, tenant, principal, proposal.NormalizeTime(now))
		if err != nil {
			return fmt.Errorf("pgstore: discard: %w", err)
		}
		if tag.RowsAffected() == 1 {
			return nil
		}
		cur, err := s.get(ctx, id, tenant, principal)
		if err != nil {
			return err
		}
		switch {
		case cur.State == proposal.StateDiscarded:
			return nil
		case cur.State == proposal.StateApplied:
			return proposal.ErrApplied
		case cur.Expired(now):
			return proposal.ErrExpired
		case cur.State == proposal.StateApplying:
			return proposal.ErrBusy
		}
	}
	return proposal.ErrBusy
}

// transition runs an UPDATE keyed by id that requires StateApplying and
// explains a miss as ErrNotFound or ErrNotApplying.
func (s *Store) transition(ctx context.Context, op, query, id string, args ...any) error {
	if !proposal.ValidText(id) {
		return proposal.ErrNotFound
	}
	tag, err := s.pool.Exec(ctx, query, append([]any{id}, args...)...)
	if err != nil {
		return fmt.Errorf("pgstore: %s: %w", op, err)
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	var state int16
	if err := s.pool.QueryRow(ctx, s.qState, id).Scan(&state); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return proposal.ErrNotFound
		}
		return fmt.Errorf("pgstore: %s: %w", op, err)
	}
	return proposal.ErrNotApplying
}

func (s *Store) get(ctx context.Context, id, tenant, principal string) (*proposal.Proposal, error) {
	if !validKey(id, tenant, principal) {
		return nil, proposal.ErrNotFound
	}
	p, err := scan(s.pool.QueryRow(ctx, s.qGet, id, tenant, principal))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, proposal.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("pgstore: get: %w", err)
	}
	return p, nil
}

func scan(row pgx.Row) (*proposal.Proposal, error) {
	var (
		p           proposal.Proposal
		args, prev  []byte
		state       int16
		createdAt   time.Time
		expiresAt   time.Time
		request, rs []byte
		started     *time.Time
	)
	if err := row.Scan(&p.ID, &p.Tenant, &p.Principal, &p.Tool, &p.Classification, &p.Summary,
		&request, &args, &prev, &createdAt, &expiresAt, &state, &rs, &p.ResultIsError,
		&p.Target, &p.StateDigest, &p.StateSummary, &started); err != nil {
		return nil, err
	}
	if started != nil {
		p.ApplyStartedAt = *started
	}
	p.Request, p.Arguments, p.Preview, p.Result = request, args, prev, rs
	p.CreatedAt, p.ExpiresAt, p.State = createdAt, expiresAt, proposal.State(state)
	return p.Clone(), nil
}

// jsonArg passes JSON as text (NULL when empty): a []byte would be sent as
// bytea by pools in simple-protocol or exec mode (e.g. behind PgBouncer),
// and the json column would reject it.
func jsonArg(b json.RawMessage) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}

// validKey rejects lookups PostgreSQL text cannot even represent; such a
// proposal cannot exist, so the answer is ErrNotFound, not a driver error.
func validKey(id, tenant, principal string) bool {
	return proposal.ValidText(id) && proposal.ValidText(tenant) && proposal.ValidText(principal)
}

// orNow replaces a zero now (a caller bug) with the wall clock, so a missing
// time never makes an expired proposal look live.
func orNow(now time.Time) time.Time {
	if now.IsZero() {
		return time.Now()
	}
	return now
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
