package pgstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// planModes are the plan_cache_mode settings a pool may run with; auto,
// the default, keeps a generic plan after five custom ones.
var planModes = []string{"auto", "force_generic_plan", "force_custom_plan"}

// keyedBuffers are the shared buffers (hit + read) each statement of one
// key touches on 12 records and on 20,012, in every plan_cache_mode: a
// lookup of the primary key, one level deeper when grown (claim and
// complete find the key held by a completed record, by the key's index as
// their conflict check and then, for claim, by its read of the record:
// they change nothing).
var keyedBuffers = map[string][2]int64{
	"claim": {5, 7}, "complete": {3, 4}, "release": {2, 3}, "get": {2, 3}, "held": {2, 3},
}

// The statements of one key read it by the primary key, whatever plan
// PostgreSQL keeps for them (the stores share a pool whose
// plan_cache_mode the application chooses): each is prepared while the
// table holds 12 records of one tenant, never analysed, and run eight
// times (past the five custom plans auto tries first), then the table
// grows to 20,012 records, 10,012 of that tenant and tool (still never
// analysed), and it runs again.
func TestKeyedStatementsReadByPrimaryKeyAsTheTableGrows(t *testing.T) {
	dsn := os.Getenv("MCPWRITE_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("set MCPWRITE_TEST_POSTGRES_DSN to run against PostgreSQL")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(ctx) }()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	table := "idem_plan_" + hex.EncodeToString(b)
	t.Cleanup(func() { _, _ = conn.Exec(context.Background(), `DROP TABLE IF EXISTS `+table) })
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	s := New(pool, WithTable(table))
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `ALTER TABLE `+table+` SET (autovacuum_enabled = false)`); err != nil {
		t.Fatal(err)
	}
	fill := func(from, to int, tenant string) {
		t.Helper()
		if _, err := conn.Exec(ctx, `INSERT INTO `+table+` (tenant_id, tool, client_request_id, fingerprint, state, response_payload, expires_at)
SELECT $3, 'createElement', 'k-' || g, 'fp', 2, '\x7b7d'::bytea, now() + interval '1 day' FROM generate_series($1::int, $2::int) g`, from, to, tenant); err != nil {
			t.Fatal(err)
		}
	}
	fill(1, 12, "t")
	key := `'t', 'createElement', 'k-5'`
	stmts := map[string]struct{ query, args string }{
		"claim":    {s.claimSQL, key + `, 'fp', now(), now() + interval '1 minute'`},
		"complete": {s.doneSQL, key + `, 'fp', '\x7b7d'::bytea, false, now(), now() + interval '1 day'`},
		"release":  {s.relSQL, key + `, 'fp'`},
		"get":      {s.getSQL, key + `, now()`},
		"held":     {fmt.Sprintf(quotaHeldSQL, s.ident), key},
	}
	prepared := func(mode, name string) string { return "plan_" + mode + "_" + name }
	run := func(mode, name string) int64 {
		st := stmts[name]
		return explainPK(t, conn, mode+" "+name, table+"_pkey", "EXECUTE "+prepared(mode, name)+"("+st.args+")")
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
			for name := range stmts {
				run(mode, name)
			}
		}
	}
	buffers := map[string][2]int64{}
	measure := func(size int) {
		for _, mode := range planModes {
			for name := range stmts {
				v := buffers[mode+" "+name]
				v[size] = run(mode, name)
				buffers[mode+" "+name] = v
			}
		}
	}
	measure(0)
	fill(13, 10012, "t")
	fill(1, 10000, "other")
	measure(1) // sets the new rows' hint bits, as any first read after a load does
	measure(1)
	for _, mode := range planModes {
		for name := range stmts {
			got := buffers[mode+" "+name]
			t.Logf("%s %s: %d buffers on 12 records, %d on 20,012", mode, name, got[0], got[1])
			if want := keyedBuffers[name]; got != want {
				t.Errorf("%s %s: %d buffers on 12 records and %d on 20,012, want %d and %d", mode, name, got[0], got[1], want[0], want[1])
			}
		}
	}
}

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
		if n.Relation != "" && n.NodeType != "ModifyTable" && (n.NodeType != "Index Scan" && n.NodeType != "Index Only Scan" || n.Index != pkey) {
			t.Errorf("%s reads %s by %s %s, not by its primary key:\n%s", name, n.Relation, n.NodeType, n.Index, doc)
		}
		for _, c := range n.Plans {
			walk(c)
		}
	}
	walk(plans[0].Plan)
	return plans[0].Plan.SharedHit + plans[0].Plan.SharedRd
}
