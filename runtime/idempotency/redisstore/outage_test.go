package redisstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/pgstore"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/redisstore"
)

// ownRedis starts a redis-server of the test's own on a free port (never
// the shared one, which other tests use) and returns its address and
// process. Like the other Redis tests it runs when MCPWRITE_TEST_REDIS_ADDR
// is set; then a missing redis-server binary fails the test.
func ownRedis(t *testing.T) (string, *os.Process) {
	t.Helper()
	if os.Getenv(addrEnv) == "" {
		t.Skipf("set %s (e.g. 127.0.0.1:6379) to run the Redis store tests", addrEnv)
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("redis-server is needed to pause a Redis of the test's own: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", fmt.Sprint(port), "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGCONT)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	client := redis.NewClient(redisstore.ClientOptions(addr))
	defer client.Close()
	for deadline := time.Now().Add(5 * time.Second); client.Ping(context.Background()).Err() != nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("redis-server on %s did not answer", addr)
		}
	}
	return addr, cmd.Process
}

// A hung Redis (SIGSTOP) costs each call the short client timeout, not the
// go-redis default seconds; after three failures the breaker answers at once
// without calling Redis; once Redis answers again, the probe closes it.
func TestHungRedisFailsFastAndTheBreakerOpens(t *testing.T) {
	addr, proc := ownRedis(t)
	client := redis.NewClient(redisstore.ClientOptions(addr))
	defer client.Close()
	s := redisstore.New(client, redisstore.WithBreaker(3, 300*time.Millisecond))
	ctx := context.Background()
	key := func(i int) idempotency.Key { return idempotency.Key{Tenant: "t", Tool: "x", Key: fmt.Sprint("k", i)} }
	if res, err := s.Claim(ctx, key(0), "fp", time.Now(), time.Minute); err != nil || !res.Claimed {
		t.Fatalf("claim on a healthy Redis: %+v %v", res, err)
	}
	if err := proc.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		start := time.Now()
		_, err := s.Claim(ctx, key(i), "fp", time.Now(), time.Minute)
		if took := time.Since(start); err == nil || errors.Is(err, redisstore.ErrUnavailable) || took > 2*time.Second {
			t.Fatalf("claim %d on a hung Redis: err %v after %s; want a timeout error well under 2 s", i, err, took)
		}
	}
	if got := s.BreakerState(); got != "open" {
		t.Fatalf("breaker after 3 failures: %s, want open", got)
	}
	if _, err := s.Claim(ctx, key(4), "fp", time.Now(), time.Minute); !errors.Is(err, redisstore.ErrUnavailable) {
		t.Fatalf("claim with the breaker open: %v, want ErrUnavailable", err)
	}
	if err := proc.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	time.Sleep(350 * time.Millisecond)
	if got := s.BreakerState(); got != "half-open" {
		t.Fatalf("breaker after the cooldown: %s, want half-open", got)
	}
	if res, err := s.Claim(ctx, key(5), "fp", time.Now(), time.Minute); err != nil || !res.Claimed {
		t.Fatalf("probe claim: %+v %v", res, err)
	}
	if got := s.BreakerState(); got != "closed" {
		t.Fatalf("breaker after a good probe: %s, want closed", got)
	}
}

// syncBuffer is a log destination safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Writes through a layered store never wait on a hung or dead cache: 20
// keyed writes finish in a fraction of what one call to a hung Redis took
// with client defaults (10-15 s), every one claimed and recorded by the
// authoritative store, the outage is logged once, and the cache's breaker
// is open.
func TestLayeredWritesDoNotWaitOnAHungCache(t *testing.T) {
	for _, tt := range []struct {
		name string
		sig  syscall.Signal
	}{{"paused", syscall.SIGSTOP}, {"killed", syscall.SIGKILL}} {
		t.Run(tt.name, func(t *testing.T) {
			addr, proc := ownRedis(t)
			client := redis.NewClient(redisstore.ClientOptions(addr))
			defer client.Close()
			var logs syncBuffer
			auth := idempotency.NewMemoryStore()
			cache := redisstore.New(client)
			l := idempotency.NewLayered(cache, auth, idempotency.WithCacheLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			ctx := context.Background()
			warm := idempotency.Key{Tenant: "t", Tool: "x", Key: "warm"}
			if err := l.Complete(ctx, warm, "fp", []byte(`{"success":true}`), false, time.Now(), time.Hour); err != nil {
				t.Fatalf("complete on a healthy cache: %v", err)
			}
			if got := cache.BreakerState(); got != "closed" {
				t.Fatalf("breaker on a healthy Redis: %s", got)
			}
			if err := proc.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			for i := range 20 {
				k := idempotency.Key{Tenant: "t", Tool: "x", Key: fmt.Sprint("w", i)}
				now := time.Now()
				res, err := l.Claim(ctx, k, "fp", now, time.Minute)
				if err != nil || !res.Claimed {
					t.Fatalf("claim %d: %+v %v", i, res, err)
				}
				if err := l.Complete(ctx, k, "fp", []byte(`{"success":true}`), false, now, time.Hour); err != nil {
					t.Fatalf("complete %d: %v", i, err)
				}
			}
			took := time.Since(start)
			t.Logf("20 keyed writes with a %s cache: %s", tt.name, took)
			if took > 2*time.Second {
				t.Fatalf("20 writes took %s with a %s cache; want under 2 s", took, tt.name)
			}
			if auth.Len() != 21 {
				t.Fatalf("authoritative store holds %d records, want 21", auth.Len())
			}
			if got := cache.BreakerState(); got != "open" {
				t.Fatalf("cache breaker after the outage: %s, want open", got)
			}
			if n := strings.Count(logs.String(), "idempotency cache failing"); n != 1 || !strings.Contains(logs.String(), "level=WARN") {
				t.Fatalf("cache failure logged %d times, want once as a warning:\n%s", n, logs.String())
			}
		})
	}
}

// The deployment the example runs: Redis as the cache in front of
// PostgreSQL. With Redis paused, keyed writes go on through PostgreSQL
// without waiting on the cache, and each key is held by PostgreSQL.
func TestLayeredOverPostgresWritesDoNotWaitOnAHungRedis(t *testing.T) {
	dsn := os.Getenv("MCPWRITE_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("set MCPWRITE_TEST_POSTGRES_DSN to run the PostgreSQL half of this test")
	}
	addr, proc := ownRedis(t)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	auth := pgstore.New(pool, pgstore.WithTable(fmt.Sprintf("idem_outage_%d_%d", os.Getpid(), time.Now().UnixNano()%1_000_000)))
	if err := auth.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = pool.Exec(context.Background(), "DROP TABLE IF EXISTS "+auth.Table()) })
	client := redis.NewClient(redisstore.ClientOptions(addr))
	defer client.Close()
	cache := redisstore.New(client)
	var logs syncBuffer
	l := idempotency.NewLayered(cache, auth, idempotency.WithCacheLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	if err := proc.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for i := range 20 {
		k := idempotency.Key{Tenant: "t", Tool: "x", Key: fmt.Sprint("pg", i)}
		now := time.Now()
		res, err := l.Claim(ctx, k, "fp", now, time.Minute)
		if err != nil || !res.Claimed {
			t.Fatalf("claim %d: %+v %v", i, res, err)
		}
		if err := l.Complete(ctx, k, "fp", []byte(`{"success":true}`), false, now, time.Hour); err != nil {
			t.Fatalf("complete %d: %v", i, err)
		}
	}
	took := time.Since(start)
	t.Logf("20 keyed writes on PostgreSQL with a paused Redis cache: %s", took)
	if took > 2*time.Second {
		t.Fatalf("20 writes took %s with a paused cache; want under 2 s", took)
	}
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM "+auth.Table()+" WHERE state = 2").Scan(&n); err != nil || n != 20 {
		t.Fatalf("PostgreSQL holds %d completed keys (%v), want 20", n, err)
	}
	if got := cache.BreakerState(); got != "open" {
		t.Fatalf("cache breaker: %s, want open", got)
	}
	if c := strings.Count(logs.String(), "idempotency cache failing"); c != 1 {
		t.Fatalf("cache failure logged %d times, want once:\n%s", c, logs.String())
	}
}
