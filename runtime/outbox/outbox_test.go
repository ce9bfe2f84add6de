package outbox_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/outbox"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/outbox/internal/testdb"
)

// recorder is a publisher that keeps what it was given.
type recorder struct {
	mu   sync.Mutex
	msgs []outbox.Message
	fail func(batch []outbox.Message) (keep int, err error) // nil: accept all
}

func (r *recorder) Publish(_ context.Context, msgs []outbox.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		if keep, err := r.fail(msgs); err != nil {
			r.msgs = append(r.msgs, msgs[:keep]...)
			return err
		}
	}
	r.msgs = append(r.msgs, msgs...)
	return nil
}

func (r *recorder) snapshot() []outbox.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.msgs)
}

// waitFor polls until cond holds or fails the test after 30 s (the
// horizon is cluster-wide: other sessions' transactions can delay it).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// perTenant splits published messages into each tenant's id sequence.
func perTenant(msgs []outbox.Message) map[string][]int64 {
	out := map[string][]int64{}
	for _, m := range msgs {
		out[m.Tenant] = append(out[m.Tenant], m.ID)
	}
	return out
}

func txid(t *testing.T, ctx context.Context, tx pgx.Tx) uint64 {
	t.Helper()
	var s string
	if err := tx.QueryRow(ctx, `SELECT pg_current_xact_id()::text`).Scan(&s); err != nil {
		t.Fatal(err)
	}
	var v uint64
	if _, err := fmt.Sscan(s, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestRelayOrderPerTenantWithConcurrentWritersAndALateCommit: rows of a
// transaction still running are never skipped past, a row with a larger id
// whose transaction started earlier comes first, and every tenant receives
// exactly its committed rows in (txid, id) order.
func TestRelayOrderPerTenantWithConcurrentWritersAndALateCommit(t *testing.T) {
	ctx := context.Background()
	pool := testdb.Pool(t)
	table := testdb.Table(t, pool)
	rec := &recorder{}
	relay, err := outbox.New(pool, table, rec, outbox.WithBatchSize(7), outbox.WithPollInterval(10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if err := relay.Check(ctx); err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	t.Cleanup(stop)
	done := make(chan error, 1)
	go func() { done <- relay.Run(runCtx) }()

	// Before the long transaction: ten committed rows are delivered.
	for i := range 10 {
		if _, err := testdb.Write(ctx, pool, table, []string{"tenant-a", "tenant-b"}[i%2], i); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the first ten rows", func() bool { return len(rec.snapshot()) == 10 })

	// The long transaction writes for tenant-a and stays open; an early
	// transaction takes its txid now but inserts after the writers.
	long, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer long.Rollback(ctx)
	longID, err := testdb.Insert(ctx, long, table, "tenant-a", 1000)
	if err != nil {
		t.Fatal(err)
	}
	early, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer early.Rollback(ctx)
	earlyTx := txid(t, ctx, early)

	writeConcurrently(t, pool, table, 4, 25)
	// An aborted write never appears.
	aborted, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := testdb.Insert(ctx, aborted, table, "tenant-a", -1); err != nil {
		t.Fatal(err)
	}
	if err := aborted.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	earlyID, err := testdb.Insert(ctx, early, table, "tenant-b", 2000)
	if err != nil {
		t.Fatal(err)
	}
	if err := early.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// 110 committed rows wait behind the open transaction: none may go.
	time.Sleep(500 * time.Millisecond)
	if n := len(rec.snapshot()); n != 10 {
		t.Fatalf("published %d rows while a transaction below them was open; want the 10 before it", n)
	}
	if err := long.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// The relay publishes a batch, then marks it: wait for the marks too,
	// or stopping it between the two leaves rows to publish again.
	waitFor(t, "all 112 rows published and marked", func() bool {
		var left int
		err := pool.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE delivered_at IS NULL`).Scan(&left)
		return len(rec.snapshot()) == 112 && err == nil && left == 0
	})
	stop()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v, want context.Canceled", err)
	}

	msgs := rec.snapshot()
	want := testdb.Committed(t, pool, table)
	got := perTenant(msgs)
	for tenant, ids := range want {
		if !slices.Equal(got[tenant], ids) {
			t.Errorf("%s: published %v\nwant (txid, id) order %v", tenant, got[tenant], ids)
		}
	}
	if len(got) != len(want) {
		t.Errorf("published tenants %v, want %v", keys(got), keys(want))
	}
	for i := 1; i < len(msgs); i++ {
		if !msgs[i].Position().After(msgs[i-1].Position()) {
			t.Fatalf("message %d %+v does not come after %+v", i, msgs[i].Position(), msgs[i-1].Position())
		}
	}
	if a := got["tenant-a"]; a[5] != longID {
		t.Errorf("tenant-a: the long transaction's row %d is not first after the 5 earlier rows: %v", longID, a)
	}
	if b := got["tenant-b"]; b[5] != earlyID || msgs[11].TxID != earlyTx {
		t.Errorf("tenant-b: row %d (txid %d, taken before the writers, inserted after them) is not first after the 5 earlier rows: %v", earlyID, earlyTx, b)
	}
	var left int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE delivered_at IS NULL`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("undelivered rows after the relay drained: %d (%v)", left, err)
	}
}

// writeConcurrently commits perWriter rows from each of writers goroutines
// over three tenants.
func writeConcurrently(t *testing.T, pool *pgxpool.Pool, table string, writers, perWriter int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				tenant := []string{"tenant-a", "tenant-b", "tenant-c"}[(w+i)%3]
				if _, err := testdb.Write(context.Background(), pool, table, tenant, w*1000+i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func keys(m map[string][]int64) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestRelayFailedPublishMarksNothingAndRepublishes: a broker that takes
// part of a batch and fails gets the whole batch again; nothing is marked
// before it is accepted.
func TestRelayFailedPublishMarksNothingAndRepublishes(t *testing.T) {
	ctx := context.Background()
	pool := testdb.Pool(t)
	table := testdb.Table(t, pool)
	for i := range 5 {
		if _, err := testdb.Write(ctx, pool, table, "tenant-a", i); err != nil {
			t.Fatal(err)
		}
	}
	failures := 1
	rec := &recorder{fail: func(batch []outbox.Message) (int, error) {
		if failures == 0 {
			return 0, nil
		}
		failures--
		return 3, errors.New("broker refused entry 4")
	}}
	relay, err := outbox.New(pool, table, rec, outbox.WithBatchSize(5))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the rows below the horizon", func() bool {
		b, err := relay.Backlog(ctx)
		return err == nil && b.Undelivered == 5 && horizonPast(ctx, pool, table)
	})
	_, err = relay.Once(ctx)
	if err == nil || !strings.Contains(err.Error(), "outbox: publish 5 messages") || !strings.Contains(err.Error(), "broker refused entry 4") {
		t.Fatalf("Once = %v, want the publish failure", err)
	}
	if b, err := relay.Backlog(ctx); err != nil || b.Undelivered != 5 || b.OldestAge <= 0 {
		t.Fatalf("after a failed publish: backlog %+v (%v), want 5 undelivered with an age", b, err)
	}
	b, err := relay.Once(ctx)
	if err != nil || b != (outbox.Batch{Delivered: 5}) {
		t.Fatalf("second Once = %+v, %v; want 5 delivered", b, err)
	}
	if b, err := relay.Backlog(ctx); err != nil || b != (outbox.Backlog{}) {
		t.Fatalf("after delivery: backlog %+v (%v), want empty", b, err)
	}
	var ids []int64
	for _, m := range rec.snapshot() {
		ids = append(ids, m.ID)
	}
	want := testdb.Committed(t, pool, table)["tenant-a"]
	wantSeen := append(slices.Clone(want[:3]), want...)
	if !slices.Equal(ids, wantSeen) {
		t.Fatalf("broker saw %v, want the first three then the whole batch again: %v", ids, wantSeen)
	}
}

// horizonPast reports whether every row of table is below the horizon.
func horizonPast(ctx context.Context, pool *pgxpool.Pool, table string) bool {
	var ok bool
	err := pool.QueryRow(ctx, `SELECT coalesce(max(txid) < pg_snapshot_xmin(pg_current_snapshot()), true) FROM `+table).Scan(&ok)
	return err == nil && ok
}

// TestRelayOneHolderAtATime: while one relay publishes, another finds the
// lock held and does nothing.
func TestRelayOneHolderAtATime(t *testing.T) {
	ctx := context.Background()
	pool := testdb.Pool(t)
	table := testdb.Table(t, pool)
	if _, err := testdb.Write(ctx, pool, table, "tenant-a", 1); err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	slow := outbox.PublisherFunc(func(context.Context, []outbox.Message) error {
		close(entered)
		<-release
		return nil
	})
	first, err := outbox.New(pool, table, slow)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	second, err := outbox.New(pool, table, rec)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the row below the horizon", func() bool { return horizonPast(ctx, pool, table) })
	res := make(chan outbox.Batch, 1)
	go func() {
		b, err := first.Once(ctx)
		if err != nil {
			t.Error(err)
		}
		res <- b
	}()
	<-entered
	if b, err := second.Once(ctx); err != nil || b != (outbox.Batch{Busy: true}) {
		t.Fatalf("second relay while the first publishes: %+v, %v; want busy", b, err)
	}
	close(release)
	if b := <-res; b != (outbox.Batch{Delivered: 1}) {
		t.Fatalf("first relay: %+v, want 1 delivered", b)
	}
	if b, err := second.Once(ctx); err != nil || b != (outbox.Batch{}) || len(rec.snapshot()) != 0 {
		t.Fatalf("second relay after the first delivered: %+v, %v, published %d; want nothing to do", b, err, len(rec.snapshot()))
	}
}

func TestRelayCheckNamesTheProblem(t *testing.T) {
	ctx := context.Background()
	pool := testdb.Pool(t)
	missing := "outbox_test_missing_" + testdb.RunID
	r, err := outbox.New(pool, missing, &recorder{})
	if err != nil {
		t.Fatal(err)
	}
	want := "outbox: table " + missing + " does not exist in the current schema: start the server on this database once (it migrates the table) or check the table prefix"
	if err := r.Check(ctx); err == nil || err.Error() != want {
		t.Fatalf("Check = %v\nwant %s", err, want)
	}
	old := "outbox_test_old_" + testdb.RunID
	if _, err := pool.Exec(ctx, `CREATE TABLE `+old+` (id bigserial PRIMARY KEY, tenant text NOT NULL, tool text NOT NULL, request jsonb NOT NULL, response jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = pool.Exec(ctx, "DROP TABLE IF EXISTS "+old) })
	r, err = outbox.New(pool, old, &recorder{})
	if err != nil {
		t.Fatal(err)
	}
	want = "outbox: table " + old + ": column txid must be xid8, is missing: the table predates the relay; migrate it"
	if err := r.Check(ctx); err == nil || err.Error() != want {
		t.Fatalf("Check = %v\nwant %s", err, want)
	}
}

func TestNewRejectsBadArguments(t *testing.T) {
	pool := &pgxpool.Pool{}
	for _, tc := range []struct {
		table string
		opts  []outbox.Option
		want  string
	}{
		{"outbox; DROP TABLE x", nil, `outbox: invalid table name "outbox; DROP TABLE x": use lower-case letters, digits and _ (at most 63), not starting with a digit`},
		{"Outbox", nil, `outbox: invalid table name "Outbox": use lower-case letters, digits and _ (at most 63), not starting with a digit`},
		{"outbox", []outbox.Option{outbox.WithBatchSize(0)}, "outbox: batch size (0), poll interval (200ms) and batch timeout (30s) must be positive"},
		{"outbox", []outbox.Option{outbox.WithPollInterval(-time.Second)}, "outbox: batch size (500), poll interval (-1s) and batch timeout (30s) must be positive"},
	} {
		if _, err := outbox.New(pool, tc.table, &recorder{}, tc.opts...); err == nil || err.Error() != tc.want {
			t.Errorf("New(%q) = %v\nwant %s", tc.table, err, tc.want)
		}
	}
	if _, err := outbox.New(pool, "outbox", &recorder{}, outbox.WithFactName(nil)); err == nil || err.Error() != "outbox: WithFactName and WithLogger need a non-nil argument" {
		t.Errorf("New with a nil fact namer = %v", err)
	}
	if _, err := outbox.New(pool, "outbox", nil); err == nil || err.Error() != "outbox: New needs a pool and a publisher" {
		t.Errorf("New without publisher = %v", err)
	}
}

func TestPositionOrder(t *testing.T) {
	for _, tc := range []struct {
		p, q outbox.Position
		want bool
	}{
		{outbox.Position{TxID: 2, ID: 1}, outbox.Position{TxID: 1, ID: 9}, true},
		{outbox.Position{TxID: 1, ID: 9}, outbox.Position{TxID: 2, ID: 1}, false},
		{outbox.Position{TxID: 2, ID: 5}, outbox.Position{TxID: 2, ID: 4}, true},
		{outbox.Position{TxID: 2, ID: 4}, outbox.Position{TxID: 2, ID: 4}, false},
	} {
		if got := tc.p.After(tc.q); got != tc.want {
			t.Errorf("%+v.After(%+v) = %v, want %v", tc.p, tc.q, got, tc.want)
		}
	}
}
