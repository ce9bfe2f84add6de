package redisstore

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Defaults for a Redis that hangs or goes away: each call is bounded by the
// client timeouts of ClientOptions, and after BreakerThreshold consecutive
// failures the store stops calling Redis for BreakerCooldown, answering
// ErrUnavailable at once, then lets one call through to probe.
const (
	DefaultTimeout          = 200 * time.Millisecond
	DefaultBreakerThreshold = 3
	DefaultBreakerCooldown  = 5 * time.Second
)

// ErrUnavailable is returned (wrapped) while the breaker is open.
var ErrUnavailable = errors.New("redisstore: redis unavailable (circuit open)")

// ClientOptions returns go-redis options for addr with the timeouts the
// store is designed for: a hung Redis costs DefaultTimeout per call, not
// the client's default seconds; a shorter deadline on the call's context
// (a layered store's cache timeout) is honoured too; and a failed call is
// not retried (the breaker and the layered store decide what happens
// next). Change the returned fields to tune them.
func ClientOptions(addr string) *redis.Options {
	return &redis.Options{
		Addr:                  addr,
		DialTimeout:           DefaultTimeout,
		ReadTimeout:           DefaultTimeout,
		WriteTimeout:          DefaultTimeout,
		PoolTimeout:           DefaultTimeout,
		ContextTimeoutEnabled: true,
		MaxRetries:            -1,
	}
}

// breaker counts consecutive failures of Redis calls.
type breaker struct {
	threshold int
	cooldown  time.Duration
	now       func() time.Time // nil: time.Now

	mu        sync.Mutex
	failures  int
	openUntil time.Time
	probing   bool
}

func (b *breaker) clock() time.Time {
	if b.now != nil {
		return b.now()
	}
	return time.Now()
}

// allow reports whether a call may go to Redis now.
func (b *breaker) allow() bool {
	if b.threshold < 1 {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.failures < b.threshold {
		return true
	}
	if b.probing || b.clock().Before(b.openUntil) {
		return false
	}
	b.probing = true // one probe after the cooldown
	return true
}

// done records a call's outcome. Redis answering (redis.Nil included) is
// success; only transport failures and timeouts count. A call its caller
// cancelled says nothing about Redis and leaves the count as it was.
func (b *breaker) done(err error) {
	if b.threshold < 1 {
		return
	}
	failed := err != nil && !errors.Is(err, redis.Nil) && !isReplyError(err)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.probing = false
	if errors.Is(err, context.Canceled) {
		return
	}
	if !failed {
		b.failures = 0
		return
	}
	b.failures++
	if b.failures >= b.threshold {
		b.openUntil = b.clock().Add(b.cooldown)
	}
}

// isReplyError reports an error Redis itself answered (a script error, a
// wrong type): Redis is up.
func isReplyError(err error) bool {
	var re redis.Error
	return errors.As(err, &re)
}
