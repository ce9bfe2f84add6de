package archimate_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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

// rowsDB is a repository on PostgreSQL with tables of its own (a random
// prefix), wired as archimate-server -postgres wires it.
type rowsDB struct {
	pool   *pgxpool.Pool
	idem   *idempg.Store
	props  *proposalpg.Store
	repo   *pgdomain.Repository
	prefix string
}

// newRowsDB makes the tables (dropped at the end); tracer, when set,
// traces every statement of the pool.
func newRowsDB(t *testing.T, tracer pgx.QueryTracer, propOpts ...proposalpg.Option) *rowsDB {
	t.Helper()
	db := openRowsDB(t, tracer, propOpts...)
	for _, m := range []func(context.Context) error{db.idem.Migrate, db.props.Migrate, db.repo.Migrate} {
		if err := m(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// openRowsDB is newRowsDB before any migration.
func openRowsDB(t *testing.T, tracer pgx.QueryTracer, propOpts ...proposalpg.Option) *rowsDB {
	t.Helper()
	dsn := os.Getenv("MCPWRITE_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("set MCPWRITE_TEST_POSTGRES_DSN to run against PostgreSQL")
	}
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.Tracer = tracer
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	prefix := fmt.Sprintf("rows_%d_%d", time.Now().UnixNano()%1e10, rand.IntN(1<<16))
	db := &rowsDB{pool: pool, prefix: prefix,
		idem:  idempg.New(pool, idempg.WithTable(prefix+"_idem")),
		props: proposalpg.New(pool, append([]proposalpg.Option{proposalpg.WithTable(prefix + "_proposals")}, propOpts...)...)}
	t.Cleanup(func() { dropRows(pool, prefix) })
	if db.repo, err = pgdomain.New(pool, db.idem, prefix, pgdomain.WithProposals(db.props)); err != nil {
		t.Fatal(err)
	}
	return db
}

func dropRows(pool *pgxpool.Pool, prefix string) {
	_, _ = pool.Exec(context.Background(), fmt.Sprintf("DROP TABLE IF EXISTS %[1]s_relationships, %[1]s_properties, %[1]s_elements, %[1]s_state, %[1]s_outbox, %[1]s_schema_migrations, %[1]s_idem, %[1]s_proposals CASCADE", prefix))
}

// session is an MCP client of a server on the repository with the
// production wiring: keys claimed in the write's transaction, cache in
// front of PostgreSQL.
func (db *rowsDB) session(t *testing.T, cache idempotency.Store, opts ...runtime.Option) *mcp.ClientSession {
	t.Helper()
	if cache == nil {
		cache = idempotency.NewMemoryStore()
	}
	s, err := server.New(db.repo, append([]runtime.Option{
		runtime.WithRequestContextFunc(runtime.StaticRequestContext(devRC)),
		runtime.WithIdempotency(runtime.IdempotencyOptions{Store: idempotency.NewLayered(cache, db.idem), TTL: idempotency.DefaultDurableTTL, ClaimInHandler: true}),
		runtime.WithProposals(db.props, 0),
	}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return mcptest.Connect(t, s, mcptest.Options{})
}

func (db *rowsDB) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.pool.QueryRow(context.Background(), strings.ReplaceAll(query, "$P", db.prefix), args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// statements counts the statements a pool sends, by their first word
// (begin, commit, insert, select, ...), batched ones included.
type statements struct {
	mu     sync.Mutex
	on     bool
	byWord map[string]int
	log    []string
	trips  int // round trips: statements sent alone, and batches
}

func (s *statements) note(sql string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.on {
		return
	}
	word := strings.ToLower(strings.Fields(strings.TrimLeft(sql, "( \n\t"))[0])
	s.byWord[word]++
	s.log = append(s.log, strings.Join(strings.Fields(sql), " "))
}

func (s *statements) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	s.note(d.SQL)
	s.trip()
	return ctx
}

func (s *statements) trip() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.on {
		s.trips++
	}
}
func (s *statements) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (s *statements) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	s.trip()
	return ctx
}
func (s *statements) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	s.note(d.SQL)
}
func (s *statements) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// measure counts what f sends.
func (s *statements) measure(f func()) (total int, byWord map[string]int, log []string) {
	s.mu.Lock()
	s.on, s.byWord, s.log, s.trips = true, map[string]int{}, nil, 0
	s.mu.Unlock()
	f()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.on = false
	for _, n := range s.byWord {
		total += n
	}
	return total, s.byWord, s.log
}

// redisCommands counts the commands a Redis client sends.
type redisCommands struct {
	mu sync.Mutex
	n  int
}

func (h *redisCommands) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}
func (h *redisCommands) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.mu.Lock()
		h.n++
		h.mu.Unlock()
		return next(ctx, cmd)
	}
}
func (h *redisCommands) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.mu.Lock()
		h.n += len(cmds)
		h.mu.Unlock()
		return next(ctx, cmds)
	}
}

func (h *redisCommands) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n
}

// A keyed createElement on PostgreSQL is one transaction in one round
// trip: begin, the key's lock, the element row with the outbox row and the
// outcome (written once, completed, in one statement, only where no live
// record holds the key), commit: 4 statements in 1 round trip and 1
// commit, and no Redis command (the write never asks a cache that could
// only miss): one statement fewer than the physical floor (begin, element,
// outbox, outcome, commit), the element, outbox and outcome rows in one of
// them. It reads nothing: its id and its name are checked by their unique
// indexes and its key by the outcome's statement; a create they refuse is
// rolled back and its key's record read, which answers a replay, and
// otherwise runs again reading its footprint (the id, the name in its
// model), which the domain answers. Until then the key's record was read
// first, after its lock (5 statements in 2 round trips), and before that
// its footprint too, in the same statement count. Its replay is the
// write, refused, rollback and the key's record: 5 statements in 3 round
// trips (4 in 2 when the record was read first), nothing written. Before
// the reservation the same write took 7 statements in 4 round trips, and
// 6 before its element row joined the outbox row's statement (the key
// claimed in progress, then updated to completed), and before rows and
// claims in the transaction 8 statements in 2 commits plus a Redis lookup.
func TestStatementsAndCommitsPerKeyedWrite(t *testing.T) {
	addr := os.Getenv("MCPWRITE_TEST_REDIS_ADDR")
	if addr == "" {
		t.Skip("set MCPWRITE_TEST_REDIS_ADDR to run against Redis")
	}
	st := &statements{}
	db := newRowsDB(t, st)
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { rdb.Close() })
	rc := &redisCommands{}
	rdb.AddHook(rc)
	cache := idempotency.NewLayered(idempotency.NewMemoryStore(), redisstore.New(rdb, redisstore.WithPrefix(db.prefix+":")))
	cs := db.session(t, cache)
	mustOK(t, cs, "createElement", `{"type":"Node","name":"warm-up","client_request_id":"warm-up"}`)

	var out map[string]any
	before := rc.count()
	total, byWord, log := st.measure(func() {
		out = mustOK(t, cs, "createElement", `{"type":"Node","name":"db-1","client_request_id":"k-1"}`)
	})
	want := map[string]int{"begin": 1, "select": 1, "with": 1, "commit": 1}
	if total != 4 || fmt.Sprint(byWord) != fmt.Sprint(want) || st.trips != 1 || rc.count() != before {
		t.Fatalf("keyed write: %d statements %v in %d round trips, %d Redis commands; want 4 %v in 1 and none:\n%s", total, byWord, st.trips, rc.count()-before, want, strings.Join(log, "\n"))
	}
	if db.count(t, `SELECT count(*) FROM $P_outbox WHERE tool = 'createElement'`) != 2 || db.count(t, `SELECT count(*) FROM $P_idem WHERE state = 2`) != 2 {
		t.Fatal("the write did not commit its outbox row and its key")
	}
	// The create reads nothing: its one batch is the key's lock alone,
	// then the element row with the outbox row and the outcome written
	// only where no live record holds the key.
	if !strings.HasPrefix(log[1], "SELECT /* takes the key lock of mcpwrite_idempotency_reserve */ true FROM pg_advisory_xact_lock(") ||
		!strings.HasPrefix(log[2], "WITH change AS (INSERT INTO ") || !strings.Contains(log[2], "THEN EXCLUDED.expires_at ELSE mcpwrite_idempotency_lost(") ||
		strings.Contains(log[2], "cur.state = 1") {
		t.Fatalf("keyed write: the batch is not the key's lock, then the rows with the outcome of an unread key:\n%s", strings.Join(log, "\n"))
	}

	total, byWord, log = st.measure(func() {
		again := mustOK(t, cs, "createElement", `{"type":"Node","name":"db-1","client_request_id":"k-1"}`)
		if again["idempotent_replay"] != true || createdIDOf(again) != createdIDOf(out) {
			t.Errorf("replay: %v", again)
		}
	})
	// The replay is the write, refused (its name taken, or its key held),
	// rolled back, then the key's record read: begin, the key's lock, the
	// write, rollback, the record; 5 statements in 3 round trips, nothing
	// written.
	if want := map[string]int{"begin": 1, "select": 2, "with": 1, "rollback": 1}; total != 5 || fmt.Sprint(byWord) != fmt.Sprint(want) || st.trips != 3 ||
		!strings.HasPrefix(log[4], "SELECT fingerprint, state, response_payload") {
		t.Fatalf("replay: %d statements %v in %d round trips; want 5 %v in 3, the key's record last:\n%s", total, byWord, st.trips, want, strings.Join(log, "\n"))
	}
	// A keyed create of a name the model has: its insert fails on the
	// name's unique index and rolls back, the key's record is read (none
	// holds it), and the write runs again reading its footprint (begin,
	// the read with the key's lock, the key's record), which the domain
	// answers as it answers every create of a taken name, and rolls back;
	// the runtime then records that answer as the key's outcome (claim,
	// complete): 11 statements in 7 round trips, no row of the domain
	// written. Reading the footprint first, as before the create skipped
	// its read, took 6 in 4 here.
	total, byWord, log = st.measure(func() {
		taken, isErr := call(t, cs, "createElement", `{"type":"Node","name":"DB-1","client_request_id":"k-3"}`)
		want := map[string]any{
			"code":    "DUPLICATE_NAME",
			"message": "Element 'DB-1' already exists in this model",
			"field":   "name",
			"suggestions": map[string]any{
				"existing_element": map[string]any{"id": createdIDOf(out), "type": "Node"},
				"alternatives":     []any{"DB-12", "DB-1V2", "NewDB-1"},
				"hint":             "Use updateElement to modify the existing element, or choose a different name",
			},
		}
		if diff := cmp.Diff(map[string]any{"success": false, "error": want, "errors": []any{want}}, taken); !isErr || diff != "" {
			t.Errorf("a taken name: isError=%v (-want +got):\n%s", isErr, diff)
		}
	})
	if want := map[string]int{"begin": 2, "select": 4, "with": 2, "insert": 1, "rollback": 2}; total != 11 || fmt.Sprint(byWord) != fmt.Sprint(want) || st.trips != 7 {
		t.Fatalf("a taken name: %d statements %v in %d round trips; want 11 %v in 7:\n%s", total, byWord, st.trips, want, strings.Join(log, "\n"))
	}
	if db.count(t, `SELECT count(*) FROM $P_elements`) != 2 || db.count(t, `SELECT count(*) FROM $P_outbox`) != 2 {
		t.Fatal("a create of a taken name wrote rows")
	}
	// A keyed create with a parent reads the parent alone (by id, with the
	// key's lock), not its own id and name: begin, that read and the key's
	// record, then the element row, the composition with the outbox row
	// and the outcome, and commit: 6 statements in 2 round trips.
	total, byWord, log = st.measure(func() {
		mustOK(t, cs, "createElement", `{"type":"Node","name":"db-1 part","parent_id":"`+createdIDOf(out)+`","client_request_id":"k-4"}`)
	})
	if want := map[string]int{"begin": 1, "select": 2, "insert": 1, "with": 1, "commit": 1}; total != 6 || fmt.Sprint(byWord) != fmt.Sprint(want) || st.trips != 2 ||
		!strings.HasPrefix(log[1], "SELECT /* takes the key lock of mcpwrite_idempotency_reserve */ x.* FROM ( SELECT w.id FROM unnest($2::text[]) w(id)) s(id)") {
		t.Fatalf("keyed create with a parent: %d statements %v in %d round trips; want 6 %v in 2, the parent read alone:\n%s", total, byWord, st.trips, want, strings.Join(log, "\n"))
	}
	// A keyed updateElement: the version it applies to is resolved first
	// (one read of the element), then the transaction: begin, reservation
	// and footprint read in one batch, then the element row, its changed
	// property with the outbox row and the outcome, and commit in one
	// batch.
	total, byWord, log = st.measure(func() {
		mustOK(t, cs, "updateElement", `{"id":"`+createdIDOf(out)+`","description":"d","properties":{"tier":"gold"},"client_request_id":"k-2"}`)
	})
	if want := map[string]int{"begin": 1, "with": 1, "select": 3, "update": 1, "commit": 1}; total != 7 || fmt.Sprint(byWord) != fmt.Sprint(want) || st.trips != 3 {
		t.Fatalf("keyed update: %d statements %v in %d round trips; want 7 %v in 3:\n%s", total, byWord, st.trips, want, strings.Join(log, "\n"))
	}
	t.Logf("keyed createElement: 4 statements (begin, the key's lock, element insert with the outbox row and the outcome, commit) in 1 round trip, 1 commit, 0 Redis commands; replay: 5 (begin, the key's lock, the refused write, rollback, the key's record) in 3; a taken name: 11 in 7; with a parent: 6 in 2; keyed updateElement with a property: 7 in 3 round trips, 1 commit")
}
