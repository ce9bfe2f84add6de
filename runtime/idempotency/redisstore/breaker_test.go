package redisstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestBreakerOpensAfterThresholdAndProbesOnce(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := &Store{breaker: breaker{threshold: 3, cooldown: 5 * time.Second, now: func() time.Time { return now }}}
	down := errors.New("i/o timeout")
	for i := range 2 {
		if !s.breaker.allow() {
			t.Fatalf("call %d refused before the threshold", i)
		}
		s.breaker.done(down)
	}
	// Answers from Redis itself are not failures and reset the count.
	s.breaker.done(redis.Nil)
	for range 3 {
		s.breaker.allow()
		s.breaker.done(down)
	}
	if s.BreakerState() != "open" || s.breaker.allow() {
		t.Fatalf("after 3 failures: %s", s.BreakerState())
	}
	now = now.Add(5 * time.Second)
	if s.BreakerState() != "half-open" || !s.breaker.allow() {
		t.Fatal("no probe after the cooldown")
	}
	if s.breaker.allow() {
		t.Fatal("a second call went through while the probe is in flight")
	}
	s.breaker.done(down) // the probe failed: open again for a cooldown
	if s.BreakerState() != "open" {
		t.Fatalf("after a failed probe: %s", s.BreakerState())
	}
	now = now.Add(5 * time.Second)
	s.breaker.allow()
	s.breaker.done(nil)
	if s.BreakerState() != "closed" || !s.breaker.allow() {
		t.Fatalf("after a good probe: %s", s.BreakerState())
	}
}

func TestBreakerOffBelowOne(t *testing.T) {
	s := &Store{breaker: breaker{threshold: 0}}
	for range 10 {
		s.breaker.done(errors.New("down"))
	}
	if !s.breaker.allow() || s.BreakerState() != "closed" {
		t.Fatal("a disabled breaker refused a call")
	}
}

// Calls their callers cancelled are not Redis failures: they neither open
// the breaker nor reset the count; a deadline that ran out is a failure.
func TestBreakerIgnoresCancelledCalls(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := &Store{breaker: breaker{threshold: 3, cooldown: 5 * time.Second, now: func() time.Time { return now }}}
	for range 10 {
		s.breaker.allow()
		s.breaker.done(context.Canceled)
	}
	if got := s.BreakerState(); got != "closed" {
		t.Fatalf("after cancelled calls: %s, want closed", got)
	}
	s.breaker.done(errors.New("i/o timeout"))
	s.breaker.done(context.Canceled)
	s.breaker.done(context.DeadlineExceeded)
	if got := s.BreakerState(); got != "closed" || s.breaker.failures != 2 {
		t.Fatalf("state %s, failures %d; want closed, 2", got, s.breaker.failures)
	}
	s.breaker.done(context.DeadlineExceeded)
	if got := s.BreakerState(); got != "open" {
		t.Fatalf("after a third failure: %s, want open", got)
	}
}

func TestClientOptionsBoundEveryCall(t *testing.T) {
	got := ClientOptions("127.0.0.1:6390")
	want := redis.Options{
		Addr:        "127.0.0.1:6390",
		DialTimeout: 200 * time.Millisecond, ReadTimeout: 200 * time.Millisecond,
		WriteTimeout: 200 * time.Millisecond, PoolTimeout: 200 * time.Millisecond,
		ContextTimeoutEnabled: true, MaxRetries: -1,
	}
	if got.Addr != want.Addr || got.DialTimeout != want.DialTimeout || got.ReadTimeout != want.ReadTimeout ||
		got.WriteTimeout != want.WriteTimeout || got.PoolTimeout != want.PoolTimeout ||
		got.ContextTimeoutEnabled != want.ContextTimeoutEnabled || got.MaxRetries != want.MaxRetries {
		t.Fatalf("ClientOptions = %+v, want %+v", *got, want)
	}
}
