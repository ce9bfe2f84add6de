package pgstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// planModes are the plan_cache_mode settings a pool may run with; auto,
// the default, keeps a generic plan after five custom ones.
var planModes = []string{"auto", "force_generic_plan", "force_custom_plan"}

// keyedStatements are the store's statements that name one proposal by id,
// with the arguments each runs with (SQL literals).
func (s *Store) keyedStatements() map[string]struct{ query, args string } {
	return map[string]struct{ query, args string }{
		"get":     {s.qGet, `'p-5', 't', 'u'`},
		"begin":   {s.qBegin, `'p-5', 't', 'u', now(), now()`},
		"discard": {s.qDiscard, `'p-5', 't', 'u', now()`},
		"finish":  {s.qFinish, `'p-5', '\x00'::bytea, false`},
		"abort":   {s.qAbort, `'p-5'`},
		"state":   {s.qState, `'p-5'`},
	}
}

// The statements that name one proposal by id read it by the primary key,
// whatever plan PostgreSQL keeps for them: each is prepared while the table
// holds 12 proposals of one owner, never analysed, and run eight times
// (past the five custom plans auto tries first), then the table grows to
// 20,012 proposals, 10,012 of that same owner (still never analysed), and
// it runs again. The owner index (tenant, principal) looks as selective
// as the key on a table never analysed: a plan that read by it would read
// every proposal of the owner (hundreds of buffers once grown).
func TestKeyedStatementsReadByPrimaryKeyAsTheTableGrows(t *testing.T) {
	dsn := os.Getenv("MCPWRITE_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("set MCPWRITE_TEST_POSTGRES_DSN to run the PostgreSQL proposal store tests")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(ctx) }()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	table := "mcpwrite_proposals_plan_" + hex.EncodeToString(b)
	t.Cleanup(func() {
		_, _ = conn.Exec(context.Background(), `DROP TABLE IF EXISTS `+table)
		_, _ = conn.Exec(context.Background(), `DROP FUNCTION IF EXISTS `+table+`_cleanup(timestamptz)`)
	})
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	s := New(pool, WithTable(table))
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	fill := func(from, to int, tenant string) {
		t.Helper()
		if _, err := conn.Exec(ctx, `INSERT INTO `+table+` (id, tenant, principal, tool, created_at, expires_at, state)
SELECT 'p-' || g, $3, 'u', 'createElement', now(), now() + interval '1 day', 1 FROM generate_series($1::int, $2::int) g`, from, to, tenant); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := conn.Exec(ctx, `ALTER TABLE `+table+` SET (autovacuum_enabled = false)`); err != nil {
		t.Fatal(err)
	}
	fill(1, 12, "t")
	stmts := s.keyedStatements()
	buffers := map[string][2]int64{}
	measure := func(size int) {
		for _, mode := range planModes {
			for name, st := range stmts {
				key := mode + " " + name
				v := buffers[key]
				v[size] = explainPK(t, conn, key, table+"_pkey", "EXECUTE "+prepared(mode, name)+"("+st.args+")")
				buffers[key] = v
			}
		}
	}
	for _, mode := range planModes {
		if _, err := conn.Exec(ctx, "SET plan_cache_mode = "+mode); err != nil {
			t.Fatal(err)
		}
		for name, st := range stmts {
			if _, err := conn.Exec(ctx, "PREPARE "+prepared(mode, name)+" AS "+st.query); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		for range 8 {
			for name, st := range stmts {
				explainPK(t, conn, mode+" "+name, table+"_pkey", "EXECUTE "+prepared(mode, name)+"("+st.args+")")
			}
		}
	}
	measure(0)
	fill(13, 10012, "t")
	fill(10013, 20012, "other")
	measure(1) // sets the new rows' hint bits, as any first read after a load does
	measure(1)
	for _, mode := range planModes {
		for name := range stmts {
			got := buffers[mode+" "+name]
			t.Logf("%s %s: %d buffers on 12 proposals, %d on 20,012", mode, name, got[0], got[1])
			if want := keyedBuffers[name]; got != want {
				t.Errorf("%s %s: %d buffers on 12 proposals and %d on 20,012, want %d and %d", mode, name, got[0], got[1], want[0], want[1])
			}
		}
	}
}

// keyedBuffers are the shared buffers (hit + read) each keyed statement
// touches on 12 proposals and on 20,012, in every plan_cache_mode: a
// lookup of the primary key (one level deeper when grown), and for begin
// and discard the row they change. Read by the owner index (tenant,
// principal), as every mode planned them when the owner was compared with
// "=", get touched 124 on the grown table and begin and discard 126.
var keyedBuffers = map[string][2]int64{
	"get": {2, 3}, "begin": {4, 5}, "discard": {4, 5}, "finish": {2, 3}, "abort": {2, 3}, "state": {2, 3},
}

func prepared(mode, name string) string { return "plan_" + mode + "_" + name }

// explainPK runs execute under EXPLAIN (ANALYZE, BUFFERS) in a transaction
// it rolls back, fails the test where the table is read other than by an
// index scan of pkey, and returns the shared buffers it touched.
func explainPK(t *testing.T, conn *pgx.Conn, name, pkey, execute string) int64 {
	t.Helper()
	ctx := context.Background()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	var doc []byte
	if err := tx.QueryRow(ctx, "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+execute).Scan(&doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	type node struct {
		NodeType  string `json:"Node Type"`
		Relation  string `json:"Relation Name"`
		Index     string `json:"Index Name"`
		SharedHit int64  `json:"Shared Hit Blocks"`
		SharedRd  int64  `json:"Shared Read Blocks"`
		Plans     []node `json:"Plans"`
	}
	var plans []struct {
		Plan node `json:"Plan"`
	}
	if err := json.Unmarshal(doc, &plans); err != nil || len(plans) != 1 {
		t.Fatalf("%s: EXPLAIN answered %s (%v)", name, doc, err)
	}
	var walk func(n node)
	walk = func(n node) {
		if n.Relation != "" && n.NodeType != "ModifyTable" && (n.NodeType != "Index Scan" || n.Index != pkey) {
			t.Errorf("%s reads %s by %s %s, not by its primary key:\n%s", name, n.Relation, n.NodeType, n.Index, doc)
		}
		for _, c := range n.Plans {
			walk(c)
		}
	}
	walk(plans[0].Plan)
	return plans[0].Plan.SharedHit + plans[0].Plan.SharedRd
}
