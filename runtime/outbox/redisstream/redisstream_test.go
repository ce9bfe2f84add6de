package redisstream_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/outbox"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/outbox/internal/testdb"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/outbox/redisstream"
)

var streamSeq atomic.Int64

// newRedis connects to the test Redis or skips; stream returns a key of
// this test's own, deleted at the end.
func newRedis(t *testing.T) (*redis.Client, func() string) {
	t.Helper()
	addr := os.Getenv(testdb.RedisEnv)
	if addr == "" {
		t.Skipf("set %s (e.g. 127.0.0.1:6379) to run the Redis Streams tests", testdb.RedisEnv)
	}
	c := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { _ = c.Close() })
	return c, func() string {
		key := fmt.Sprintf("mcpwrite-test:outbox:%s:%d", testdb.RunID, streamSeq.Add(1))
		t.Cleanup(func() { c.Del(context.Background(), key) })
		return key
	}
}

func TestPublishWritesEveryFieldAndDecodeReadsThemBack(t *testing.T) {
	ctx := context.Background()
	c, stream := newRedis(t)
	key := stream()
	created := time.Date(2026, 11, 27, 4, 5, 6, 789000, time.UTC)
	msgs := []outbox.Message{
		{ID: 7, TxID: 900, Tenant: "t1", Tool: "createElement", Fact: "ElementCreated", Request: []byte(`{"name":"A"}`), Response: []byte(`{"id":"e1"}`), CreatedAt: created},
		{ID: 3, TxID: 901, Tenant: "t2", Tool: "deleteElement", Fact: "ElementDeleted", Request: []byte(`{"id":"e1"}`), Response: []byte(`{}`), CreatedAt: created},
	}
	if err := redisstream.New(c, redisstream.WithStream(key)).Publish(ctx, msgs); err != nil {
		t.Fatal(err)
	}
	entries, err := c.XRange(ctx, key, "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Fatalf("stream has %d entries, want 2", len(entries))
	}
	wantFields := map[string]any{"outbox_id": "7", "txid": "900", "tenant": "t1", "tool": "createElement", "fact": "ElementCreated",
		"request": `{"name":"A"}`, "response": `{"id":"e1"}`, "created_at": "2026-11-27T04:05:06.000789Z"}
	if fmt.Sprint(entries[0].Values) != fmt.Sprint(wantFields) {
		t.Fatalf("entry fields %v\nwant %v", entries[0].Values, wantFields)
	}
	for i, e := range entries {
		got, err := redisstream.Decode(e)
		if err != nil {
			t.Fatal(err)
		}
		w := msgs[i]
		if got.ID != w.ID || got.TxID != w.TxID || got.Tenant != w.Tenant || got.Tool != w.Tool || got.Fact != w.Fact ||
			string(got.Request) != string(w.Request) || string(got.Response) != string(w.Response) || !got.CreatedAt.Equal(w.CreatedAt) {
			t.Errorf("entry %d decoded %+v, want %+v", i, got, w)
		}
	}
}

func TestPublishPerTenantStreams(t *testing.T) {
	ctx := context.Background()
	c, stream := newRedis(t)
	prefix := stream() + ":"
	for _, tenant := range []string{"a", "b"} {
		t.Cleanup(func() { c.Del(context.Background(), prefix+tenant) })
	}
	p := redisstream.New(c, redisstream.WithStreamPerTenant(prefix))
	msg := func(id int64, tenant string) outbox.Message {
		return outbox.Message{ID: id, TxID: uint64(id), Tenant: tenant, Tool: "x", Fact: "X", Request: []byte(`{}`), Response: []byte(`{}`)}
	}
	if err := p.Publish(ctx, []outbox.Message{msg(1, "a"), msg(2, "b"), msg(3, "a")}); err != nil {
		t.Fatal(err)
	}
	for tenant, want := range map[string][]int64{"a": {1, 3}, "b": {2}} {
		entries, err := c.XRange(ctx, prefix+tenant, "-", "+").Result()
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, e := range entries {
			m, err := redisstream.Decode(e)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, m.ID)
		}
		if !slices.Equal(ids, want) || p.Stream(tenant) != prefix+tenant {
			t.Errorf("stream %s holds %v, want %v", p.Stream(tenant), ids, want)
		}
	}
}

func TestPublishToUnreachableRedisFails(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", DialTimeout: 100 * time.Millisecond, MaxRetries: -1})
	defer c.Close()
	err := redisstream.New(c).Publish(context.Background(), []outbox.Message{{ID: 1, Request: []byte(`{}`), Response: []byte(`{}`)}})
	if err == nil || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("Publish to a closed port = %v, want connection refused", err)
	}
}

// A primary without replicas cannot acknowledge a batch on their behalf:
// the publish fails (the relay publishes it again) though the entry is in
// the stream.
func TestWaitReplicasFailsWithoutReplicas(t *testing.T) {
	ctx := context.Background()
	c, stream := newRedis(t)
	info, err := c.Info(ctx, "replication").Result()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(info, "connected_slaves:0") {
		t.Skip("the test Redis has replicas")
	}
	key := stream()
	p := redisstream.New(c, redisstream.WithStream(key), redisstream.WithWaitReplicas(1, 50*time.Millisecond))
	err = p.Publish(ctx, []outbox.Message{{ID: 1, Request: []byte(`{}`), Response: []byte(`{}`)}})
	want := "redisstream: 0 of 1 replicas acknowledged the batch within 50ms; it will be published again"
	if err == nil || err.Error() != want {
		t.Fatalf("Publish = %v\nwant %s", err, want)
	}
	if n, err := c.XLen(ctx, key).Result(); err != nil || n != 1 {
		t.Fatalf("stream length %d (%v), want 1", n, err)
	}
}

func TestDecodeRejectsForeignEntries(t *testing.T) {
	full := func() map[string]any {
		return map[string]any{"outbox_id": "7", "txid": "900", "tenant": "t", "tool": "x", "fact": "X", "request": "{}", "response": "{}", "created_at": "2026-11-27T04:05:06Z"}
	}
	for _, tc := range []struct {
		change func(map[string]any)
		want   string
	}{
		{func(v map[string]any) { delete(v, "fact") }, "redisstream: entry 1-0 has no fact field: not an outbox message"},
		{func(v map[string]any) { v["outbox_id"] = "0" }, `redisstream: entry 1-0: outbox_id "0" is not a positive integer`},
		{func(v map[string]any) { v["outbox_id"] = "x" }, `redisstream: entry 1-0: outbox_id "x" is not a positive integer`},
		{func(v map[string]any) { v["txid"] = "-1" }, `redisstream: entry 1-0: txid "-1" is not an unsigned integer`},
		{func(v map[string]any) { v["request"] = "{" }, "redisstream: entry 1-0 (outbox id 7): request or response is not JSON"},
		{func(v map[string]any) { v["created_at"] = "yesterday" }, `redisstream: entry 1-0: created_at "yesterday": parsing time "yesterday" as "2006-01-02T15:04:05.999999999Z07:00": cannot parse "yesterday" as "2006"`},
	} {
		v := full()
		tc.change(v)
		if _, err := redisstream.Decode(redis.XMessage{ID: "1-0", Values: v}); err == nil || err.Error() != tc.want {
			t.Errorf("Decode = %v\nwant %s", err, tc.want)
		}
	}
}

func TestDedupTakesEachPositionOnce(t *testing.T) {
	var d redisstream.Dedup
	seq := []outbox.Position{{TxID: 5, ID: 9}, {TxID: 6, ID: 2}, {TxID: 5, ID: 9}, {TxID: 6, ID: 2}, {TxID: 6, ID: 3}, {TxID: 7, ID: 1}, {TxID: 6, ID: 3}}
	var took []bool
	for _, p := range seq {
		took = append(took, d.Take(outbox.Message{TxID: p.TxID, ID: p.ID}))
	}
	if want := []bool{true, true, false, false, true, true, false}; !slices.Equal(took, want) {
		t.Fatalf("Take = %v, want %v", took, want)
	}
}

// Environment of the relay child process.
const (
	childEnv     = "MCPWRITE_OUTBOX_RELAY_CHILD"
	childTable   = "MCPWRITE_OUTBOX_RELAY_TABLE"
	childStream  = "MCPWRITE_OUTBOX_RELAY_STREAM"
	childKillAt  = "MCPWRITE_OUTBOX_RELAY_KILL_AT" // "batch:entries"
	childBatchSz = 10
)

// TestMain runs the relay child process of the kill -9 test when asked to.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		relayChild()
	}
	os.Exit(m.Run())
}

// relayChild is the relay process of TestKill9MidBatchLosesNothing: it
// runs a relay whose publisher sends the first entries of batch number
// batch to Redis and then kills the process with SIGKILL, after the XADDs
// and before the delivered mark.
func relayChild() {
	var batch, entries int
	if _, err := fmt.Sscanf(os.Getenv(childKillAt), "%d:%d", &batch, &entries); err != nil {
		log.Fatal(err)
	}
	pool, err := pgxpool.New(context.Background(), os.Getenv(testdb.DSNEnv))
	if err != nil {
		log.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: os.Getenv(testdb.RedisEnv)})
	real := redisstream.New(c, redisstream.WithStream(os.Getenv(childStream)))
	n := 0
	pub := outbox.PublisherFunc(func(ctx context.Context, msgs []outbox.Message) error {
		if n++; n < batch {
			return real.Publish(ctx, msgs)
		}
		if err := real.Publish(ctx, msgs[:entries]); err != nil {
			return err
		}
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	})
	relay, err := outbox.New(pool, os.Getenv(childTable), pub, outbox.WithBatchSize(childBatchSz), outbox.WithPollInterval(10*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	log.Fatalf("the relay was not killed: %v", relay.Run(ctx))
}

// runKilledRelay runs the relay child until it kills itself at killAt.
func runKilledRelay(t *testing.T, table, stream, killAt string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1", childTable+"="+table, childStream+"="+stream, childKillAt+"="+killAt)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("relay child (kill at %s) ended with %v, want SIGKILL; output:\n%s", killAt, err, out)
	}
}

// TestKill9MidBatchLosesNothing: a relay killed after XADD and before the
// delivered mark, once after a whole batch and once in the middle of one,
// loses nothing; the stream holds exactly the copies the kills imply, and a
// consumer deduplicating by outbox position sees each fact once, in every
// tenant's (txid, id) order.
func TestKill9MidBatchLosesNothing(t *testing.T) {
	ctx := context.Background()
	pool := testdb.Pool(t)
	c, stream := newRedis(t)
	key := stream()
	table := testdb.Table(t, pool)
	for i := range 30 {
		if _, err := testdb.Write(ctx, pool, table, []string{"t1", "t2", "t3"}[i%3], i); err != nil {
			t.Fatal(err)
		}
	}
	waitBelowHorizon(t, pool, table)

	runKilledRelay(t, table, key, "1:10") // batch 1 published whole, not marked
	assertState(t, c, pool, key, table, 10, 0)
	runKilledRelay(t, table, key, "2:4") // batch 1 again and marked; 4 of batch 2
	assertState(t, c, pool, key, table, 24, 10)

	relay, err := outbox.New(pool, table, redisstream.New(c, redisstream.WithStream(key)), outbox.WithBatchSize(childBatchSz))
	if err != nil {
		t.Fatal(err)
	}
	// The killed child's backend holds the relay lock until PostgreSQL
	// notices the dead connection: Once answers Busy until then, as it
	// would a live relay's.
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := relay.Once(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if b.Busy && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if b.Delivered == 0 {
			break
		}
	}
	assertState(t, c, pool, key, table, 44, 30)

	entries, err := c.XRange(ctx, key, "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	var d redisstream.Dedup
	seen := map[int64]int{}
	got := map[string][]int64{}
	for _, e := range entries {
		m, err := redisstream.Decode(e)
		if err != nil {
			t.Fatal(err)
		}
		if d.Take(m) {
			seen[m.ID]++
			got[m.Tenant] = append(got[m.Tenant], m.ID)
		}
	}
	want := testdb.Committed(t, pool, table)
	for tenant, ids := range want {
		if !slices.Equal(got[tenant], ids) {
			t.Errorf("%s: consumer took %v, want %v", tenant, got[tenant], ids)
		}
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("outbox id %d taken %d times", id, n)
		}
	}
	if len(seen) != 30 {
		t.Errorf("consumer took %d distinct facts, want 30", len(seen))
	}
}

func waitBelowHorizon(t *testing.T, pool *pgxpool.Pool, table string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var ok bool
		if err := pool.QueryRow(context.Background(), `SELECT max(txid) < pg_snapshot_xmin(pg_current_snapshot()) FROM `+table).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the rows never went below the horizon")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// assertState checks the stream's length and the delivered rows.
func assertState(t *testing.T, c *redis.Client, pool *pgxpool.Pool, key, table string, entries, delivered int) {
	t.Helper()
	n, err := c.XLen(context.Background(), key).Result()
	if err != nil {
		t.Fatal(err)
	}
	var marked int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM `+table+` WHERE delivered_at IS NOT NULL`).Scan(&marked); err != nil {
		t.Fatal(err)
	}
	if n != int64(entries) || marked != delivered {
		t.Fatalf("stream has %d entries and %d rows are marked delivered; want %d and %d", n, marked, entries, delivered)
	}
}
