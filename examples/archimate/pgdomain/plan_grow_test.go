package pgdomain

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	idempg "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/pgstore"
)

// growModes are the plan_cache_mode settings a server's pool may run
// with; the default, auto, keeps a generic plan after five custom ones.
var growModes = []string{"auto", "force_generic_plan", "force_custom_plan"}

// growReads are the statements of a write whose plan may scan a table:
// the footprint reads (of a create, of a keyed create, which takes its
// key's lock first, of a rename, a delete, a reference), the
// relationships read, and the deletes of one element and one relationship.
var growReads = []string{"create", "createKeyed", "rename", "delete", "reference", "relationships", "deleteElement", "deleteRelationship"}

// growBuffers are the shared buffers (hit + read) each statement touches,
// by plan_cache_mode, planned on the small tables and run on them, then
// run on the grown ones: a few per lookup (the indexes are one level
// deeper when grown), nothing per element of the tenant. A generic plan
// reads a delete's and a reference's footprint by other indexes than a
// custom plan, in fewer buffers. A read that scanned a table would touch
// hundreds (the elements table is 381 pages when grown).
var growBuffers = map[string]map[string][2]int64{
	"auto": {"create": {13, 19}, "createKeyed": {13, 19}, "rename": {14, 20}, "delete": {8, 12}, "reference": {9, 15},
		"relationships": {4, 6}, "deleteElement": {4, 5}, "deleteRelationship": {3, 4}},
	"force_generic_plan": {"create": {13, 19}, "createKeyed": {13, 19}, "rename": {14, 20}, "delete": {6, 9}, "reference": {8, 13},
		"relationships": {4, 6}, "deleteElement": {4, 5}, "deleteRelationship": {3, 4}},
	"force_custom_plan": {"create": {13, 19}, "createKeyed": {13, 19}, "rename": {14, 20}, "delete": {8, 12}, "reference": {9, 15},
		"relationships": {4, 6}, "deleteElement": {4, 5}, "deleteRelationship": {3, 4}},
}

// A write's statements prepared while the tables were small, and never
// analysed, stay index lookups as the tables grow, whatever the pool's
// plan_cache_mode (auto, force_generic_plan, force_custom_plan) and with
// no setting of the pool: each is prepared on 12 elements of one tenant
// and run eight times (past the five custom plans auto tries first), then
// the tables grow to 25,000 elements of five tenants (still never
// analysed) and it runs again. Each statement touches exactly
// growBuffers at both sizes, and reads every relation by an index.
// Written as "tenant = $1 AND id = ANY($2)" (before these statements),
// the footprint reads kept generic plans of sequential scans under auto
// and force_generic_plan: 2,283 to 2,294 buffers each on the grown tables
// (258 for the relationships), as many as the tables' pages.
func TestWritePlansChosenOnSmallTablesStayLookupsAsTheyGrow(t *testing.T) {
	dsn := os.Getenv("MCPWRITE_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("set MCPWRITE_TEST_POSTGRES_DSN to run against PostgreSQL")
	}
	for _, mode := range growModes {
		got := growPlans(t, dsn, mode)
		for _, read := range growReads {
			t.Logf("%s %s: %d buffers on 12 elements, %d on 25,000", mode, read, got[read][0], got[read][1])
			if want := growBuffers[mode][read]; got[read] != want {
				t.Errorf("%s %s: %d buffers on 12 elements and %d on 25,000, want %d and %d",
					mode, read, got[read][0], got[read][1], want[0], want[1])
			}
		}
	}
}

// growPlans prepares the write's statements on small tables, in a schema
// of its own, on a connection with plan_cache_mode mode, and returns the
// buffers each touches on the small tables and after they grew.
func growPlans(t *testing.T, dsn, mode string) map[string][2]int64 {
	t.Helper()
	ctx := context.Background()
	pool := ownSchema(t, dsn, "grow_"+strings.TrimPrefix(mode, "force_"))
	r, err := New(pool, idempg.New(pool), "archimate")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"archimate_elements", "archimate_properties", "archimate_relationships"} {
		if _, err := pool.Exec(ctx, `ALTER TABLE `+table+` SET (autovacuum_enabled = false)`); err != nil {
			t.Fatal(err)
		}
	}
	fillRanges(t, pool, "('t', 1, 12)")
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SET plan_cache_mode = "+mode); err != nil {
		t.Fatal(err)
	}
	rel := footprintOf(&archimatev1.DeleteElementRequest{Id: "el-5"}, false)
	type stmt struct {
		query string
		args  []any
		first string // run before, in the same transaction, not measured
	}
	stmts := map[string]stmt{
		"relationships":      {query: r.sql.loadRelationships, args: []any{"t", nonNil(rel.relIDs), nonNil(rel.attached)}},
		"deleteElement":      {query: r.sql.deleteElement, args: []any{"t", "el-11"}, first: `DELETE FROM archimate_relationships WHERE tenant = 't' AND id IN ('rel-10', 'rel-11')`},
		"deleteRelationship": {query: r.sql.deleteRelationship, args: []any{"t", "rel-3"}},
	}
	for name, req := range map[string]footprint{
		"create":    footprintOf(&archimatev1.CreateElementRequest{Id: "new", ModelId: "m", Name: "Node 9", ParentId: "el-7"}, false),
		"rename":    footprintOf(&archimatev1.UpdateElementRequest{Id: "el-5", Name: ptr("Node 9")}, false),
		"delete":    footprintOf(&archimatev1.DeleteElementRequest{Id: "el-10"}, false),
		"reference": refFootprint("m", "NODE-9"),
	} {
		query, args := r.elementsQuery("t", req)
		stmts[name] = stmt{query: query, args: args}
	}
	// A keyed create's footprint read takes the key's lock first (the
	// idempotency table must exist for it).
	if err := r.idem.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	create := stmts["create"]
	stmts["createKeyed"] = stmt{query: r.sql.loadElementsReserving[lockShare],
		args: append(slices.Clone(create.args), r.idem.ReserveLockArgs(idempotency.Key{Tenant: "t", Tool: "createElement", Key: "k-1"})...)}
	for _, name := range growReads {
		if _, err := conn.Exec(ctx, "PREPARE w_"+name+" AS "+stmts[name].query); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	out := map[string][2]int64{}
	measure := func(size int) {
		for _, name := range growReads {
			n := growExplain(t, conn, mode+" "+name, stmts[name].first, "EXECUTE w_"+name+"("+literals(stmts[name].args)+")")
			v := out[name]
			v[size] = n
			out[name] = v
		}
	}
	for range 8 {
		measure(0)
	}
	fillRanges(t, pool, "('t', 13, 5000), ('o1', 1, 5000), ('o2', 1, 5000), ('o3', 1, 5000), ('o4', 1, 5000)")
	measure(1) // sets the new rows' hint bits, as any first read after a load does
	measure(1)
	return out
}

// growExplain runs first (if any), then execute under EXPLAIN (ANALYZE,
// BUFFERS), in a transaction it rolls back (a delete deletes nothing for
// good), checks
// that every relation is read by an index, and returns the shared buffers
// the execution touched (hit + read).
func growExplain(t *testing.T, conn *pgxpool.Conn, name, first, execute string) int64 {
	t.Helper()
	ctx := context.Background()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if first != "" {
		if _, err := tx.Exec(ctx, first); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	var doc []byte
	if err := tx.QueryRow(ctx, "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+execute).Scan(&doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return explainedBuffers(t, name, doc, "Index Scan", "Index Only Scan", "ModifyTable")
}
