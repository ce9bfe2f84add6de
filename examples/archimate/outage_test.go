package archimate_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/pgdomain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	idempg "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/pgstore"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/redisstore"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
	proposalpg "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal/pgstore"
)

// tcpGate forwards a local port to a target and can cut every connection
// and refuse new ones, as a network partition from the database would.
type tcpGate struct {
	addr, target string
	mu           sync.Mutex
	ln           net.Listener
	conns        []net.Conn
}

func newTCPGate(t *testing.T, target string) *tcpGate {
	g := &tcpGate{target: target}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g.addr = ln.Addr().String()
	g.serve(ln)
	t.Cleanup(g.down)
	return g
}

func (g *tcpGate) serve(ln net.Listener) {
	g.mu.Lock()
	g.ln = ln
	g.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", g.target)
			if err != nil {
				c.Close()
				continue
			}
			g.mu.Lock()
			g.conns = append(g.conns, c, up)
			g.mu.Unlock()
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
}

// down cuts every connection and stops accepting.
func (g *tcpGate) down() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ln != nil {
		g.ln.Close()
		g.ln = nil
	}
	for _, c := range g.conns {
		c.Close()
	}
	g.conns = nil
}

// up accepts again on the same address.
func (g *tcpGate) up(t *testing.T) {
	ln, err := net.Listen("tcp", g.addr)
	if err != nil {
		t.Fatal(err)
	}
	g.serve(ln)
}

// startRedis runs a redis-server of the test's own on port; stop kills it.
func startRedis(t *testing.T, port int) (stop func()) {
	t.Helper()
	cmd := exec.Command("redis-server", "--bind", "127.0.0.1", "--port", fmt.Sprint(port), "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		t.Fatalf("redis-server: %v", err)
	}
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", port)})
	defer c.Close()
	for deadline := time.Now().Add(5 * time.Second); c.Ping(context.Background()).Err() != nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("redis-server did not start")
		}
	}
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}
	t.Cleanup(stop)
	return stop
}

// Redis stopped mid-traffic: writes go on through PostgreSQL with one warning
// and no duplicate. PostgreSQL unreachable: UNAVAILABLE, nothing written or
// claimed. Both back: everything works with no repair, and the database
// holds each write exactly once.
func TestStoreOutagesMidTraffic(t *testing.T) {
	dsn := os.Getenv("MCPWRITE_TEST_POSTGRES_DSN")
	if dsn == "" || os.Getenv("MCPWRITE_TEST_REDIS_ADDR") == "" {
		t.Skip("set MCPWRITE_TEST_POSTGRES_DSN and MCPWRITE_TEST_REDIS_ADDR to run the outage tests")
	}
	ctx := context.Background()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	gate := newTCPGate(t, u.Host)
	u.Host = gate.addr
	pool, err := pgxpool.New(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	direct, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(direct.Close)
	prefix := fmt.Sprintf("outage_%d", time.Now().UnixNano()%1e12)
	t.Cleanup(func() {
		_, _ = direct.Exec(context.Background(), fmt.Sprintf("DROP TABLE IF EXISTS %[1]s_relationships, %[1]s_properties, %[1]s_elements, %[1]s_state, %[1]s_outbox, %[1]s_schema_migrations, %[1]s_idem, %[1]s_proposals CASCADE", prefix))
	})
	idem := idempg.New(pool, idempg.WithTable(prefix+"_idem"))
	props := proposalpg.New(pool, proposalpg.WithTable(prefix+"_proposals"))
	repo, err := pgdomain.New(pool, idem, prefix)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []func(context.Context) error{idem.Migrate, props.Migrate, repo.Migrate} {
		if err := m(ctx); err != nil {
			t.Fatal(err)
		}
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	stopRedis := startRedis(t, port)
	rdb := redis.NewClient(redisstore.ClientOptions(fmt.Sprintf("127.0.0.1:%d", port)))
	t.Cleanup(func() { rdb.Close() })
	var logs bytes.Buffer
	var logMu sync.Mutex
	logger := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		logMu.Lock()
		defer logMu.Unlock()
		return logs.Write(p)
	}), nil))
	store := idempotency.NewLayered(redisstore.New(rdb, redisstore.WithBreaker(3, 200*time.Millisecond)), idem, idempotency.WithCacheLogger(logger))
	s, err := server.New(repo, runtime.WithRequestContextFunc(runtime.StaticRequestContext(devRC)),
		runtime.WithIdempotency(runtime.IdempotencyOptions{Store: store}), runtime.WithProposals(props, 0), runtime.WithLogger(logger))
	if err != nil {
		t.Fatal(err)
	}
	cs := mcptest.Connect(t, s, mcptest.Options{})
	write := func(key string) (map[string]any, bool) {
		return call(t, cs, "createElement", `{"type":"Node","name":"`+key+`","description":"d","client_request_id":"`+key+`"}`)
	}
	mustExecute := func(key string) {
		t.Helper()
		out, isErr := write(key)
		if isErr || out["idempotent_replay"] == true {
			t.Fatalf("%s: want a fresh write, got %v", key, out)
		}
	}
	mustReplay := func(key string) {
		t.Helper()
		out, isErr := write(key)
		if isErr || out["idempotent_replay"] != true {
			t.Fatalf("%s: want a replay, got %v", key, out)
		}
	}

	mustExecute("k1")
	stopRedis() // Redis stops mid-traffic.
	mustExecute("k2")
	mustReplay("k1")
	logMu.Lock()
	warned := strings.Count(logs.String(), "idempotency cache failing")
	logMu.Unlock()
	if warned != 1 {
		t.Fatalf("cache outage logged %d times, want once:\n%s", warned, logs.String())
	}

	gate.down() // PostgreSQL unreachable.
	out, isErr := write("k3")
	e, _ := out["error"].(map[string]any)
	if !isErr || e["code"] != "UNAVAILABLE" || e["message"] != "the idempotency store is unavailable, so nothing was run or written" {
		t.Fatalf("k3 while the database is down: %v", out)
	}

	gate.up(t) // Both come back; no repair.
	startRedis(t, port)
	time.Sleep(250 * time.Millisecond) // the Redis breaker's cooldown
	mustExecute("k3")                  // nothing was claimed while the database was down
	mustExecute("k4")
	mustReplay("k2")
	var elements, outbox, completed int
	if err := direct.QueryRow(ctx, fmt.Sprintf(`SELECT count(*) FROM %s_elements WHERE tenant = 'tenant-acme'`, prefix)).Scan(&elements); err != nil {
		t.Fatal(err)
	}
	if err := direct.QueryRow(ctx, fmt.Sprintf(`SELECT count(*) FROM %s_outbox`, prefix)).Scan(&outbox); err != nil {
		t.Fatal(err)
	}
	if err := direct.QueryRow(ctx, fmt.Sprintf(`SELECT count(*) FROM %s_idem WHERE state = 2`, prefix)).Scan(&completed); err != nil {
		t.Fatal(err)
	}
	if elements != 4 || outbox != 4 || completed != 4 {
		t.Fatalf("database: %d elements, %d outbox rows, %d completed keys; want 4 each (k1..k4 once)", elements, outbox, completed)
	}
	t.Logf("Redis outage and PostgreSQL outage: 4 keys, 7 calls, 0 duplicates, 0 losses (database: %d elements, %d outbox rows, %d completed keys)", elements, outbox, completed)
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
