package bench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// The durable benchmarks need PostgreSQL (MCPWRITE_TEST_POSTGRES_DSN; Redis
// too when MCPWRITE_TEST_REDIS_ADDR is set, as archimate-server -redis
// uses it) and skip without it. They run only under -bench.

// durableTenants is how many tenants the writes spread over.
const durableTenants = 1000

// perClientRound is how many writes each client makes per contender in one
// round; rounds alternate which contender goes first.
const perClientRound = 4

// BenchmarkDurableWrite is a keyed createElement on the server as
// archimate-server -http -stateless -postgres -tokens serves it (streamable
// HTTP on a loopback port, bearer tokens naming the tenant), called by the
// load driver's MCP client (mcpDriver), against the physical floor on the
// same pool: one pgx transaction inserting the element row, the outbox row
// and the idempotency row; and against that floor behind a trivial tool
// served and called the same way (mcp-floor: what any tool on the SDK pays
// on top of the database). Each SDK is a pair of contenders: ours and
// mcp-floor on go-sdk, ours-mcpgo and mcp-floor-mcpgo on mark3labs/mcp-go
// (archimate-server -sdk mcp-go: the same handler stack, stores and HTTP
// front). The writes spread over 1,000 tenants; clients=N runs N
// concurrent clients of each contender; the five contenders take turns in
// rounds of the same size, each round started by the next one. Besides
// calls/s it reports, per write, the PostgreSQL statements (begin and
// commit included; each query of a batch), round trips (a batch is one)
// and commits of each, the Redis commands of ours, the CPU this process
// (load driver, HTTP client and server, MCP server, pgx) spent, and the
// CPU PostgreSQL's backends spent (pg-cpu-us/write, from /proc: the
// backends of this benchmark's pools; only where PostgreSQL runs on this
// machine). On a machine that also runs PostgreSQL, this process's CPU is
// taken from the database.
func BenchmarkDurableWrite(b *testing.B) {
	e := newDurableEnv(b)
	srv := serveStateless(b, e.instance(b, e.pool))
	srvGo := serveStatelessMCPGo(b, e.instanceMCPGo(b, e.pool))
	e.createFloor(b)
	mcpFloor := serveStateless(b, e.mcpFloorServer())
	mcpFloorGo := serveStatelessMCPGo(b, e.mcpFloorServerMCPGo())
	for _, clients := range []int{1, 8, 32} {
		b.Run("clients="+strconv.Itoa(clients), func(b *testing.B) {
			ctx := context.Background()
			tenants := newTenantPicker(durableTenants, clients)
			viaDriver := func(url string, call func(context.Context, *mcpDriver, string) error) func(int) error {
				sessions := drivers(b, url, clients)
				return func(c int) error { return call(ctx, sessions[c], tenants.pick(c)) }
			}
			names := []string{"ours", "floor", "mcp-floor", "ours-mcpgo", "mcp-floor-mcpgo"}
			writes := []func(int) error{
				viaDriver(srv, oursWrite),
				func(c int) error { return e.floorWrite(ctx, tenants.pick(c)) },
				viaDriver(mcpFloor, mcpFloorWrite),
				viaDriver(srvGo, oursWrite),
				viaDriver(mcpFloorGo, mcpFloorWrite),
			}
			logs0 := e.logs.n.Load()
			for _, warm := range writes { // connections, plans, tenants' first rows
				if _, err := drive(clients, perClientRound, warm); err != nil {
					b.Fatal(err)
				}
			}
			sides := make([]contender, len(writes))
			round := 0
			for b.Loop() {
				for i := range sides { // each round starts with the next contender
					j := (round + i) % len(sides)
					sides[j].run(b, e, clients, writes[j])
				}
				round++
			}
			for i := range sides {
				sides[i].report(b, e, names[i], names[i] == "ours" || names[i] == "ours-mcpgo")
			}
			b.ReportMetric(float64(e.logs.n.Load()-logs0), "log-records")
		})
	}
}

// contender accumulates one side's writes, time and store traffic.
type contender struct {
	writes                       int
	elapsed                      time.Duration
	trips, stmts, commits, rcmds int64
	cpu                          time.Duration // this process's CPU (client, server, pgx)
	pgcpu                        time.Duration // PostgreSQL's backends' CPU (pgCPU), when readable
}

// processCPU is the CPU time (user and system) this process used so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func (c *contender) run(b *testing.B, e *durableEnv, clients int, write func(int) error) {
	t0, s0, c0, r0 := e.pg.trips.Load(), e.pg.stmts.Load(), e.pg.commits.Load(), e.redisCmds()
	var pg0 map[int]time.Duration
	if e.pgcpu != nil {
		pg0 = e.pgcpu.snapshot(b)
	}
	cpu0 := processCPU(b)
	d, err := drive(clients, perClientRound, write)
	if err != nil {
		b.Fatal(err)
	}
	c.cpu += processCPU(b) - cpu0
	if e.pgcpu != nil {
		c.pgcpu += e.pgcpu.since(b, pg0)
	}
	c.elapsed += d
	c.writes += clients * perClientRound
	c.trips += e.pg.trips.Load() - t0
	c.stmts += e.pg.stmts.Load() - s0
	c.commits += e.pg.commits.Load() - c0
	c.rcmds += e.redisCmds() - r0
}

func (c *contender) report(b *testing.B, e *durableEnv, name string, redis bool) {
	n := float64(c.writes)
	b.ReportMetric(n/c.elapsed.Seconds(), name+"-calls/s")
	b.ReportMetric(float64(c.stmts)/n, name+"-stmts/write")
	b.ReportMetric(float64(c.trips)/n, name+"-trips/write")
	b.ReportMetric(float64(c.cpu.Microseconds())/n, name+"-go-cpu-us/write")
	b.ReportMetric(float64(c.commits)/n, name+"-commits/write")
	if e.pgcpu != nil {
		b.ReportMetric(float64(c.pgcpu.Microseconds())/n, name+"-pg-cpu-us/write")
	}
	if redis {
		b.ReportMetric(float64(c.rcmds)/n, name+"-redis/write")
	}
}

func (e *durableEnv) redisCmds() int64 {
	if e.redis == nil {
		return 0
	}
	return e.redis.cmds.Load()
}

// growthSize is the large tenant's size (MCPWRITE_BENCH_GROWTH_SIZE
// overrides it for a quick local look; make bench uses the default).
func growthSize(b *testing.B) int {
	if v := os.Getenv("MCPWRITE_BENCH_GROWTH_SIZE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1000 {
			b.Fatalf("MCPWRITE_BENCH_GROWTH_SIZE=%q: want an integer of at least 1000", v)
		}
		return n
	}
	return 100_000
}

// BenchmarkTenantGrowth writes into two tenants of the same tables, one of
// 1,000 elements and one bulk-loaded to 100,000, alternating between them
// one write at a time (one client), and reports each one's p50 and p95
// write latency: the large tenant's p50 against the small one's is the
// cost of a tenant's size.
func BenchmarkTenantGrowth(b *testing.B) {
	e := newDurableEnv(b)
	ctx := context.Background()
	large := growthSize(b)
	srv := serveStateless(b, e.instance(b, e.pool)) // migrates the domain's tables
	if err := e.bulkLoad(ctx, "tenant-small", 1000); err != nil {
		b.Fatal(err)
	}
	if err := e.bulkLoad(ctx, "tenant-large", large); err != nil {
		b.Fatal(err)
	}
	if err := e.analyze(ctx); err != nil {
		b.Fatal(err)
	}
	cs := newDriver(b, srv)
	for range 5 { // warm both tenants
		for _, t := range []string{"tenant-small", "tenant-large"} {
			if err := oursWrite(ctx, cs, t); err != nil {
				b.Fatal(err)
			}
		}
	}
	var small, big []time.Duration
	i := 0
	for b.Loop() {
		order := []string{"tenant-small", "tenant-large"}
		if i%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, t := range order {
			start := time.Now()
			if err := oursWrite(ctx, cs, t); err != nil {
				b.Fatal(err)
			}
			if t == "tenant-small" {
				small = append(small, time.Since(start))
			} else {
				big = append(big, time.Since(start))
			}
		}
		i++
	}
	// What the tenants hold after the run: the sizes the latencies are of.
	for _, t := range []struct {
		tenant string
		min    int
		unit   string
	}{{"tenant-small", 1000, "small-elements"}, {"tenant-large", large, "large-elements"}} {
		n, err := e.elementCount(ctx, t.tenant)
		if err != nil || n < t.min {
			b.Fatalf("%s holds %d elements (%v), want at least %d", t.tenant, n, err, t.min)
		}
		b.ReportMetric(float64(n), t.unit)
	}
	s, l := sortedCopy(small), sortedCopy(big)
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	b.ReportMetric(ms(percentile(s, 50)), "1k-p50-ms")
	b.ReportMetric(ms(percentile(s, 95)), "1k-p95-ms")
	b.ReportMetric(ms(percentile(l, 50)), fmt.Sprintf("%dk-p50-ms", large/1000))
	b.ReportMetric(ms(percentile(l, 95)), fmt.Sprintf("%dk-p95-ms", large/1000))
	b.ReportMetric(float64(len(s)), "writes/size")
}

// instancesClients and instancesConns are the load and the connections of
// BenchmarkInstances, the same in total on either side.
const (
	instancesClients = 24
	instancesConns   = 24
)

// BenchmarkInstances runs 24 clients writing over 1,000 tenants against
// three stateless instances (each its own server, in-process cache and
// pool of 8 connections; clients spread evenly) and against one instance
// with a pool of 24, alternating in rounds. In one process on the same
// cores the three instances share the CPU the one instance has, so the
// ratio shows what splitting costs (coordination through the shared
// stores), not what more machines would add.
func BenchmarkInstances(b *testing.B) {
	e := newDurableEnv(b)
	ctx := context.Background()
	three := make([]*mcpDriver, instancesClients)
	for i := range 3 {
		srv := serveStateless(b, e.instance(b, e.newPool(b, instancesConns/3)))
		for c := i; c < instancesClients; c += 3 {
			three[c] = newDriver(b, srv)
		}
	}
	one := drivers(b, serveStateless(b, e.instance(b, e.newPool(b, instancesConns))), instancesClients)
	tenants := newTenantPicker(durableTenants, instancesClients)
	w3 := func(c int) error { return oursWrite(ctx, three[c], tenants.pick(c)) }
	w1 := func(c int) error { return oursWrite(ctx, one[c], tenants.pick(c)) }
	var t3, t1 contender
	for _, warm := range []func(int) error{w3, w1} {
		if _, err := drive(instancesClients, perClientRound, warm); err != nil {
			b.Fatal(err)
		}
	}
	round := 0
	for b.Loop() {
		if round%2 == 0 {
			t3.run(b, e, instancesClients, w3)
			t1.run(b, e, instancesClients, w1)
		} else {
			t1.run(b, e, instancesClients, w1)
			t3.run(b, e, instancesClients, w3)
		}
		round++
	}
	b.ReportMetric(float64(t3.writes)/t3.elapsed.Seconds(), "three-calls/s")
	b.ReportMetric(float64(t1.writes)/t1.elapsed.Seconds(), "one-calls/s")
}
