// Package pgstore is the authoritative idempotency.Store on PostgreSQL: a
// table keyed by (tenant, tool, client key) that survives restarts and is
// shared by every adapter instance. Claim and Complete are one statement
// (one round trip) each; TxStore joins a caller's transaction so that the
// domain write and the key commit together.
package pgstore

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
)

// DefaultTable is the table the store uses unless WithTable says otherwise.
const DefaultTable = "mcpwrite_idempotency_keys"

// MigrationSQL is the shipped schema (for the default table), for users who
// apply migrations with their own tool instead of Migrate: the migrations
// in order, each idempotent, so applying it again upgrades a database made
// by an earlier release.
var MigrationSQL = migration001 + "\n" + migration002

//go:embed migrations/001_idempotency.sql
var migration001 string

//go:embed migrations/002_reserve.sql
var migration002 string

// sharedMarker separates the per-table part of MigrationSQL from the
// functions shared by every table.
const sharedMarker = "-- shared functions --"

// claimRetries bounds how often Claim re-runs when a concurrent commit hides
// the conflicting row from its snapshot (each retry takes a fresh snapshot).
const claimRetries = 5

var identRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,47}$`)

// Store is an idempotency.Store on a pgx pool.
type Store struct {
	pool     *pgxpool.Pool
	schema   string // "" = search_path
	table    string
	ident    string // quoted, possibly schema-qualified
	err      error  // invalid options, returned by every method
	claimSQL string
	doneSQL  string
	relSQL   string
	getSQL   string
	// completeWith caches QueueCompleteWith's statements (queue.go).
	completeWith sync.Map
	// maxPerTenant bounds a tenant's live records (pg_record_quota.go); 0: none.
	maxPerTenant int
}

// Option configures New.
type Option func(*Store)

// WithTable sets the table, "name" or "schema.name" (letters, digits and _,
// at most 48 characters each so derived index names fit PostgreSQL's limit).
func WithTable(name string) Option {
	return func(s *Store) {
		schema, table, ok := strings.Cut(name, ".")
		if !ok {
			schema, table = "", name
		}
		if (ok && !identRe.MatchString(schema)) || !identRe.MatchString(table) {
			s.err = fmt.Errorf("pgstore: invalid table name %q: want name or schema.name of letters, digits and _ (at most 48 each)", name)
			return
		}
		s.schema, s.table = schema, table
	}
}

// New returns a Store on pool. An invalid option makes every method return
// its error.
func New(pool *pgxpool.Pool, opts ...Option) *Store {
	s := &Store{pool: pool, table: DefaultTable}
	for _, o := range opts {
		o(s)
	}
	if s.schema != "" {
		s.ident = pgx.Identifier{s.schema, s.table}.Sanitize()
	} else {
		s.ident = pgx.Identifier{s.table}.Sanitize()
	}
	s.claimSQL = fmt.Sprintf(claimSQL, s.ident)
	s.doneSQL = fmt.Sprintf(completeSQL, s.ident)
	s.relSQL = fmt.Sprintf(releaseSQL, s.ident)
	s.getSQL = fmt.Sprintf(getSQL, s.ident)
	return s
}

var (
	_ idempotency.Store           = (*Store)(nil)
	_ idempotency.RecordCompleter = (*Store)(nil)
	_ idempotency.Store           = (*TxStore)(nil)
	_ idempotency.RecordCompleter = (*TxStore)(nil)
)

// Table returns the quoted, possibly schema-qualified table name.
func (s *Store) Table() string { return s.ident }

// MigrationFor returns MigrationSQL for the store's table.
func (s *Store) MigrationFor() (string, error) {
	if s.err != nil {
		return "", s.err
	}
	tablePart, shared, _ := strings.Cut(migration001, sharedMarker)
	r := strings.NewReplacer(
		DefaultTable+"_expires_at_idx", pgx.Identifier{s.table + "_expires_at_idx"}.Sanitize(),
		DefaultTable, s.ident,
	)
	return r.Replace(tablePart) + sharedMarker + shared + "\n" + migration002, nil
}

// Migrate creates the table, its expiry index and the functions (clean-up,
// and the key reservation of reserve.go) if they are missing, and brings
// those of an earlier release up to date. Concurrent Migrate calls (several instances starting)
// are serialised by an advisory lock.
func (s *Store) Migrate(ctx context.Context) error {
	sql, err := s.MigrationFor()
	if err != nil {
		return err
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('mcpwrite_idempotency_migrate'))"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, sql, pgx.QueryExecModeSimpleProtocol)
		return err
	})
	if err != nil {
		return fmt.Errorf("pgstore: migrate %s: %w", s.ident, err)
	}
	return nil
}

// Cleanup deletes expired rows (by the database clock) through
// mcpwrite_idempotency_cleanup and returns how many it deleted.
func (s *Store) Cleanup(ctx context.Context) (int64, error) {
	if s.err != nil {
		return 0, s.err
	}
	var n int64
	if err := s.pool.QueryRow(ctx, "SELECT mcpwrite_idempotency_cleanup($1)", s.ident).Scan(&n); err != nil {
		return 0, fmt.Errorf("pgstore: cleanup %s: %w", s.ident, err)
	}
	return n, nil
}

// WithTx returns the store's operations inside tx. Complete through it makes
// the key commit or roll back with the domain write done in the same tx.
func (s *Store) WithTx(tx pgx.Tx) *TxStore { return &TxStore{s: s, q: tx} }

// TxStore is a Store bound to a caller's transaction. The usual flow claims
// through Store (so concurrent requests see the claim at once), then runs the
// domain write and TxStore.Complete in one transaction: on commit both are
// durable, on rollback neither is and the claim stays in progress until its
// lease ends or Release. A Claim through TxStore is invisible to others until
// commit; concurrent claims of the same key wait for it.
type TxStore struct {
	s *Store
	q querier
}

// Claim implements idempotency.Store.
func (s *Store) Claim(ctx context.Context, k idempotency.Key, fingerprint string, now time.Time, lease time.Duration) (idempotency.ClaimResult, error) {
	return s.claim(ctx, s.pool, k, fingerprint, now, lease)
}

// Complete implements idempotency.Store.
func (s *Store) Complete(ctx context.Context, k idempotency.Key, fingerprint string, response []byte, isError bool, now time.Time, ttl time.Duration) error {
	_, err := s.complete(ctx, s.pool, k, fingerprint, response, isError, now, ttl)
	return err
}

// CompleteRecord implements idempotency.RecordCompleter.
func (s *Store) CompleteRecord(ctx context.Context, k idempotency.Key, fingerprint string, response []byte, isError bool, now time.Time, ttl time.Duration) (*idempotency.Record, error) {
	return s.complete(ctx, s.pool, k, fingerprint, response, isError, now, ttl)
}

// Release implements idempotency.Store.
func (s *Store) Release(ctx context.Context, k idempotency.Key, fingerprint string) error {
	return s.release(ctx, s.pool, k, fingerprint)
}

// Get implements idempotency.Store.
func (s *Store) Get(ctx context.Context, k idempotency.Key, now time.Time) (*idempotency.Record, error) {
	return s.get(ctx, s.pool, k, now)
}

// Claim implements idempotency.Store inside the transaction.
func (t *TxStore) Claim(ctx context.Context, k idempotency.Key, fingerprint string, now time.Time, lease time.Duration) (idempotency.ClaimResult, error) {
	return t.s.claim(ctx, t.q, k, fingerprint, now, lease)
}

// Complete implements idempotency.Store inside the transaction; on
// idempotency.ErrClaimLost the caller must roll back.
func (t *TxStore) Complete(ctx context.Context, k idempotency.Key, fingerprint string, response []byte, isError bool, now time.Time, ttl time.Duration) error {
	_, err := t.s.complete(ctx, t.q, k, fingerprint, response, isError, now, ttl)
	return err
}

// CompleteRecord implements idempotency.RecordCompleter inside the transaction.
func (t *TxStore) CompleteRecord(ctx context.Context, k idempotency.Key, fingerprint string, response []byte, isError bool, now time.Time, ttl time.Duration) (*idempotency.Record, error) {
	return t.s.complete(ctx, t.q, k, fingerprint, response, isError, now, ttl)
}

// Release implements idempotency.Store inside the transaction.
func (t *TxStore) Release(ctx context.Context, k idempotency.Key, fingerprint string) error {
	return t.s.release(ctx, t.q, k, fingerprint)
}

// Get implements idempotency.Store inside the transaction.
func (t *TxStore) Get(ctx context.Context, k idempotency.Key, now time.Time) (*idempotency.Record, error) {
	return t.s.get(ctx, t.q, k, now)
}

// claimSQL inserts the claim, or takes over a row that is no longer live
// (expired, or in progress past its lease). When a live row prevents the
// claim, the second branch returns it; the statement's snapshot can miss a
// row committed concurrently, which Claim handles by running again.
const claimSQL = `WITH claimed AS (
  INSERT INTO %[1]s AS cur (tenant_id, tool, client_request_id, fingerprint, state, response_payload, is_error, created_at, lease_until, expires_at)
  VALUES ($1, $2, $3, $4, 1, NULL, false, $5::timestamptz, $6::timestamptz, $6::timestamptz)
  ON CONFLICT (tenant_id, tool, client_request_id) DO UPDATE
    SET fingerprint = EXCLUDED.fingerprint, state = 1, response_payload = NULL, is_error = false,
        created_at = EXCLUDED.created_at, lease_until = EXCLUDED.lease_until, expires_at = EXCLUDED.expires_at
    WHERE cur.expires_at <= EXCLUDED.created_at
  RETURNING 1
)
SELECT true, NULL::text, NULL::smallint, NULL::bytea, NULL::boolean, NULL::timestamptz, NULL::timestamptz, NULL::timestamptz FROM claimed
UNION ALL
SELECT false, fingerprint, state, response_payload, is_error, created_at, lease_until, expires_at FROM %[1]s
 WHERE tenant_id = $1 AND tool = $2 AND client_request_id = $3 AND NOT EXISTS (SELECT 1 FROM claimed)`

// completeSQL stores the response when the key is ours: our in-progress
// claim (even past its lease, if nobody took it over), or no live row.
const completeSQL = `INSERT INTO %[1]s AS cur (tenant_id, tool, client_request_id, fingerprint, state, response_payload, is_error, created_at, lease_until, expires_at)
VALUES ($1, $2, $3, $4, 2, $5, $6, $7, NULL, $8)
ON CONFLICT (tenant_id, tool, client_request_id) DO UPDATE
  SET fingerprint = EXCLUDED.fingerprint, state = 2, response_payload = EXCLUDED.response_payload, is_error = EXCLUDED.is_error,
      created_at = CASE WHEN cur.state = 1 AND cur.fingerprint = EXCLUDED.fingerprint THEN cur.created_at ELSE EXCLUDED.created_at END,
      lease_until = NULL, expires_at = EXCLUDED.expires_at
  WHERE (cur.state = 1 AND cur.fingerprint = EXCLUDED.fingerprint) OR cur.expires_at <= EXCLUDED.created_at
RETURNING created_at`

// completeOrLostSQL is completeSQL failing with lostCode
// (mcpwrite_idempotency_lost) when the key is not ours, instead of
// answering no row: the row it conflicts with is updated or the statement
// fails, so that a statement it is part of (QueueCompleteWith) needs no
// check of its own.
const completeOrLostSQL = `INSERT INTO %[1]s AS cur (tenant_id, tool, client_request_id, fingerprint, state, response_payload, is_error, created_at, lease_until, expires_at)
VALUES ($1, $2, $3, $4, 2, $5, $6, $7, NULL, $8)
ON CONFLICT (tenant_id, tool, client_request_id) DO UPDATE
  SET fingerprint = EXCLUDED.fingerprint, state = 2, response_payload = EXCLUDED.response_payload, is_error = EXCLUDED.is_error,
      created_at = CASE WHEN cur.state = 1 AND cur.fingerprint = EXCLUDED.fingerprint THEN cur.created_at ELSE EXCLUDED.created_at END,
      lease_until = NULL,
      expires_at = CASE WHEN (cur.state = 1 AND cur.fingerprint = EXCLUDED.fingerprint) OR cur.expires_at <= EXCLUDED.created_at
        THEN EXCLUDED.expires_at ELSE mcpwrite_idempotency_lost($2, $3) END
RETURNING created_at`

// completeNewSQL is completeOrLostSQL for a key whose record was not read
// (QueueCompleteUnread): it writes the outcome where no record holds the
// key or the record has expired, and fails with lostCode where a live one
// holds it, in progress or completed, whatever its fingerprint.
const completeNewSQL = `INSERT INTO %[1]s AS cur (tenant_id, tool, client_request_id, fingerprint, state, response_payload, is_error, created_at, lease_until, expires_at)
VALUES ($1, $2, $3, $4, 2, $5, $6, $7, NULL, $8)
ON CONFLICT (tenant_id, tool, client_request_id) DO UPDATE
  SET fingerprint = EXCLUDED.fingerprint, state = 2, response_payload = EXCLUDED.response_payload, is_error = EXCLUDED.is_error,
      created_at = EXCLUDED.created_at, lease_until = NULL,
      expires_at = CASE WHEN cur.expires_at <= EXCLUDED.created_at THEN EXCLUDED.expires_at ELSE mcpwrite_idempotency_lost($2, $3) END
RETURNING created_at`

const releaseSQL = `DELETE FROM %[1]s WHERE tenant_id = $1 AND tool = $2 AND client_request_id = $3 AND state = 1 AND fingerprint = $4`

const getSQL = `SELECT fingerprint, state, response_payload, is_error, created_at, lease_until, expires_at FROM %[1]s
 WHERE tenant_id = $1 AND tool = $2 AND client_request_id = $3 AND expires_at > $4`

func (s *Store) claim(ctx context.Context, q querier, k idempotency.Key, fingerprint string, now time.Time, lease time.Duration) (idempotency.ClaimResult, error) {
	if s.err != nil {
		return idempotency.ClaimResult{}, s.err
	}
	now = idempotency.TruncateTime(now)
	until := idempotency.TruncateTime(now.Add(lease))
	if err := checkQuota(ctx, q, s.ident, s.maxPerTenant, k, now); err != nil {
		return idempotency.ClaimResult{}, err
	}
	for range claimRetries {
		var (
			claimed bool
			r       row
		)
		err := q.QueryRow(ctx, s.claimSQL, k.Tenant, k.Tool, k.Key, fingerprint, now, until).
			Scan(&claimed, &r.fingerprint, &r.state, &r.response, &r.isError, &r.created, &r.lease, &r.expires)
		if errors.Is(err, pgx.ErrNoRows) {
			continue // the conflicting row was committed after our snapshot
		}
		if err != nil {
			return idempotency.ClaimResult{}, fmt.Errorf("pgstore: claim: %w", err)
		}
		if claimed {
			return idempotency.ClaimResult{Claimed: true}, nil
		}
		rec, err := r.record(k)
		if err != nil {
			return idempotency.ClaimResult{}, err
		}
		if !rec.Live(now) {
			continue // our snapshot saw an older version than the one that won
		}
		return idempotency.ClaimResult{Existing: rec}, nil
	}
	return idempotency.ClaimResult{}, fmt.Errorf("pgstore: claim: key still contended after %d attempts", claimRetries)
}

func (s *Store) complete(ctx context.Context, q querier, k idempotency.Key, fingerprint string, response []byte, isError bool, now time.Time, ttl time.Duration) (*idempotency.Record, error) {
	if s.err != nil {
		return nil, s.err
	}
	now = idempotency.TruncateTime(now)
	expires := idempotency.TruncateTime(now.Add(ttl))
	if response == nil {
		response = []byte{} // NULL marks an in-progress row
	}
	var created time.Time
	err := q.QueryRow(ctx, s.doneSQL, k.Tenant, k.Tool, k.Key, fingerprint, response, isError, now, expires).Scan(&created)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, idempotency.ErrClaimLost
	}
	if err != nil {
		return nil, fmt.Errorf("pgstore: complete: %w", err)
	}
	return &idempotency.Record{
		Key: k, Fingerprint: fingerprint, State: idempotency.StateCompleted,
		Response: append([]byte(nil), response...), IsError: isError,
		CreatedAt: created.UTC(), ExpiresAt: expires,
	}, nil
}

func (s *Store) release(ctx context.Context, q querier, k idempotency.Key, fingerprint string) error {
	if s.err != nil {
		return s.err
	}
	if _, err := q.Exec(ctx, s.relSQL, k.Tenant, k.Tool, k.Key, fingerprint); err != nil {
		return fmt.Errorf("pgstore: release: %w", err)
	}
	return nil
}

func (s *Store) get(ctx context.Context, q querier, k idempotency.Key, now time.Time) (*idempotency.Record, error) {
	if s.err != nil {
		return nil, s.err
	}
	var r row
	err := q.QueryRow(ctx, s.getSQL, k.Tenant, k.Tool, k.Key, idempotency.TruncateTime(now)).
		Scan(&r.fingerprint, &r.state, &r.response, &r.isError, &r.created, &r.lease, &r.expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, idempotency.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("pgstore: get: %w", err)
	}
	return r.record(k)
}

// row is a scanned table row; pointers are NULL-able columns.
type row struct {
	fingerprint *string
	state       *int16
	response    []byte
	isError     *bool
	created     *time.Time
	lease       *time.Time
	expires     *time.Time
}

func (r *row) record(k idempotency.Key) (*idempotency.Record, error) {
	if r.fingerprint == nil || r.state == nil || r.isError == nil || r.created == nil || r.expires == nil {
		return nil, errors.New("pgstore: row has NULL in a required column")
	}
	rec := &idempotency.Record{
		Key: k, Fingerprint: *r.fingerprint, IsError: *r.isError,
		CreatedAt: r.created.UTC(), ExpiresAt: r.expires.UTC(),
	}
	switch *r.state {
	case 1:
		rec.State = idempotency.StateInProgress
		if r.lease != nil {
			rec.LeaseUntil = r.lease.UTC()
		}
	case 2:
		rec.State = idempotency.StateCompleted
		rec.Response = r.response
		if rec.Response == nil {
			rec.Response = []byte{}
		}
	default:
		return nil, fmt.Errorf("pgstore: row has unknown state %d", *r.state)
	}
	return rec, nil
}

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
