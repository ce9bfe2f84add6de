package redisstore_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/redisstore"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/storetest"
)

const addrEnv = "MCPWRITE_TEST_REDIS_ADDR"

// countHook counts commands and pipelines sent, i.e. network round trips.
type countHook struct{ n atomic.Int64 }

func (h *countHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *countHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmd)
	}
}
func (h *countHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmds)
	}
}

var runID = fmt.Sprint(os.Getpid(), "-", time.Now().UnixNano())

// newClient connects to the test server or skips; keys under the returned
// prefix are deleted when the test ends.
func newClient(tb testing.TB) (*redis.Client, string, *countHook) {
	tb.Helper()
	addr := os.Getenv(addrEnv)
	if addr == "" {
		tb.Skipf("set %s (e.g. 127.0.0.1:6379) to run the Redis store tests", addrEnv)
	}
	client := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 80})
	if err := client.Ping(context.Background()).Err(); err != nil {
		tb.Fatalf("redis at %s (%s): %v", addr, addrEnv, err)
	}
	prefix := fmt.Sprintf("mcpwrite-test:%s:%s:", runID, tb.Name())
	tb.Cleanup(func() {
		ctx := context.Background()
		iter := client.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			client.Del(ctx, iter.Val())
		}
		client.Close()
	})
	hook := &countHook{}
	client.AddHook(hook)
	return client, prefix, hook
}

func TestRedisStoreConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) idempotency.Store {
		client, prefix, _ := newClient(t)
		return redisstore.New(client, redisstore.WithPrefix(prefix))
	})
}

func TestLayeredMemoryOverRedisConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) idempotency.Store {
		client, prefix, _ := newClient(t)
		return idempotency.NewLayered(idempotency.NewMemoryStore(), redisstore.New(client, redisstore.WithPrefix(prefix)))
	})
}

// The failure-mode table of storetest.RunFailureModes with Redis as the
// shared store behind each instance's in-memory cache.
func TestLayeredFailureModesOverRedis(t *testing.T) {
	storetest.RunFailureModes(t, func(t *testing.T) idempotency.Store {
		client, prefix, _ := newClient(t)
		return redisstore.New(client, redisstore.WithPrefix(prefix))
	})
}

func TestRedisKeyEscapesEachPart(t *testing.T) {
	s := redisstore.New(nil)
	cases := []struct {
		name string
		key  idempotency.Key
		want string
	}{
		{"plain parts", idempotency.Key{Tenant: "acme", Tool: "create_element", Key: "req-1"}, "mcpwrite:idem:acme:create_element:req-1"},
		{"colon in tenant", idempotency.Key{Tenant: "a:b", Tool: "c", Key: "k"}, "mcpwrite:idem:a%3Ab:c:k"},
		{"colon in tool", idempotency.Key{Tenant: "a", Tool: "b:c", Key: "k"}, "mcpwrite:idem:a:b%3Ac:k"},
		{"percent is escaped first", idempotency.Key{Tenant: "a%3Ab", Tool: "c", Key: "k"}, "mcpwrite:idem:a%253Ab:c:k"},
		{"braces cannot form a hash tag", idempotency.Key{Tenant: "{t}", Tool: "c", Key: "k"}, "mcpwrite:idem:%7Bt%7D:c:k"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := s.RedisKey(tc.key); got != tc.want {
				t.Fatalf("RedisKey(%+v) = %q, want %q", tc.key, got, tc.want)
			}
		})
	}
	if got := redisstore.New(nil, redisstore.WithPrefix("p:")).RedisKey(idempotency.Key{Tenant: "t", Tool: "x", Key: "k"}); got != "p:t:x:k" {
		t.Errorf("with prefix: %q, want %q", got, "p:t:x:k")
	}
}

func TestRedisStoreOperationsAreOneRoundTripAndSetExpiry(t *testing.T) {
	client, prefix, hook := newClient(t)
	ctx := context.Background()
	s := redisstore.New(client, redisstore.WithPrefix(prefix), redisstore.WithMaxTTL(time.Hour))
	now := time.Now()
	// Load the scripts once so the counts below are steady-state.
	warm := idempotency.Key{Tenant: "t", Tool: "x", Key: "warm"}
	s.Claim(ctx, warm, "fp", now, time.Minute)
	s.Complete(ctx, warm, "fp", nil, false, now, time.Minute)
	s.Release(ctx, warm, "fp")
	s.Fill(ctx, &idempotency.Record{Key: warm, State: idempotency.StateCompleted, ExpiresAt: now.Add(time.Hour)}, now, time.Minute)

	k := idempotency.Key{Tenant: "t", Tool: "x", Key: "k"}
	cases := []struct {
		name    string
		op      func() error
		wantRT  int64
		wantTTL time.Duration // PTTL of the key afterwards, ±1s; 0 = not checked
	}{
		{"claim", func() error { _, err := s.Claim(ctx, k, "fp", now, 30*time.Second); return err }, 1, 30 * time.Second},
		{"replayed claim", func() error { _, err := s.Claim(ctx, k, "fp", now, 30*time.Second); return err }, 1, 30 * time.Second},
		{"complete, capped by WithMaxTTL", func() error { return s.Complete(ctx, k, "fp", []byte("r"), false, now, 7*24*time.Hour) }, 1, time.Hour},
		{"get", func() error { _, err := s.Get(ctx, k, now); return err }, 1, time.Hour},
		{"fill keeps at most keep", func() error {
			return s.Fill(ctx, &idempotency.Record{Key: k, Fingerprint: "fp", State: idempotency.StateCompleted, CreatedAt: now, ExpiresAt: now.Add(48 * time.Hour)}, now, 10*time.Minute)
		}, 1, 10 * time.Minute},
		{"release", func() error { return s.Release(ctx, k, "fp") }, 1, 10 * time.Minute},
	}
	for _, tc := range cases {
		before := hook.n.Load()
		if err := tc.op(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := hook.n.Load() - before; got != tc.wantRT {
			t.Errorf("%s: %d round trips, want %d", tc.name, got, tc.wantRT)
		}
		if tc.wantTTL != 0 {
			pttl := client.PTTL(ctx, s.RedisKey(k)).Val()
			if pttl < tc.wantTTL-time.Second || pttl > tc.wantTTL {
				t.Errorf("%s: PTTL = %v, want about %v", tc.name, pttl, tc.wantTTL)
			}
		}
	}
}

func TestRedisStoreRejectsForeignData(t *testing.T) {
	client, prefix, _ := newClient(t)
	ctx := context.Background()
	s := redisstore.New(client, redisstore.WithPrefix(prefix))
	k := idempotency.Key{Tenant: "t", Tool: "x", Key: "k"}
	client.HSet(ctx, s.RedisKey(k), "s", "9", "e", "1")
	_, err := s.Get(ctx, k, time.Now())
	if err == nil || err.Error() != `redisstore: record has unknown state "9"` {
		t.Fatalf("Get of a foreign hash = %v, want the unknown-state error", err)
	}
}

func TestRedisStoreUnreachableServerIsAnError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	client := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer client.Close()
	s := redisstore.New(client)
	res, err := s.Claim(context.Background(), idempotency.Key{Tenant: "t", Tool: "x", Key: "k"}, "fp", time.Now(), time.Minute)
	if err == nil || !strings.HasPrefix(err.Error(), "redisstore: claim: ") || res.Claimed {
		t.Fatalf("Claim against a closed port = %+v, %v; want a redisstore: claim: error", res, err)
	}
}

func BenchmarkClaimComplete(b *testing.B) {
	b.Run("redis", func(b *testing.B) {
		client, prefix, hook := newClient(b)
		storetest.BenchClaimComplete(b, redisstore.New(client, redisstore.WithPrefix(prefix)), hook.n.Load)
	})
}
