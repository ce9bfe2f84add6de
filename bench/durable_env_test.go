package bench

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	mgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/pgdomain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	idempg "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/pgstore"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/redisstore"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpgo"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcphttp"
	proposalpg "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal/pgstore"
)

// The durable benchmarks run against the PostgreSQL (and, when set, Redis)
// of these variables, on tables of their own, dropped at the end.
const (
	benchDSNEnv   = "MCPWRITE_TEST_POSTGRES_DSN"
	benchRedisEnv = "MCPWRITE_TEST_REDIS_ADDR"
	// benchPoolSize is every pool's size: the physical floor and each
	// instance of ours get the same.
	benchPoolSize = 32
)

// pgCounter is a pgx tracer counting round trips (a query, a batch, a
// COPY), statements (each query, each query of a batch; begin and commit
// included) and commits.
type pgCounter struct{ trips, stmts, commits atomic.Int64 }

func (c *pgCounter) statement(sql string) {
	c.stmts.Add(1)
	if strings.EqualFold(strings.TrimSpace(sql), "commit") {
		c.commits.Add(1)
	}
}

func (c *pgCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	c.trips.Add(1)
	c.statement(d.SQL)
	return ctx
}

func (c *pgCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (c *pgCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.trips.Add(1)
	return ctx
}

func (c *pgCounter) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	c.statement(d.SQL)
}

func (c *pgCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

func (c *pgCounter) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceCopyFromStartData) context.Context {
	c.trips.Add(1)
	c.stmts.Add(1)
	return ctx
}

func (c *pgCounter) TraceCopyFromEnd(context.Context, *pgx.Conn, pgx.TraceCopyFromEndData) {}

// redisCounter counts Redis commands (a pipeline counts each command).
type redisCounter struct{ cmds atomic.Int64 }

func (c *redisCounter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *redisCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { c.cmds.Add(1); return next(ctx, cmd) }
}
func (c *redisCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.cmds.Add(int64(len(cmds)))
		return next(ctx, cmds)
	}
}

// durableEnv is one benchmark's database: a table prefix of its own, pools
// that count their statements, and optionally Redis.
type durableEnv struct {
	dsn    string
	prefix string
	pg     *pgCounter
	rdb    *redis.Client // nil without MCPWRITE_TEST_REDIS_ADDR
	redis  *redisCounter
	pool   *pgxpool.Pool // the floor's pool and the first instance's
	// floorInsert inserts the floor's element row.
	floorInsert string
	logs        *logCounter // what the servers logged (warnings, errors)
	pgcpu       *pgCPU      // nil where PostgreSQL's backends cannot be read
}

var benchSeq atomic.Int64

// The secrets every instance shares, as -id-secret-file and
// -signing-key-file give them to archimate-server (-postgres and
// -stateless require both).
var (
	benchIDSecret   = []byte("bench id secret: 0123456789abcdefghijklmnopqrstuvwxyz")
	benchSigningKey = []byte("bench signing key: zyxwvutsrqponmlkjihgfedcba9876543210")
)

// logCounter is the durable benchmarks' slog handler: it counts records
// instead of writing them between benchmark result lines (a warning
// printed there would split a result line from its values).
type logCounter struct{ n atomic.Int64 }

func (c *logCounter) Enabled(context.Context, slog.Level) bool { return true }
func (c *logCounter) Handle(context.Context, slog.Record) error {
	c.n.Add(1)
	return nil
}
func (c *logCounter) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c *logCounter) WithGroup(string) slog.Handler      { return c }

func newDurableEnv(b *testing.B) *durableEnv {
	b.Helper()
	dsn := os.Getenv(benchDSNEnv)
	if dsn == "" {
		b.Skipf("set %s to run the durable benchmarks on PostgreSQL", benchDSNEnv)
	}
	e := &durableEnv{dsn: dsn, prefix: fmt.Sprintf("bench_%d_%d", os.Getpid(), benchSeq.Add(1)), pg: &pgCounter{}, logs: &logCounter{}}
	prev := slog.Default()
	slog.SetDefault(slog.New(e.logs))
	b.Cleanup(func() { slog.SetDefault(prev) })
	e.pool = e.newPool(b, benchPoolSize)
	e.pgcpu = newPGCPU(b, dsn, e.prefix)
	if addr := os.Getenv(benchRedisEnv); addr != "" {
		e.rdb = redis.NewClient(redisstore.ClientOptions(addr))
		e.redis = &redisCounter{}
		e.rdb.AddHook(e.redis)
		b.Cleanup(func() { _ = e.rdb.Close() })
	}
	b.Cleanup(func() { e.dropTables() })
	return e
}

// newPool opens a pool of size connections that counts into e.pg.
func (e *durableEnv) newPool(b *testing.B, size int32) *pgxpool.Pool {
	b.Helper()
	cfg, err := pgxpool.ParseConfig(e.dsn)
	if err != nil {
		b.Fatalf("%s: %v", benchDSNEnv, err)
	}
	cfg.MaxConns = size
	cfg.ConnConfig.Tracer = e.pg
	cfg.ConnConfig.RuntimeParams["application_name"] = e.prefix // pgCPU finds the backends by it
	pgdomain.GenericPlans(cfg)                                  // as archimate-server configures its pool
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	return pool
}

// tables lists the tables of the prefix.
func (e *durableEnv) tables(ctx context.Context) ([]string, error) {
	rows, err := e.pool.Query(ctx, `SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE $1`, e.prefix+`\_%`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// dropTables drops every table of the prefix.
func (e *durableEnv) dropTables() {
	ctx := context.Background()
	names, err := e.tables(ctx)
	if err == nil && len(names) > 0 {
		_, _ = e.pool.Exec(ctx, `DROP TABLE IF EXISTS `+strings.Join(names, ", ")+` CASCADE`)
	}
}

// analyze refreshes the planner statistics of the prefix's tables after a
// bulk load, as autovacuum would shortly after.
func (e *durableEnv) analyze(ctx context.Context) error {
	names, err := e.tables(ctx)
	if err != nil {
		return err
	}
	_, err = e.pool.Exec(ctx, `ANALYZE `+strings.Join(names, ", "))
	return err
}

// instance is one stateless server as archimate-server -postgres [-redis]
// -tokens -id-secret-file -signing-key-file wires it (serveStateless
// serves it as -http -stateless does): the PostgreSQL domain, its idempotency and proposal stores,
// an in-process cache (and Redis) in front of the authoritative store.
// The tenant of each call comes from its bearer token (serveStateless).
func (e *durableEnv) instance(b *testing.B, pool *pgxpool.Pool) *mcp.Server {
	b.Helper()
	repo, opts := e.stack(b, pool)
	s, err := server.New(repo, append(opts, runtime.WithRequestContextFunc(mcphttp.RequestContextFromCall))...)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// instanceMCPGo is instance on a mark3labs/mcp-go server
// (archimate-server -sdk mcp-go): the same domain, stores and options over
// pool, registered through runtime/mcpgo.
func (e *durableEnv) instanceMCPGo(b *testing.B, pool *pgxpool.Pool) *mgoserver.MCPServer {
	b.Helper()
	repo, opts := e.stack(b, pool)
	s, err := server.NewMCPGo(repo, append(opts, runtime.WithRequestContextFunc(mcpgo.RequestContextFromCall))...)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// stack migrates and returns the PostgreSQL domain over pool and the
// options archimate-server gives it: its idempotency and proposal stores,
// an in-process cache (and Redis) in front of the authoritative store, the
// secrets and a counting logger (each instance adds its SDK's request
// context from the bearer token).
func (e *durableEnv) stack(b *testing.B, pool *pgxpool.Pool) (*pgdomain.Repository, []runtime.Option) {
	b.Helper()
	ctx := context.Background()
	idem := idempg.New(pool, idempg.WithTable(e.prefix+"_idem"))
	props := proposalpg.New(pool, proposalpg.WithTable(e.prefix+"_proposals"))
	if err := idem.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	if err := props.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	repo, err := pgdomain.New(pool, idem, e.prefix, pgdomain.WithProposals(props))
	if err != nil {
		b.Fatal(err)
	}
	if err := repo.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	var cache idempotency.Store = idempotency.NewMemoryStore()
	if e.rdb != nil {
		cache = idempotency.NewLayered(cache, redisstore.New(e.rdb, redisstore.WithPrefix(e.prefix+":")))
	}
	return repo, []runtime.Option{
		runtime.WithIdempotency(runtime.IdempotencyOptions{Store: idempotency.NewLayered(cache, idem), TTL: idempotency.DefaultDurableTTL, ClaimInHandler: true}),
		runtime.WithProposals(props, 0),
		runtime.WithSecrets(benchIDSecret, benchSigningKey),
		runtime.WithLogger(slog.New(e.logs)),
	}
}

// createFloor creates the physical floor's tables after the server's
// migrations ran: copies (LIKE ... INCLUDING ALL: columns, defaults,
// constraints, indexes) of the domain's element table, the outbox and the
// idempotency table, so the floor writes the same rows into the same
// physical shape. A domain without an element table (state documents)
// gets a plain element table.
func (e *durableEnv) createFloor(b *testing.B) {
	b.Helper()
	ctx := context.Background()
	p := e.prefix
	var rows bool
	if err := e.pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, p+"_elements").Scan(&rows); err != nil {
		b.Fatal(err)
	}
	elements := `CREATE TABLE ` + p + `_floor_elements (LIKE ` + p + `_elements INCLUDING ALL)`
	e.floorInsert = `INSERT INTO ` + p + `_floor_elements (tenant, id, model_id, type, layer, name, name_key, name_norm, description, version)
VALUES ($1, $2, $3, 'ELEMENT_TYPE_APPLICATION_COMPONENT', 'LAYER_APPLICATION', $4, $5, $6, 'Handles order processing', 1)`
	if !rows {
		elements = `CREATE TABLE ` + p + `_floor_elements (tenant text NOT NULL, id text NOT NULL, model_id text NOT NULL, type text NOT NULL,
    layer text NOT NULL, name text NOT NULL, name_key text NOT NULL, name_norm text NOT NULL, description text NOT NULL DEFAULT '',
    version int NOT NULL, PRIMARY KEY (tenant, id));
CREATE UNIQUE INDEX ON ` + p + `_floor_elements (tenant, model_id, name_key)`
	}
	_, err := e.pool.Exec(ctx, elements+`;
CREATE TABLE `+p+`_floor_outbox (LIKE `+p+`_outbox INCLUDING ALL);
CREATE TABLE `+p+`_floor_idem (LIKE `+p+`_idem INCLUDING ALL)`)
	if err != nil {
		b.Fatal(err)
	}
}

var writeSeq atomic.Int64

// floorWrite is the physical floor of a keyed createElement: one
// transaction inserting the element, its outbox row and its completed
// idempotency row, with the request and answer bodies the tool stores.
func (e *durableEnv) floorWrite(ctx context.Context, tenant string) error {
	_, err := e.floorWriteResp(ctx, tenant)
	return err
}

// floorWriteResp is floorWrite, returning the response it stored.
func (e *durableEnv) floorWriteResp(ctx context.Context, tenant string) (string, error) {
	n := writeSeq.Add(1)
	id := fmt.Sprintf("floor-%d", n)
	name := fmt.Sprintf("Svc-%d", n)
	req := fmt.Sprintf(`{"type":"ApplicationComponent","name":%q,"description":"Handles order processing","client_request_id":"k-%d"}`, name, n)
	resp := fmt.Sprintf(`{"element":{"id":%q,"modelId":"model-%s","type":"ELEMENT_TYPE_APPLICATION_COMPONENT","layer":"LAYER_APPLICATION","name":%q,"description":"Handles order processing","version":1}}`, id, tenant, name)
	return resp, pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		// name_key and name_norm as the domain computes them for "Svc-<n>".
		key := strings.ToLower(name)
		if _, err := tx.Exec(ctx, e.floorInsert, tenant, id, domain.ActiveModel(tenant), name, key, strings.ReplaceAll(key, "-", "")); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO `+e.prefix+`_floor_outbox (tenant, tool, request, response) VALUES ($1, 'createElement', $2, $3)`, tenant, req, resp); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO `+e.prefix+`_floor_idem (tenant_id, tool, client_request_id, fingerprint, state, response_payload, expires_at)
VALUES ($1, 'createElement', $2, 'fp', 2, $3, now() + interval '7 days')`, tenant, fmt.Sprintf("k-%d", n), []byte(resp))
		return err
	})
}

// oursWrite is a keyed createElement through the load driver's client
// as tenant; a tool error is an error.
func oursWrite(ctx context.Context, d *mcpDriver, tenant string) error {
	n := writeSeq.Add(1)
	args := fmt.Sprintf(`{"type":"ApplicationComponent","name":"Svc-%d","description":"Handles order processing","client_request_id":"k-%d"}`, n, n)
	return d.callTool(tenantToken(tenant), "createElement", args)
}

// drive runs perClient writes on each of clients goroutines; write gets
// the client's index. It returns the wall time and the first error.
func drive(clients, perClient int, write func(client int) error) (time.Duration, error) {
	var wg sync.WaitGroup
	var first atomic.Pointer[error]
	start := time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range perClient {
				if err := write(c); err != nil {
					first.CompareAndSwap(nil, &err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if p := first.Load(); p != nil {
		return time.Since(start), *p
	}
	return time.Since(start), nil
}

// tenantPicker picks tenants uniformly from n, one source per client.
type tenantPicker struct {
	n   int
	rng []*rand.Rand
	mu  []sync.Mutex
}

func newTenantPicker(n, clients int) *tenantPicker {
	p := &tenantPicker{n: n, rng: make([]*rand.Rand, clients), mu: make([]sync.Mutex, clients)}
	for i := range p.rng {
		p.rng[i] = rand.New(rand.NewPCG(uint64(i), 42))
	}
	return p
}

func (p *tenantPicker) pick(client int) string {
	p.mu[client].Lock()
	defer p.mu[client].Unlock()
	return fmt.Sprintf("tenant-%04d", p.rng[client].IntN(p.n))
}

// percentile of sorted durations (p in 0..100).
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p / 100 * float64(len(sorted)-1))
	return sorted[i]
}

func sortedCopy(d []time.Duration) []time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s
}

// bulkLoad grows tenant's stored architecture to n elements directly in
// the domain's tables (the way an import or years of use would), so the
// benchmark measures writes into a tenant of that size: element rows when
// the domain stores rows (<prefix>_elements), else the tenant's state
// document.
func (e *durableEnv) bulkLoad(ctx context.Context, tenant string, n int) error {
	model := domain.ActiveModel(tenant)
	var rows bool
	if err := e.pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, e.prefix+"_elements").Scan(&rows); err != nil {
		return err
	}
	if rows {
		// name_key and name_norm as the domain computes them for "Bulk-<n>".
		_, err := e.pool.Exec(ctx, `
INSERT INTO `+e.prefix+`_elements (tenant, id, model_id, type, layer, name, name_key, name_norm, description, version)
SELECT $1, 'bulk-' || g, $2, 'ELEMENT_TYPE_APPLICATION_COMPONENT', 'LAYER_APPLICATION', 'Bulk-' || g, 'bulk-' || g, 'bulk' || g, 'Loaded in bulk', 1
FROM generate_series(1, $3::int) g`, tenant, model, n)
		return err
	}
	_, err := e.pool.Exec(ctx, `
INSERT INTO `+e.prefix+`_state (tenant, state)
SELECT $1, jsonb_build_object(
  'elements', coalesce(jsonb_agg(jsonb_build_object('id', 'bulk-' || g, 'modelId', $2::text, 'type', 'ELEMENT_TYPE_APPLICATION_COMPONENT',
      'layer', 'LAYER_APPLICATION', 'name', 'Bulk-' || g, 'description', 'Loaded in bulk', 'version', 1)), '[]'::jsonb),
  'relationships', '[]'::jsonb, 'born', '{}'::jsonb)
FROM generate_series(1, $3::int) g
ON CONFLICT (tenant) DO UPDATE SET state = EXCLUDED.state`, tenant, model, n)
	return err
}

// elementCount is how many elements tenant has in the domain's tables.
func (e *durableEnv) elementCount(ctx context.Context, tenant string) (int, error) {
	var rows bool
	if err := e.pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, e.prefix+"_elements").Scan(&rows); err != nil {
		return 0, err
	}
	q := `SELECT count(*) FROM ` + e.prefix + `_elements WHERE tenant = $1`
	if !rows {
		q = `SELECT coalesce((SELECT jsonb_array_length(state->'elements') FROM ` + e.prefix + `_state WHERE tenant = $1), 0)`
	}
	var n int
	err := e.pool.QueryRow(ctx, q, tenant).Scan(&n)
	return n, err
}
