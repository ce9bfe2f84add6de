// Package redisstore is an idempotency.Store on Redis: the shared adapter
// cache layer, or a store of its own for deployments without PostgreSQL.
// Every operation is one round trip (a Lua script or one read), and claims
// are atomic because each script runs alone on the key's server.
package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
)

// DefaultPrefix starts every key the store writes.
const DefaultPrefix = "mcpwrite:idem:"

// Store is an idempotency.Store on Redis. A record is a hash with the fields
// s (state), f (fingerprint), r (response), i (is error, 0/1), c (created),
// l (lease until) and e (expires), times in Unix microseconds. Liveness is
// decided against the caller's now; Redis expiry (set to the same remaining
// duration) only reclaims the memory.
type Store struct {
	client  redis.UniversalClient
	prefix  string
	maxTTL  time.Duration
	breaker breaker
	// maxPerTenant bounds a tenant's live records (redis_record_quota.go); 0: none.
	maxPerTenant int
}

// Option configures New.
type Option func(*Store)

// WithPrefix sets the key prefix (default DefaultPrefix).
func WithPrefix(prefix string) Option { return func(s *Store) { s.prefix = prefix } }

// WithMaxTTL makes Redis forget a completed record after d whatever its
// ExpiresAt, for a cache that keeps a shorter window than the durable store
// (values <= 0 mean no cap).
func WithMaxTTL(d time.Duration) Option { return func(s *Store) { s.maxTTL = d } }

// New returns a Store using client, with the default breaker. Build the
// client from ClientOptions (or set short timeouts yourself): with go-redis
// defaults a hung Redis holds each call for seconds.
func New(client redis.UniversalClient, opts ...Option) *Store {
	s := &Store{client: client, prefix: DefaultPrefix, breaker: breaker{threshold: DefaultBreakerThreshold, cooldown: DefaultBreakerCooldown}}
	for _, o := range opts {
		o(s)
	}
	return s
}

var (
	_ idempotency.Store           = (*Store)(nil)
	_ idempotency.RecordCompleter = (*Store)(nil)
	_ idempotency.Filler          = (*Store)(nil)
)

var partEscaper = strings.NewReplacer("%", "%25", ":", "%3A", "{", "%7B", "}", "%7D")

// RedisKey returns the Redis key of k: <prefix><tenant>:<tool>:<key>, each
// part percent-escaped so that a ':' inside a part cannot make two scopes
// collide, and so that braces in a part never form a cluster hash tag.
func (s *Store) RedisKey(k idempotency.Key) string {
	return s.prefix + partEscaper.Replace(k.Tenant) + ":" + partEscaper.Replace(k.Tool) + ":" + partEscaper.Replace(k.Key)
}

// Lua helpers shared by the scripts: a record is live while (in progress)
// its lease or (completed) its expiry is after now.
const liveLua = `
local function live(state, lease, expires, now)
  if state == '1' then return tonumber(lease) > now end
  return tonumber(expires) > now
end
`

// claimScript: ARGV fingerprint, now, leaseUntil, pexpire ms.
var claimScript = redis.NewScript(liveLua + `
local now = tonumber(ARGV[2])
local v = redis.call('HMGET', KEYS[1], 's', 'f', 'r', 'i', 'c', 'l', 'e')
if v[1] and live(v[1], v[6], v[7], now) then
  return {0, v[1], v[2] or '', v[3] or '', v[4] or '0', v[5] or '0', v[6] or '', v[7] or '0'}
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 's', '1', 'f', ARGV[1], 'c', ARGV[2], 'l', ARGV[3], 'e', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {1}
`)

// completeScript: ARGV fingerprint, now, expires, response, isError, pexpire ms.
var completeScript = redis.NewScript(liveLua + `
local now = tonumber(ARGV[2])
local v = redis.call('HMGET', KEYS[1], 's', 'f', 'c', 'l', 'e')
local created = ARGV[2]
if v[1] then
  if v[1] == '1' and v[2] == ARGV[1] then
    created = v[3]
  elseif live(v[1], v[4], v[5], now) then
    return {0}
  end
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 's', '2', 'f', ARGV[1], 'r', ARGV[4], 'i', ARGV[5], 'c', created, 'e', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return {1, created}
`)

// fillScript: ARGV fingerprint, created, expires, response, isError, pexpire ms.
var fillScript = redis.NewScript(`
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 's', '2', 'f', ARGV[1], 'r', ARGV[4], 'i', ARGV[5], 'c', ARGV[2], 'e', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 1
`)

// releaseScript: ARGV fingerprint.
var releaseScript = redis.NewScript(`
local v = redis.call('HMGET', KEYS[1], 's', 'f')
if v[1] == '1' and v[2] == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`)

func micros(t time.Time) string { return strconv.FormatInt(t.UnixMicro(), 10) }

// pexpire is d in whole milliseconds, rounded up and at least 1 (0 would
// delete the key).
func pexpire(d time.Duration) int64 {
	ms := (d + time.Millisecond - 1) / time.Millisecond
	return max(int64(ms), 1)
}

func boolArg(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// call runs one Redis operation through the breaker.
func (s *Store) call(op string, f func() error) error {
	if !s.breaker.allow() {
		return fmt.Errorf("redisstore: %s: %w", op, ErrUnavailable)
	}
	err := f()
	s.breaker.done(err)
	return err
}

// Claim implements idempotency.Store.
func (s *Store) Claim(ctx context.Context, k idempotency.Key, fingerprint string, now time.Time, lease time.Duration) (idempotency.ClaimResult, error) {
	now = idempotency.TruncateTime(now)
	until := idempotency.TruncateTime(now.Add(lease))
	if err := s.checkQuota(ctx, k, now); err != nil {
		return idempotency.ClaimResult{}, err
	}
	var res []any
	err := s.call("claim", func() (err error) {
		res, err = claimScript.Run(ctx, s.client, []string{s.RedisKey(k)}, fingerprint, micros(now), micros(until), pexpire(until.Sub(now))).Slice()
		return err
	})
	if errors.Is(err, ErrUnavailable) {
		return idempotency.ClaimResult{}, err
	}
	if err != nil {
		return idempotency.ClaimResult{}, fmt.Errorf("redisstore: claim: %w", err)
	}
	if len(res) == 1 && res[0] == int64(1) {
		if err := s.track(ctx, k, now, until, false); err != nil {
			return idempotency.ClaimResult{}, fmt.Errorf("redisstore: claim: quota: %w", err)
		}
		return idempotency.ClaimResult{Claimed: true}, nil
	}
	if len(res) != 8 {
		return idempotency.ClaimResult{}, fmt.Errorf("redisstore: claim: unexpected reply of %d elements", len(res))
	}
	fields := make([]string, 7)
	for i := range fields {
		fields[i], _ = res[i+1].(string)
	}
	rec, err := decode(k, fields)
	if err != nil {
		return idempotency.ClaimResult{}, err
	}
	return idempotency.ClaimResult{Existing: rec}, nil
}

// Complete implements idempotency.Store.
func (s *Store) Complete(ctx context.Context, k idempotency.Key, fingerprint string, response []byte, isError bool, now time.Time, ttl time.Duration) error {
	_, err := s.CompleteRecord(ctx, k, fingerprint, response, isError, now, ttl)
	return err
}

// CompleteRecord implements idempotency.RecordCompleter.
func (s *Store) CompleteRecord(ctx context.Context, k idempotency.Key, fingerprint string, response []byte, isError bool, now time.Time, ttl time.Duration) (*idempotency.Record, error) {
	now = idempotency.TruncateTime(now)
	expires := idempotency.TruncateTime(now.Add(ttl))
	keep := expires.Sub(now)
	if s.maxTTL > 0 && s.maxTTL < keep {
		keep = s.maxTTL
	}
	var res []any
	err := s.call("complete", func() (err error) {
		res, err = completeScript.Run(ctx, s.client, []string{s.RedisKey(k)},
			fingerprint, micros(now), micros(expires), response, boolArg(isError), pexpire(keep)).Slice()
		return err
	})
	if errors.Is(err, ErrUnavailable) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("redisstore: complete: %w", err)
	}
	if len(res) == 1 && res[0] == int64(0) {
		return nil, idempotency.ErrClaimLost
	}
	created, ok := "", len(res) == 2
	if ok {
		created, ok = res[1].(string)
	}
	c, err := strconv.ParseInt(created, 10, 64)
	if !ok || err != nil {
		return nil, fmt.Errorf("redisstore: complete: unexpected reply %v", res)
	}
	if err := s.track(ctx, k, now, now.Add(keep), false); err != nil {
		return nil, fmt.Errorf("redisstore: complete: quota: %w", err)
	}
	return &idempotency.Record{
		Key: k, Fingerprint: fingerprint, State: idempotency.StateCompleted,
		Response: append([]byte(nil), response...), IsError: isError,
		CreatedAt: time.UnixMicro(c).UTC(), ExpiresAt: expires,
	}, nil
}

// Release implements idempotency.Store.
func (s *Store) Release(ctx context.Context, k idempotency.Key, fingerprint string) error {
	var deleted int64
	err := s.call("release", func() (err error) {
		deleted, err = releaseScript.Run(ctx, s.client, []string{s.RedisKey(k)}, fingerprint).Int64()
		return err
	})
	if errors.Is(err, ErrUnavailable) {
		return err
	}
	if err != nil {
		return fmt.Errorf("redisstore: release: %w", err)
	}
	if deleted == 0 {
		return nil
	}
	if err := s.track(ctx, k, time.Time{}, time.Time{}, true); err != nil {
		return fmt.Errorf("redisstore: release: quota: %w", err)
	}
	return nil
}

// Get implements idempotency.Store.
func (s *Store) Get(ctx context.Context, k idempotency.Key, now time.Time) (*idempotency.Record, error) {
	now = idempotency.TruncateTime(now)
	var vals []any
	err := s.call("get", func() (err error) {
		vals, err = s.client.HMGet(ctx, s.RedisKey(k), "s", "f", "r", "i", "c", "l", "e").Result()
		return err
	})
	if errors.Is(err, ErrUnavailable) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("redisstore: get: %w", err)
	}
	if vals[0] == nil {
		return nil, idempotency.ErrNotFound
	}
	fields := make([]string, len(vals))
	for i, v := range vals {
		fields[i], _ = v.(string)
	}
	rec, err := decode(k, fields)
	if err != nil {
		return nil, err
	}
	if !rec.Live(now) {
		return nil, idempotency.ErrNotFound
	}
	return rec, nil
}

// Fill implements idempotency.Filler.
func (s *Store) Fill(ctx context.Context, rec *idempotency.Record, now time.Time, keep time.Duration) error {
	now = idempotency.TruncateTime(now)
	if rec == nil || rec.State != idempotency.StateCompleted || !rec.Live(now) {
		return nil
	}
	expires := idempotency.TruncateTime(rec.ExpiresAt)
	d := expires.Sub(now)
	if s.maxTTL > 0 && s.maxTTL < d {
		d = s.maxTTL
	}
	if keep > 0 && keep < d {
		d = keep
	}
	err := s.call("fill", func() error {
		return fillScript.Run(ctx, s.client, []string{s.RedisKey(rec.Key)},
			rec.Fingerprint, micros(idempotency.TruncateTime(rec.CreatedAt)), micros(expires), rec.Response, boolArg(rec.IsError), pexpire(d)).Err()
	})
	if errors.Is(err, ErrUnavailable) {
		return err
	}
	if err != nil {
		return fmt.Errorf("redisstore: fill: %w", err)
	}
	return nil
}

// decode builds a record from the fields s, f, r, i, c, l, e.
func decode(k idempotency.Key, f []string) (*idempotency.Record, error) {
	rec := &idempotency.Record{Key: k, Fingerprint: f[1], IsError: f[3] == "1"}
	switch f[0] {
	case "1":
		rec.State = idempotency.StateInProgress
	case "2":
		rec.State = idempotency.StateCompleted
		rec.Response = []byte(f[2])
	default:
		return nil, fmt.Errorf("redisstore: record has unknown state %q", f[0])
	}
	times := []*time.Time{&rec.CreatedAt, &rec.LeaseUntil, &rec.ExpiresAt}
	for i, dst := range times {
		v := f[4+i]
		if v == "" && dst == &rec.LeaseUntil {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, errors.New("redisstore: record has a malformed time")
		}
		*dst = time.UnixMicro(n).UTC()
	}
	return rec, nil
}

// WithBreaker sets the circuit breaker: open after threshold consecutive
// failures, for cooldown (threshold < 1 turns the breaker off).
func WithBreaker(threshold int, cooldown time.Duration) Option {
	return func(s *Store) { s.breaker = breaker{threshold: threshold, cooldown: cooldown} }
}

// State names what the breaker does now: "closed" (calls go through),
// "open" (calls fail at once) or "half-open" (one probe is in flight).
func (s *Store) BreakerState() string {
	b := &s.breaker
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.failures < b.threshold || b.threshold < 1:
		return "closed"
	case b.probing:
		return "half-open"
	case b.clock().Before(b.openUntil):
		return "open"
	}
	return "half-open"
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
