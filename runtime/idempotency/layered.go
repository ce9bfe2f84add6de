package idempotency

import (
	"context"
	"errors"
	"time"
)

// Layered is a cache Store in front of an authoritative Store: the adapter
// cache is an optimisation, the durable store decides.
//
// Claim asks the cache only for a completed record and otherwise always goes
// to the authoritative store, so a cold, lost or per-instance cache can never
// allow a second execution. A cache hit is returned as Existing with its own
// fingerprint, so the caller still detects a reused key. Cache failures are
// not errors: the authoritative answer stands on its own.
type Layered struct {
	cache, auth Store
}

var (
	_ Store           = (*Layered)(nil)
	_ RecordCompleter = (*Layered)(nil)
)

// NewLayered puts cache in front of authoritative. The cache keeps completed
// records at most DefaultCacheTTL. When authoritative implements
// RecordCompleter and cache implements Filler, the cache holds the exact
// authoritative record (CreatedAt and ExpiresAt included); otherwise a cached
// record carries the times of its cache write.
func NewLayered(cache, authoritative Store) Store {
	return &Layered{cache: cache, auth: authoritative}
}

// cached returns the cache's completed record for k, or nil.
func (l *Layered) cached(ctx context.Context, k Key, now time.Time) *Record {
	rec, err := l.cache.Get(ctx, k, now)
	if err != nil || rec == nil || rec.State != StateCompleted {
		return nil
	}
	return rec
}

// fill copies a completed authoritative record into the cache, best effort.
func (l *Layered) fill(ctx context.Context, rec *Record, now time.Time) {
	if rec == nil || rec.State != StateCompleted {
		return
	}
	if f, ok := l.cache.(Filler); ok {
		_ = f.Fill(ctx, rec, now, DefaultCacheTTL) // the cache is an optimisation; the record is safe in auth
		return
	}
	ttl := min(rec.ExpiresAt.Sub(now), DefaultCacheTTL)
	if ttl <= 0 {
		return
	}
	_ = l.cache.Complete(ctx, rec.Key, rec.Fingerprint, rec.Response, rec.IsError, now, ttl)
}

// Claim implements Store.
func (l *Layered) Claim(ctx context.Context, k Key, fingerprint string, now time.Time, lease time.Duration) (ClaimResult, error) {
	if rec := l.cached(ctx, k, now); rec != nil {
		return ClaimResult{Existing: rec}, nil
	}
	res, err := l.auth.Claim(ctx, k, fingerprint, now, lease)
	if err != nil {
		return ClaimResult{}, err
	}
	if res.Existing != nil {
		l.fill(ctx, res.Existing, now)
	}
	return res, nil
}

// Complete implements Store.
func (l *Layered) Complete(ctx context.Context, k Key, fingerprint string, response []byte, isError bool, now time.Time, ttl time.Duration) error {
	_, err := l.CompleteRecord(ctx, k, fingerprint, response, isError, now, ttl)
	return err
}

// CompleteRecord implements RecordCompleter: the authoritative store first,
// then the cache. Without RecordCompleter on the authoritative store the
// returned CreatedAt is the completion time.
func (l *Layered) CompleteRecord(ctx context.Context, k Key, fingerprint string, response []byte, isError bool, now time.Time, ttl time.Duration) (*Record, error) {
	rc, ok := l.auth.(RecordCompleter)
	if !ok {
		// Without the stored record the cache would get a wrong CreatedAt, so
		// it is left to be filled by the next read.
		if err := l.auth.Complete(ctx, k, fingerprint, response, isError, now, ttl); err != nil {
			return nil, err
		}
		now := TruncateTime(now)
		return &Record{Key: k, Fingerprint: fingerprint, State: StateCompleted, Response: response, IsError: isError, CreatedAt: now, ExpiresAt: TruncateTime(now.Add(ttl))}, nil
	}
	rec, err := rc.CompleteRecord(ctx, k, fingerprint, response, isError, now, ttl)
	if err != nil {
		return nil, err
	}
	l.fill(ctx, rec, now)
	return rec, nil
}

// Release implements Store.
func (l *Layered) Release(ctx context.Context, k Key, fingerprint string) error {
	_ = l.cache.Release(ctx, k, fingerprint) // the cache holds no claims of its own
	return l.auth.Release(ctx, k, fingerprint)
}

// Get implements Store: the cache, then the authoritative store, back-filling
// the cache with a completed record.
func (l *Layered) Get(ctx context.Context, k Key, now time.Time) (*Record, error) {
	if rec := l.cached(ctx, k, now); rec != nil {
		return rec, nil
	}
	rec, err := l.auth.Get(ctx, k, now)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	l.fill(ctx, rec, now)
	return rec, nil
}
