package pgdomain

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	idempg "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/pgstore"
)

// noStatsOthers is how many elements each of the four other tenants holds.
const noStatsOthers = 5000

// noStatsBound is the most shared buffers (hit + read) each read of a
// write may touch on tables never analysed, at any tenant size: what the
// lookups of its ids, names, parents and ends cost, and nothing per
// element of the tenant. The relationships read looks up the relationships
// from and to an element by two index lookups (6 buffers) where a bitmap
// of both indexes took 5: a bitmap is a plan a generic plan made on small
// tables could leave for a scan.
var noStatsBound = map[string]int64{
	"create": 19, "rename": 20, "delete": 12, "reference": 15, "relationships": 6,
}

// A write's reads cost the same at 200 and at 5,000 elements in the tenant
// on tables that were never analysed (no ANALYZE, autovacuum off on them),
// planned custom or generic: every relation is read by an index lookup
// (no Seq Scan, no scan of the tenant), and the shared buffers each read
// touches are the same at both sizes and within noStatsBound.
func TestFootprintReadsWithoutStatisticsCostTheSameAtAnyTenantSize(t *testing.T) {
	dsn := os.Getenv("MCPWRITE_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("set MCPWRITE_TEST_POSTGRES_DSN to run against PostgreSQL")
	}
	got := map[string]int64{} // "<mode> <read> <size>" -> buffers
	for _, size := range []int{200, 5000} {
		for key, n := range noStatsBuffers(t, dsn, size) {
			got[fmt.Sprintf("%s %d", key, size)] = n
		}
	}
	for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
		for _, read := range []string{"create", "rename", "delete", "reference", "relationships"} {
			small, large := got[fmt.Sprintf("%s %s 200", mode, read)], got[fmt.Sprintf("%s %s 5000", mode, read)]
			t.Logf("%s %s: %d buffers at 200 elements, %d at 5,000", mode, read, small, large)
			if large != small {
				t.Errorf("%s %s: %d buffers at 5,000 elements, %d at 200: the cost grows with the tenant", mode, read, large, small)
			}
			if large > noStatsBound[read] || small > noStatsBound[read] {
				t.Errorf("%s %s: %d and %d buffers, over the bound of %d", mode, read, small, large, noStatsBound[read])
			}
		}
	}
}

// noStatsBuffers loads a tenant of size elements (and four other tenants)
// into a schema of its own, never analysed, and returns the buffers each
// footprint read touches, by "<plan_cache_mode> <read>".
func noStatsBuffers(t *testing.T, dsn string, size int) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	pool := ownSchema(t, dsn, fmt.Sprintf("nostats_%d", size))
	r, err := New(pool, idempg.New(pool), "archimate")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	loadNoStats(t, pool, size)
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	rel := footprintOf(&archimatev1.DeleteElementRequest{Id: "el-5"}, false)
	out := map[string]int64{}
	for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
		if _, err := conn.Exec(ctx, "SET plan_cache_mode = "+mode); err != nil {
			t.Fatal(err)
		}
		for _, read := range []struct {
			name string
			f    footprint
		}{
			{"create", footprintOf(&archimatev1.CreateElementRequest{Id: "new", ModelId: "m", Name: "Node 9", ParentId: "el-7"}, false)},
			{"rename", footprintOf(&archimatev1.UpdateElementRequest{Id: "el-5", Name: ptr("Node 9")}, false)},
			{"delete", footprintOf(&archimatev1.DeleteElementRequest{Id: "el-10"}, false)},
			{"reference", refFootprint("m", "NODE-9")},
		} {
			query, args := r.elementsQuery("t", read.f)
			out[mode+" "+read.name] = explainBuffers(t, conn, mode+" "+read.name, query, args)
		}
		out[mode+" relationships"] = explainBuffers(t, conn, mode+" relationships", r.sql.loadRelationships, []any{"t", nonNil(rel.relIDs), nonNil(rel.attached)})
	}
	return out
}

// ownSchema creates a schema of the test's own (dropped at its end) and
// returns a pool whose search_path is that schema.
func ownSchema(t *testing.T, dsn, name string) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	schema := fmt.Sprintf("%s_%d", name, time.Now().UnixNano()%1e12)
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = admin.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		_ = admin.Close(context.Background())
	})
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	pool, err := pgxpool.New(ctx, dsn+sep+"search_path="+schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func ptr(s string) *string { return &s }

// loadNoStats fills the tables, autovacuum off on them and never
// analysed: tenant t holds size elements (every tenth the part of the one
// before, each with a property and a relationship to the next), and four
// other tenants noStatsOthers each with the same ids.
func loadNoStats(t *testing.T, pool *pgxpool.Pool, size int) {
	t.Helper()
	for _, table := range []string{"archimate_elements", "archimate_properties", "archimate_relationships"} {
		if _, err := pool.Exec(context.Background(), `ALTER TABLE `+table+` SET (autovacuum_enabled = false)`); err != nil {
			t.Fatal(err)
		}
	}
	fillNoStats(t, pool, size)
}

// fillNoStats fills the tables as loadNoStats does, without altering them
// (an ALTER would make PostgreSQL plan prepared statements again), and
// checks that none has statistics.
func fillNoStats(t *testing.T, pool *pgxpool.Pool, size int) {
	t.Helper()
	fillRanges(t, pool, fmt.Sprintf("('t', 1, %d), ('o1', 1, %[2]d), ('o2', 1, %[2]d), ('o3', 1, %[2]d), ('o4', 1, %[2]d)", size, noStatsOthers))
}

// fillRanges adds, for each (tenant, lo, hi) of ranges (SQL row values),
// the elements el-lo to el-hi of the tenant (every tenth the part of the
// one before), a property of every element that has none, and a
// relationship from each element to the next where both exist; then it
// checks that no table has statistics.
func fillRanges(t *testing.T, pool *pgxpool.Pool, ranges string) {
	t.Helper()
	ctx := context.Background()
	for _, q := range []string{
		`INSERT INTO archimate_elements (tenant, id, model_id, type, layer, name, name_key, name_norm, version, parent_id)
		 SELECT ts.t, 'el-'||g, 'm', 'ELEMENT_TYPE_NODE', 'LAYER_TECHNOLOGY', 'Node '||g, 'node '||g, 'node'||g, 1,
		        CASE WHEN g % 10 = 0 THEN 'el-'||(g-1) ELSE '' END
		 FROM (VALUES ` + ranges + `) ts(t, lo, hi), generate_series(ts.lo, ts.hi) g`,
		`INSERT INTO archimate_properties (tenant, element_id, key, value) SELECT tenant, id, 'owner', 'ops' FROM archimate_elements
		 ON CONFLICT DO NOTHING`,
		`INSERT INTO archimate_relationships (tenant, id, type, source_id, target_id)
		 SELECT e.tenant, 'rel-'||substr(e.id, 4), 'RELATIONSHIP_TYPE_SERVING', e.id, n.id FROM archimate_elements e
		 JOIN archimate_elements n ON n.tenant = e.tenant AND n.id = 'el-'||(substr(e.id, 4)::int + 1)
		 ON CONFLICT DO NOTHING`,
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	var analysed int
	err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
		WHERE s.schemaname = current_schema() AND (s.last_analyze IS NOT NULL OR s.last_autoanalyze IS NOT NULL OR c.reltuples >= 0)`).Scan(&analysed)
	if err != nil {
		t.Fatal(err)
	}
	if analysed != 0 {
		t.Fatalf("%d tables have statistics; the test needs tables never analysed", analysed)
	}
}

// planNode is a node of EXPLAIN (FORMAT JSON).
type planNode struct {
	NodeType  string     `json:"Node Type"`
	Relation  string     `json:"Relation Name"`
	Index     string     `json:"Index Name"`
	SharedHit int64      `json:"Shared Hit Blocks"`
	SharedRd  int64      `json:"Shared Read Blocks"`
	Plans     []planNode `json:"Plans"`
}

// explainBuffers runs query as a prepared statement under EXPLAIN
// (ANALYZE, BUFFERS) in a transaction it rolls back, checks that every
// relation is read by an index (a Bitmap Heap Scan's bitmaps are index
// scans too; the tenant listing index is refused), and returns the shared buffers
// the execution touched (hit + read, planning not counted).
func explainBuffers(t *testing.T, conn *pgxpool.Conn, name, query string, args []any) int64 {
	t.Helper()
	ctx := context.Background()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, "PREPARE footprint AS "+query); err != nil {
		t.Fatal(err)
	}
	var doc []byte
	if err := tx.QueryRow(ctx, "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE footprint("+literals(args)+")").Scan(&doc); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "DEALLOCATE footprint"); err != nil {
		t.Fatal(err)
	}
	return explainedBuffers(t, name, doc, "Index Scan", "Index Only Scan", "Bitmap Heap Scan")
}

// explainedBuffers reads an EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) answer:
// it fails the test where a node reads a table other than by the node types
// given, or through a listing index, and returns the shared buffers the
// statement touched.
func explainedBuffers(t *testing.T, name string, doc []byte, lookups ...string) int64 {
	t.Helper()
	lookup := map[string]bool{}
	for _, l := range lookups {
		lookup[l] = true
	}
	var plans []struct {
		Plan planNode `json:"Plan"`
	}
	if err := json.Unmarshal(doc, &plans); err != nil || len(plans) != 1 {
		t.Fatalf("%s: EXPLAIN answered %s (%v)", name, doc, err)
	}
	var walk func(n planNode)
	walk = func(n planNode) {
		if n.Relation != "" && !lookup[n.NodeType] || strings.HasSuffix(n.Index, "_listing") {
			t.Errorf("%s reads %s by %s %s, not an index lookup:\n%s", name, n.Relation, n.NodeType, n.Index, doc)
		}
		for _, c := range n.Plans {
			walk(c)
		}
	}
	walk(plans[0].Plan)
	return plans[0].Plan.SharedHit + plans[0].Plan.SharedRd
}
