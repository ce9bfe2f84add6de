package pgstore

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
)

// The statements a caller queues on its own batch (pgx.Batch), to send them
// in its transaction in one round trip with its own reads or writes.

// QueueComplete queues Complete on b, so a caller sends its write and the
// outcome in one round trip: b must be sent in the transaction, and the
// queued statement's error (idempotency.ErrClaimLost when the key is not
// ours; the caller must roll back) is returned when the batch results are
// read or closed. The error returned at once is the store's invalid
// options; nothing is queued then.
func (t *TxStore) QueueComplete(b *pgx.Batch, k idempotency.Key, fingerprint string, response []byte, isError bool, now time.Time, ttl time.Duration) error {
	s := t.s
	if s.err != nil {
		return s.err
	}
	now = idempotency.TruncateTime(now)
	expires := idempotency.TruncateTime(now.Add(ttl))
	if response == nil {
		response = []byte{} // NULL marks an in-progress row
	}
	b.Queue(s.doneSQL, k.Tenant, k.Tool, k.Key, fingerprint, response, isError, now, expires).QueryRow(func(row pgx.Row) error {
		var created time.Time
		err := row.Scan(&created)
		if errors.Is(err, pgx.ErrNoRows) {
			return idempotency.ErrClaimLost
		}
		if err != nil {
			return fmt.Errorf("pgstore: complete: %w", err)
		}
		return nil
	})
	return nil
}

// PendingClaim is one attempt of a claim queued on a caller's batch
// (QueueClaim); Read reads its result.
type PendingClaim struct {
	k   idempotency.Key
	now time.Time
	// reserve: queued by QueueReserve, which reads the key's live row only.
	reserve bool
}

// QueueClaim queues one attempt of Claim on b, so a caller sends the claim
// and the reads that follow it in one round trip: b must be sent in the
// transaction, and the claim's result read first, with Read. ok is false,
// and nothing is queued, when the claim needs a query of its own before it
// (a per-tenant quota) or the store's options are invalid: the caller
// claims with Claim then.
func (t *TxStore) QueueClaim(b *pgx.Batch, k idempotency.Key, fingerprint string, now time.Time, lease time.Duration) (p *PendingClaim, ok bool) {
	s := t.s
	if s.err != nil || s.maxPerTenant > 0 {
		return nil, false
	}
	now = idempotency.TruncateTime(now)
	until := idempotency.TruncateTime(now.Add(lease))
	b.Queue(s.claimSQL, k.Tenant, k.Tool, k.Key, fingerprint, now, until)
	return &PendingClaim{k: k, now: now}, true
}

// Read reads the queued attempt's result, the next one of br. settled is
// false when the attempt lost a race to a concurrent commit of the same
// key (Claim retries then): the caller claims again with Claim, in the same
// transaction, once it has read or closed br.
func (p *PendingClaim) Read(br pgx.BatchResults) (res idempotency.ClaimResult, settled bool, err error) {
	if p.reserve {
		return p.readReserve(br)
	}
	var (
		claimed bool
		r       row
	)
	err = br.QueryRow().Scan(&claimed, &r.fingerprint, &r.state, &r.response, &r.isError, &r.created, &r.lease, &r.expires)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return res, false, nil // the conflicting row was committed after our snapshot
	case err != nil:
		return res, false, fmt.Errorf("pgstore: claim: %w", err)
	case claimed:
		return idempotency.ClaimResult{Claimed: true}, true, nil
	}
	rec, err := r.record(p.k)
	if err != nil {
		return res, false, err
	}
	if !rec.Live(p.now) {
		return res, false, nil // our snapshot saw an older version than the one that won
	}
	return idempotency.ClaimResult{Existing: rec}, true, nil
}

// A key reserved in a transaction (migration 002): instead of an
// in-progress row inserted by the claim and updated by the completion, the
// transaction takes an advisory lock on the key and reads its live row
// (QueueReserve), then writes the outcome once, already completed, with its
// last write (QueueCompleteWith). Calls of the same key are serialised by
// the lock; a crash or a lost connection ends the transaction and so the
// lock: nothing is left in progress.

// reserveSQL reserves a key of the table $1 (migration 002).
const reserveSQL = `SELECT fingerprint, state, response_payload, is_error, created_at, lease_until, expires_at FROM mcpwrite_idempotency_reserve($1::regclass, $2, $3, $4, $5)`

// lostCode is the SQLSTATE mcpwrite_idempotency_lost raises.
const lostCode = "MWK01"

// QueueReserve queues the reservation of k on b: b must be sent in the
// transaction, and the result read first, with Read, which answers Claimed
// when no live record holds k (the key is then the transaction's until it
// ends: record the outcome in it with QueueCompleteWith, Complete or
// QueueComplete before the commit) or the record that holds it. A second
// transaction reserving k waits until the first ends, then reads what it
// committed. A record claimed outside a transaction (Claim) is found like
// any other: in progress until its lease ends, then taken over. ok is
// false, and nothing is queued, when the store counts a per-tenant quota
// (the caller claims with Claim then) or its options are invalid.
func (t *TxStore) QueueReserve(b *pgx.Batch, k idempotency.Key, now time.Time) (p *PendingClaim, ok bool) {
	s := t.s
	if s.err != nil || s.maxPerTenant > 0 {
		return nil, false
	}
	now = idempotency.TruncateTime(now)
	b.Queue(reserveSQL, s.ident, k.Tenant, k.Tool, k.Key, now)
	return &PendingClaim{k: k, now: now, reserve: true}, true
}

// ReserveLock is QueueReserve's lock for a caller that takes it inside a
// statement of its own: a boolean SQL expression (true) that takes the
// transaction-scoped advisory lock of a key, the same lock as
// QueueReserve's (a reservation made either way waits for one made the
// other way), its parameters numbered from $first; ReserveLockArgs gives
// their values for a key. The caller then reads the key's live record with
// QueueReserved in a later statement of the same transaction: that
// statement's snapshot is taken after the lock was granted, so it sees
// what a concurrent call of the key committed. ok is false, as for
// QueueReserve, when the store counts a per-tenant quota or its options
// are invalid (the caller claims with Claim then).
//
// Put in the WHERE clause of a SELECT as "WHERE (SELECT <expr>)", it is
// evaluated once, before any row of the statement is read (a one-time
// filter): the lock is taken first even when the statement reads no row.
func (s *Store) ReserveLock(first int) (expr string, ok bool) {
	if s.err != nil || s.maxPerTenant > 0 {
		return "", false
	}
	p := func(i int) string { return "$" + strconv.Itoa(first+i) }
	return "true FROM pg_advisory_xact_lock(hashtextextended(concat_ws(':', " + p(0) + "::regclass::oid, length(" + p(1) + "::text), " +
		p(1) + "::text, length(" + p(2) + "::text), " + p(2) + "::text, " + p(3) + "::text), 0))", true
}

// ReserveLockArgs are the values of ReserveLock's parameters for k.
func (s *Store) ReserveLockArgs(k idempotency.Key) []any {
	return []any{s.ident, k.Tenant, k.Tool, k.Key}
}

// QueueReserved queues the read of k's live record on b, for a transaction
// that took k's lock (ReserveLock) in an earlier statement: Read answers as
// for QueueReserve (Claimed when no live record holds k, else the record
// that holds it), and the outcome is recorded as after QueueReserve.
func (t *TxStore) QueueReserved(b *pgx.Batch, k idempotency.Key, now time.Time) *PendingClaim {
	now = idempotency.TruncateTime(now)
	b.Queue(t.s.getSQL, k.Tenant, k.Tool, k.Key, now)
	return &PendingClaim{k: k, now: now, reserve: true}
}

// readReserve reads a queued reservation: always settled, since the row
// was read after the lock was granted.
func (p *PendingClaim) readReserve(br pgx.BatchResults) (idempotency.ClaimResult, bool, error) {
	var r row
	err := br.QueryRow().Scan(&r.fingerprint, &r.state, &r.response, &r.isError, &r.created, &r.lease, &r.expires)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return idempotency.ClaimResult{Claimed: true}, true, nil
	case err != nil:
		return idempotency.ClaimResult{}, false, fmt.Errorf("pgstore: reserve: %w", err)
	}
	rec, err := r.record(p.k)
	if err != nil {
		return idempotency.ClaimResult{}, false, err
	}
	return idempotency.ClaimResult{Existing: rec}, true, nil
}

// QueueCompleteWith queues Complete on b as one statement together with
// stmt, a data-modifying statement of the caller (an INSERT, UPDATE or
// DELETE without RETURNING, its parameters $1.. taken from args): both
// happen or neither does. stmt may begin with a WITH list of more
// data-modifying statements ("WITH a AS (INSERT ...) INSERT ..."), which
// join the statement's own: a caller writes several rows in the one
// statement (they share its snapshot, so none of them may read what
// another writes). b must be sent in the transaction that holds the
// key (QueueReserve or a claim). When the key is no longer ours the
// statement fails, so that a commit queued after it on b does not run
// (the transaction is then aborted and must be rolled back), and reading
// its result gives idempotency.ErrClaimLost. The error returned at once is
// the store's invalid options; nothing is queued then. The statement's
// arguments are args followed by the completion's, appended to args as
// append does (in its spare capacity when it has room for the eight).
func (t *TxStore) QueueCompleteWith(b *pgx.Batch, stmt string, args []any, k idempotency.Key, fingerprint string, response []byte, isError bool, now time.Time, ttl time.Duration) error {
	return t.queueComplete(b, stmt, args, k, fingerprint, response, isError, now, ttl, false)
}

// QueueCompleteUnread is QueueCompleteWith for a transaction that took k's
// lock (ReserveLock) in an earlier statement and did not read k's record:
// a write that expects its key to be new sends its lock, its rows and its
// outcome in one round trip. The outcome is written only where no live
// record holds k (there is none, or it has expired). Where one does (a
// call of k that completed, or one in progress, whatever its fingerprint
// or lease), the statement fails, so that a commit queued after it on b
// does not run, and reading its result gives idempotency.ErrClaimLost:
// the caller rolls back and reserves k the usual way (QueueReserve or
// ReserveLock and QueueReserved), which answers who holds it.
func (t *TxStore) QueueCompleteUnread(b *pgx.Batch, stmt string, args []any, k idempotency.Key, fingerprint string, response []byte, isError bool, now time.Time, ttl time.Duration) error {
	return t.queueComplete(b, stmt, args, k, fingerprint, response, isError, now, ttl, true)
}

// queueComplete is QueueCompleteWith, or QueueCompleteUnread when unread
// is set.
func (t *TxStore) queueComplete(b *pgx.Batch, stmt string, args []any, k idempotency.Key, fingerprint string, response []byte, isError bool, now time.Time, ttl time.Duration, unread bool) error {
	s := t.s
	if s.err != nil {
		return s.err
	}
	now = idempotency.TruncateTime(now)
	expires := idempotency.TruncateTime(now.Add(ttl))
	if response == nil {
		response = []byte{} // NULL marks an in-progress row
	}
	n := len(args)
	all := append(args, k.Tenant, k.Tool, k.Key, fingerprint, response, isError, now, expires)
	b.Queue(s.completeWithSQL(stmt, n, unread), all...).QueryRow(func(row pgx.Row) error {
		var created time.Time
		err := row.Scan(&created)
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == lostCode {
			return idempotency.ErrClaimLost
		}
		if err != nil {
			return fmt.Errorf("pgstore: complete: %w", err)
		}
		return nil
	})
	return nil
}

// completeWithKey keys Store.completeWith: the statements of
// QueueCompleteWith by the caller's statement and its number of parameters.
type completeWithKey struct {
	stmt   string
	n      int
	unread bool
}

var paramRE = regexp.MustCompile(`\$([0-9]+)`)

// completeWithSQL is stmt and completeOrLostSQL (its parameters numbered
// after stmt's n) in one statement, which fails with lostCode when the key
// is not ours; with unread, completeNewSQL instead, which fails with it
// when a live record holds the key.
func (s *Store) completeWithSQL(stmt string, n int, unread bool) string {
	key := completeWithKey{stmt, n, unread}
	if v, ok := s.completeWith.Load(key); ok {
		return v.(string)
	}
	shift := func(m string) string {
		i, _ := strconv.Atoi(m[1:])
		return "$" + strconv.Itoa(i+n)
	}
	done := completeOrLostSQL
	if unread {
		done = completeNewSQL
	}
	done = paramRE.ReplaceAllStringFunc(fmt.Sprintf(done, s.ident), shift)
	ctes, main := splitWith(stmt)
	q := "WITH " + ctes + "caller AS (" + main + ")\n" + done
	s.completeWith.Store(key, q)
	return q
}

// splitWith splits stmt's leading WITH list from its last statement: ctes
// is the list's entries, each followed by a comma ("" when stmt has no
// WITH), main the statement after them. Parentheses inside quoted
// literals and identifiers are skipped.
func splitWith(stmt string) (ctes, main string) {
	const with = "WITH "
	if !strings.HasPrefix(stmt, with) {
		return "", stmt
	}
	depth, quote := 0, byte(0)
	for i := len(with); i < len(stmt); i++ {
		c := stmt[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				rest := strings.TrimLeft(stmt[i+1:], " \t\n")
				if !strings.HasPrefix(rest, ",") {
					return stmt[len(with):i+1] + ",\n", rest
				}
			}
		}
	}
	return "", stmt
}
