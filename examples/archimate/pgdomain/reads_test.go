package pgdomain

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	idempg "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/pgstore"
)

// A keyed write's footprint read makes only the lookups its footprint has
// values for (shapedRead, the read of readsReserving without the key's
// lock):
// its generic plan reads no index of a lookup it does not make (a create
// reads an element by id and by name key, not by normalised name or by
// parent), and it reads the same rows, with the same row lock, as
// loadElements making every lookup. Ids given twice read their element
// once.
func TestFootprintReadsMakeOnlyTheirLookups(t *testing.T) {
	dsn := os.Getenv("MCPWRITE_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("set MCPWRITE_TEST_POSTGRES_DSN to run against PostgreSQL")
	}
	ctx := context.Background()
	pool := ownSchema(t, dsn, "reads")
	r, err := New(pool, idempg.New(pool), "archimate")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	fillRanges(t, pool, "('t', 1, 40), ('u', 1, 40)")
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SET plan_cache_mode = force_generic_plan"); err != nil {
		t.Fatal(err)
	}
	for _, read := range []struct {
		name string
		f    footprint
		// indexes the generic plan reads, sorted
		indexes []string
	}{
		{"create", footprintOf(&archimatev1.CreateElementRequest{Id: "el-3", ModelId: "m", Name: "Node 9", ParentId: "el-7"}, false),
			[]string{"archimate_elements_name_key", "archimate_elements_pkey", "archimate_properties_pkey"}},
		{"rename", footprintOf(&archimatev1.UpdateElementRequest{Id: "el-5", Name: ptr("Node 9")}, false),
			[]string{"archimate_elements_name_key", "archimate_elements_pkey", "archimate_properties_pkey"}},
		{"delete", footprintOf(&archimatev1.DeleteElementRequest{Id: "el-19"}, false),
			[]string{"archimate_elements_parent", "archimate_elements_pkey", "archimate_properties_pkey"}},
		{"reference", refFootprint("m", "NODE-9"),
			[]string{"archimate_elements_name_key", "archimate_elements_name_norm", "archimate_elements_pkey", "archimate_properties_pkey"}},
		{"relationship to itself", footprintOf(&archimatev1.CreateRelationshipRequest{Id: "r", SourceId: "el-4", TargetId: "el-4"}, false),
			[]string{"archimate_elements_pkey", "archimate_properties_pkey"}},
	} {
		query, args := r.shapedRead("t", read.f)
		var doc []byte
		if err := conn.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+query, args...).Scan(&doc); err != nil {
			t.Fatalf("%s: %v", read.name, err)
		}
		if got := planIndexes(t, doc); !slices.Equal(got, read.indexes) {
			t.Errorf("%s reads the indexes %v, want %v:\n%s", read.name, got, read.indexes, doc)
		}
		if !strings.Contains(query, read.f.lock) || strings.Contains(query, lockMarker) {
			t.Errorf("%s: the read does not take its row lock %q:\n%s", read.name, read.f.lock, query)
		}
		got := readIDs(t, conn, query, args)
		want := readIDs(t, conn, strings.Replace(r.sql.loadElements, lockMarker, read.f.lock, 1),
			[]any{"t", nonNil(read.f.ids), read.f.model, nonNil(read.f.names), nonNil(read.f.sameModel), nonNil(read.f.norms), nonNil(read.f.parts)})
		if !slices.Equal(got, want) || len(got) == 0 {
			t.Errorf("%s reads %v, loadElements %v", read.name, got, want)
		}
	}
}

// Every keyed write's read takes the key's lock before it reads or locks
// any row, whatever its lookups and row lock: its plan's top is a
// one-time filter on an init plan that calls pg_advisory_xact_lock.
func TestShapedKeyedReadsTakeTheKeyLockFirst(t *testing.T) {
	dsn := os.Getenv("MCPWRITE_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("set MCPWRITE_TEST_POSTGRES_DSN to run against PostgreSQL")
	}
	ctx := context.Background()
	pool := ownSchema(t, dsn, "shapedlock")
	idem := idempg.New(pool)
	if err := idem.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := New(pool, idem, "archimate")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if len(r.sql.readsReserving) != 4*int(readAll+1) {
		t.Fatalf("%d keyed reads, want one per row lock (4) and shape (%d)", len(r.sql.readsReserving), readAll+1)
	}
	type node struct {
		NodeType string `json:"Node Type"`
		Filter   string `json:"One-Time Filter"`
		Parent   string `json:"Parent Relationship"`
		Function string `json:"Function Name"`
		Plans    []node `json:"Plans"`
	}
	f := footprint{ids: []string{"el-5"}, model: "m", names: []string{"node 5"}, norms: []string{"node5"}, sameModel: []string{"node 6"}, parts: []string{"el-5"}}
	for k, query := range r.sql.readsReserving {
		args := append(elementsArgsOf("t", f, k.shape), idem.ReserveLockArgs(idempotency.Key{Tenant: "t", Tool: "createElement", Key: "k-1"})...)
		var doc []byte
		if err := pool.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+query, args...).Scan(&doc); err != nil {
			t.Fatalf("%q, shape %04b: %v", k.lock, k.shape, err)
		}
		var plans []struct {
			Plan node `json:"Plan"`
		}
		if err := json.Unmarshal(doc, &plans); err != nil || len(plans) != 1 {
			t.Fatalf("EXPLAIN answered %s (%v)", doc, err)
		}
		top, lockFirst := plans[0].Plan, false
		for _, c := range top.Plans {
			lockFirst = lockFirst || c.Parent == "InitPlan" && c.NodeType == "Function Scan" && c.Function == "pg_advisory_xact_lock"
		}
		if top.NodeType != "Result" || top.Filter == "" || !lockFirst {
			t.Errorf("%q, shape %04b: the plan does not take the key's lock first:\n%s", k.lock, k.shape, doc)
		}
	}
}

// planIndexes are the indexes an EXPLAIN (FORMAT JSON) answer reads,
// sorted, each once.
func planIndexes(t *testing.T, doc []byte) []string {
	t.Helper()
	var plans []struct {
		Plan planNode `json:"Plan"`
	}
	if err := json.Unmarshal(doc, &plans); err != nil || len(plans) != 1 {
		t.Fatalf("EXPLAIN answered %s (%v)", doc, err)
	}
	var out []string
	var walk func(n planNode)
	walk = func(n planNode) {
		if n.Index != "" && !slices.Contains(out, n.Index) {
			out = append(out, n.Index)
		}
		for _, c := range n.Plans {
			walk(c)
		}
	}
	walk(plans[0].Plan)
	slices.Sort(out)
	return out
}

// readIDs runs a footprint read and returns the ids of the elements it
// read, sorted (an element read twice is there twice).
func readIDs(t *testing.T, conn *pgxpool.Conn, query string, args []any) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), query, args...)
	if err != nil {
		t.Fatal(err)
	}
	got, err := scanElements(rows)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range got.Elements {
		ids = append(ids, e.GetId())
	}
	slices.Sort(ids)
	return ids
}

// One element is inserted by insertElement (its values as parameters),
// several by insertElements (arrays), to the same rows: a born number
// given is kept, else the next of the sequence is taken; properties are
// inserted with it.
func TestOneElementInsertIsInsertElement(t *testing.T) {
	dsn := os.Getenv("MCPWRITE_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("set MCPWRITE_TEST_POSTGRES_DSN to run against PostgreSQL")
	}
	ctx := context.Background()
	pool := ownSchema(t, dsn, "insertone")
	r, err := New(pool, idempg.New(pool), "archimate")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	el := func(id string, props map[string]string) *archimatev1.Element {
		return &archimatev1.Element{Id: id, ModelId: "m", Type: archimatev1.ElementType_ELEMENT_TYPE_NODE, Layer: archimatev1.Layer_LAYER_TECHNOLOGY,
			Name: "Node " + id, Description: "d " + id, ParentId: "", Version: 2, Properties: props}
	}
	for _, step := range []struct {
		els   []*archimatev1.Element
		born  map[string]uint64
		query string
	}{
		{[]*archimatev1.Element{el("a", map[string]string{"owner": "ops", "tier": "1"})}, map[string]uint64{"a": 700}, r.sql.insertElement},
		{[]*archimatev1.Element{el("b", nil)}, nil, r.sql.insertElement},
		{[]*archimatev1.Element{el("c", nil), el("d", map[string]string{"owner": "dev"})}, map[string]uint64{"d": 900}, r.sql.insertElements},
	} {
		b := &pgx.Batch{}
		r.queueInsert(b, "t", step.els, step.born, nil)
		if b.QueuedQueries[0].SQL != step.query {
			t.Errorf("%d elements inserted by %q, want %q", len(step.els), b.QueuedQueries[0].SQL, step.query)
		}
		if err := pool.SendBatch(ctx, b).Close(); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := pool.Query(ctx, `SELECT e.id, e.model_id, e.type, e.layer, e.name, e.name_key, e.name_norm, e.description, e.parent_id, e.version,
  CASE WHEN e.born >= 700 THEN e.born::text ELSE 'seq' END,
  coalesce((SELECT string_agg(p.key || '=' || p.value, ',' ORDER BY p.key) FROM archimate_properties p WHERE p.tenant = e.tenant AND p.element_id = e.id), '')
 FROM archimate_elements e WHERE e.tenant = 't' ORDER BY e.id`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (string, error) {
		v := make([]string, 12)
		var version int32
		err := row.Scan(&v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &version, &v[10], &v[11])
		v[9] = fmt.Sprint(version)
		return strings.Join(v, "|"), err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"a|m|ELEMENT_TYPE_NODE|LAYER_TECHNOLOGY|Node a|node a|nodea|d a||2|700|owner=ops,tier=1",
		"b|m|ELEMENT_TYPE_NODE|LAYER_TECHNOLOGY|Node b|node b|nodeb|d b||2|seq|",
		"c|m|ELEMENT_TYPE_NODE|LAYER_TECHNOLOGY|Node c|node c|nodec|d c||2|seq|",
		"d|m|ELEMENT_TYPE_NODE|LAYER_TECHNOLOGY|Node d|node d|noded|d d||2|900|owner=dev",
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var distinctBorn int
	if err := pool.QueryRow(ctx, `SELECT count(DISTINCT born) FROM archimate_elements WHERE tenant = 't' AND born > 0`).Scan(&distinctBorn); err != nil || distinctBorn != 4 {
		t.Errorf("%d distinct born numbers (%v), want 4", distinctBorn, err)
	}
}
