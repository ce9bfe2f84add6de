package redisstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
)

// WithMaxRecordsPerTenant bounds the live records one tenant may claim
// through this store: a claim of a new key past it is refused with an
// *idempotency.QuotaError (keys the tenant holds, replays and retries, are
// not). Each tenant's live records are tracked in a sorted set
// (<prefix>tenant-records:<tenant>, scored by when each record stops being
// live), updated next to each claim, completion and release, so concurrent
// claims may overshoot the bound by a few. n <= 0, the default, sets no
// bound (Redis's own maxmemory then bounds the store). Records written by
// Fill (a cache filled from the authoritative store) are not counted.
func WithMaxRecordsPerTenant(n int) Option {
	return func(s *Store) {
		if n > 0 {
			s.maxPerTenant = n
		}
	}
}

// tenantSetKey is the sorted set of k's tenant's live records. It has one
// ':' after the prefix where a record's key has two, so it never names a
// record.
func (s *Store) tenantSetKey(k idempotency.Key) string {
	return s.prefix + "tenant-records:" + partEscaper.Replace(k.Tenant)
}

// checkQuota refuses a claim of a key k's tenant does not hold while the
// tenant holds maxPerTenant live records.
func (s *Store) checkQuota(ctx context.Context, k idempotency.Key, now time.Time) error {
	if s.maxPerTenant <= 0 {
		return nil
	}
	set, member := s.tenantSetKey(k), s.RedisKey(k)
	var (
		card     *redis.IntCmd
		held     *redis.FloatCmd
		earliest *redis.ZSliceCmd
	)
	err := s.call("quota", func() error {
		_, err := s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
			p.ZRemRangeByScore(ctx, set, "-inf", micros(now))
			card = p.ZCard(ctx, set)
			held = p.ZScore(ctx, set, member)
			earliest = p.ZRangeWithScores(ctx, set, 0, 0)
			return nil
		})
		if errors.Is(err, redis.Nil) {
			err = nil // ZScore of an absent member
		}
		return err
	})
	if errors.Is(err, ErrUnavailable) {
		return err
	}
	if err != nil {
		return fmt.Errorf("redisstore: claim: quota: %w", err)
	}
	if card.Val() < int64(s.maxPerTenant) || held.Err() == nil {
		return nil
	}
	retry := time.Second
	if z := earliest.Val(); len(z) == 1 {
		if d := time.UnixMicro(int64(z[0].Score)).Sub(now).Round(time.Second); d > retry {
			retry = d
		}
	}
	return &idempotency.QuotaError{Limit: s.maxPerTenant, RetryAfter: retry}
}

// track records that k's record is live until until (release: no longer).
// A failure is returned; the record itself is already written.
func (s *Store) track(ctx context.Context, k idempotency.Key, now, until time.Time, release bool) error {
	if s.maxPerTenant <= 0 {
		return nil
	}
	set, member := s.tenantSetKey(k), s.RedisKey(k)
	return s.call("quota", func() error {
		_, err := s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
			if release {
				p.ZRem(ctx, set, member)
				return nil
			}
			p.ZAdd(ctx, set, redis.Z{Score: float64(until.UnixMicro()), Member: member})
			// The set lives as long as its longest-lived record: an expiry
			// is set on a new set (NX) and only ever extended (GT).
			ttl := until.Sub(now) + time.Second
			p.ExpireNX(ctx, set, ttl)
			p.ExpireGT(ctx, set, ttl)
			return nil
		})
		return err
	})
}
