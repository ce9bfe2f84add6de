// Package idempotency holds the idempotency contract of protoc-gen-mcpwrite's
// runtime: key validation, request fingerprints and the Store interface with
// an in-memory implementation. Networked stores live in sub-packages
// (redisstore, pgstore) so this package stays free of heavy dependencies.
//
// # Scope of a key
//
// A client key is scoped by tenant, principal and tool: the runtime stores
// every call under ScopedKey(tenant, principal, tool, key). The same
// client_request_id sent by another tenant, by a colleague in the same
// tenant, or to another tool is another key, so it executes on its own and
// never replays someone else's result. A caller without a principal shares
// the scope of the other principal-less callers of its tenant.
//
// # Defaults
//
//	replay window of a result        DefaultCacheTTL, 24 h (runtime.IdempotencyOptions.TTL;
//	                                 DefaultDurableTTL, 7 days, suits a durable store)
//	in-progress claim (lease)        DefaultLease, 30 s (runtime.IdempotencyOptions.Lease): a key
//	                                 whose call crashed is claimable again after it
//	result kept for a replay         1 MiB (runtime.IdempotencyOptions.MaxStoredResponse); a larger one
//	                                 replays an error saying the call completed
//	in-memory store                  DefaultMemoryMaxEntries, 100,000 records, and
//	                                 DefaultMemoryMaxBytes, 64 MiB, evicting from the tenant
//	                                 that holds the most bytes
//	cache call in a Layered store    DefaultCacheTimeout, 100 ms; a failing cache is skipped
//	                                 and logged
//	Redis (redisstore)               200 ms client timeouts, breaker open for 5 s after 3
//	                                 consecutive failures
package idempotency

import (
	"context"
	"errors"
	"time"
)

// Default retention windows (docs/architecture.md, "Idempotency").
const (
	DefaultCacheTTL   = 24 * time.Hour
	DefaultDurableTTL = 7 * 24 * time.Hour
	DefaultLease      = 30 * time.Second
)

// Key scopes an idempotency key: the same client key in another tenant or
// another tool is another key. Key.Key is the client key qualified by the
// caller's principal (see ScopedKey), so within a tenant each principal has
// its own keys.
type Key struct {
	Tenant string
	Tool   string
	Key    string
}

// State of a record.
type State uint8

const (
	// StateInProgress: claimed, the handler is running (until LeaseUntil).
	StateInProgress State = 1
	// StateCompleted: the response is stored and replays verbatim.
	StateCompleted State = 2
)

// Record is what a store keeps for one key. CreatedAt is the time of the
// claim (the original request time a replay reports); an in-progress record
// has ExpiresAt equal to LeaseUntil, a completed one has no LeaseUntil. Times
// are UTC at Precision.
type Record struct {
	Key         Key
	Fingerprint string // hex SHA-256 of the canonical arguments (key excluded)
	State       State
	Response    []byte // the full tool result envelope JSON (StateCompleted)
	IsError     bool   // the stored response is a business error
	CreatedAt   time.Time
	LeaseUntil  time.Time // StateInProgress: claim expires; a later Claim may take it over
	ExpiresAt   time.Time
}

// ClaimResult tells whether the caller owns the key now.
type ClaimResult struct {
	// Claimed is true when the caller must execute and then Complete or Release.
	Claimed bool
	// Existing is the record that prevented the claim (Claimed == false).
	Existing *Record
}

// ErrNotFound is returned by Get for an unknown or expired key.
var ErrNotFound = errors.New("idempotency: key not found")

// Store is the idempotency contract. Implementations must make Claim atomic:
// of many concurrent claims of one Key, exactly one succeeds.
type Store interface {
	// Claim takes the key for fingerprint, leased until now+lease. If a live
	// record exists (completed, or in progress with an unexpired lease) it is
	// returned instead. An in-progress record whose lease expired is taken over.
	Claim(ctx context.Context, k Key, fingerprint string, now time.Time, lease time.Duration) (ClaimResult, error)
	// Complete stores the response of a claimed key, kept until now+ttl.
	Complete(ctx context.Context, k Key, fingerprint string, response []byte, isError bool, now time.Time, ttl time.Duration) error
	// Release drops an in-progress claim (the call failed before any side
	// effect, or panicked) so that a retry executes again.
	Release(ctx context.Context, k Key, fingerprint string) error
	// Get returns the live record for k or ErrNotFound.
	Get(ctx context.Context, k Key, now time.Time) (*Record, error)
}

// ErrClaimLost is returned by Complete when the key is no longer ours to
// complete: it was completed already (the first completion wins, because a
// replay may have served it) or another request with another fingerprint took
// it over after our lease ended. A transactional caller must roll back its
// domain write on this error, since that write would be a duplicate.
var ErrClaimLost = errors.New("idempotency: claim lost: the key was completed or taken over by another request")

// Precision is the resolution every store keeps times at (PostgreSQL's), so
// that a record reads back identically whichever store holds it.
const Precision = time.Microsecond

// Live reports whether r is still visible at now: a completed record until
// ExpiresAt, an in-progress record until LeaseUntil (both exclusive).
func (r *Record) Live(now time.Time) bool {
	if r == nil {
		return false
	}
	if r.State == StateInProgress {
		return now.Before(r.LeaseUntil)
	}
	return now.Before(r.ExpiresAt)
}

// RecordCompleter is an optional Store extension: CompleteRecord behaves like
// Complete and returns the stored record, so a cache in front of the store can
// keep the authoritative CreatedAt (the original request time) without
// another round trip.
type RecordCompleter interface {
	CompleteRecord(ctx context.Context, k Key, fingerprint string, response []byte, isError bool, now time.Time, ttl time.Duration) (*Record, error)
}

// Filler is an optional Store extension implemented by caches: Fill stores a
// completed record verbatim (CreatedAt and ExpiresAt included), overwriting
// whatever the cache held, because the record comes from the authoritative
// store. The cache keeps it until now+keep or ExpiresAt, whichever is first
// (keep <= 0: until ExpiresAt). A record that is not completed or not live at
// now is ignored.
type Filler interface {
	Fill(ctx context.Context, rec *Record, now time.Time, keep time.Duration) error
}

// TruncateTime brings t to the stores' common form: UTC at Precision.
func TruncateTime(t time.Time) time.Time {
	return t.UTC().Truncate(Precision)
}

// HeldError is what a handler that claims a key in its own transaction
// (runtime.Outcome.ClaimInTx) returns when the key is held: Record is the
// record that holds it, which the runtime answers (a replay, a reused key,
// a call in progress).
type HeldError struct{ Record *Record }

func (e *HeldError) Error() string { return "idempotency: key held by an earlier call" }
