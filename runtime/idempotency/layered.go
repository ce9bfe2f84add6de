package idempotency

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
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
//
// Every cache call is bounded by a timeout (DefaultCacheTimeout), so a hung
// cache costs a write that much at most; a failing cache is logged (once
// when it starts failing, once when it answers again) and skipped.
type Layered struct {
	cache, auth Store
	timeout     time.Duration
	logger      *slog.Logger
	failing     atomic.Bool
}

// DefaultCacheTimeout bounds each call to the cache of a Layered store.
const DefaultCacheTimeout = 100 * time.Millisecond

// LayeredOption configures NewLayered.
type LayeredOption func(*Layered)

// WithCacheTimeout bounds each cache call (values <= 0 keep the default).
func WithCacheTimeout(d time.Duration) LayeredOption {
	return func(l *Layered) {
		if d > 0 {
			l.timeout = d
		}
	}
}

// WithCacheLogger receives the warnings about a failing cache (default
// slog.Default()).
func WithCacheLogger(logger *slog.Logger) LayeredOption {
	return func(l *Layered) {
		if logger != nil {
			l.logger = logger
		}
	}
}

// cacheCtx bounds one cache call.
func (l *Layered) cacheCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), l.timeout)
}

// noteCache records a cache call's outcome, logging each change between
// answering and failing; ErrNotFound is an answer.
func (l *Layered) noteCache(ctx context.Context, op string, err error) {
	failed := err != nil && !errors.Is(err, ErrNotFound)
	if l.failing.Swap(failed) == failed {
		return
	}
	if failed {
		l.logger.WarnContext(ctx, "mcpwrite: idempotency cache failing; using the authoritative store alone", "op", op, "error", err)
	} else {
		l.logger.InfoContext(ctx, "mcpwrite: idempotency cache answering again", "op", op)
	}
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
func NewLayered(cache, authoritative Store, opts ...LayeredOption) Store {
	l := &Layered{cache: cache, auth: authoritative, timeout: DefaultCacheTimeout, logger: slog.Default()}
	for _, o := range opts {
		o(l)
	}
	return l
}

// cached returns the cache's completed record for k, or nil.
func (l *Layered) cached(ctx context.Context, k Key, now time.Time) *Record {
	cctx, cancel := l.cacheCtx(ctx)
	defer cancel()
	rec, err := l.cache.Get(cctx, k, now)
	l.noteCache(ctx, "get", err)
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
	cctx, cancel := l.cacheCtx(ctx)
	defer cancel()
	// The cache is an optimisation; the record is safe in auth.
	if f, ok := l.cache.(Filler); ok {
		l.noteCache(ctx, "fill", f.Fill(cctx, rec, now, DefaultCacheTTL))
		return
	}
	ttl := min(rec.ExpiresAt.Sub(now), DefaultCacheTTL)
	if ttl <= 0 {
		return
	}
	l.noteCache(ctx, "fill", l.cache.Complete(cctx, rec.Key, rec.Fingerprint, rec.Response, rec.IsError, now, ttl))
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
	cctx, cancel := l.cacheCtx(ctx)
	err := l.cache.Release(cctx, k, fingerprint) // the cache holds no claims of its own
	cancel()
	l.noteCache(ctx, "release", err)
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
