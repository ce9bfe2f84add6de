package pgdomain

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	idempg "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/pgstore"
)

// A keyed write's footprint read takes the key's lock before it reads or
// locks any row, whatever row lock it takes: its plan's top is a one-time
// filter on an init plan that calls pg_advisory_xact_lock, so two calls of
// one key never hold each other's rows while they wait for the key.
func TestKeyedFootprintReadTakesTheKeyLockFirst(t *testing.T) {
	dsn := os.Getenv("MCPWRITE_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("set MCPWRITE_TEST_POSTGRES_DSN to run against PostgreSQL")
	}
	ctx := context.Background()
	pool := ownSchema(t, dsn, "keyedlock")
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
	fillRanges(t, pool, "('t', 1, 12)")
	type node struct {
		NodeType string `json:"Node Type"`
		Filter   string `json:"One-Time Filter"`
		Parent   string `json:"Parent Relationship"`
		Function string `json:"Function Name"`
		Plans    []node `json:"Plans"`
	}
	if len(r.sql.loadElementsReserving) != 4 {
		t.Fatalf("%d reserving footprint reads, want one per row lock (4)", len(r.sql.loadElementsReserving))
	}
	for lock, query := range r.sql.loadElementsReserving {
		_, args := r.elementsQuery("t", footprint{ids: []string{"el-5"}, model: "m", names: []string{"node 5"}, lock: lock})
		args = append(args, idem.ReserveLockArgs(idempotency.Key{Tenant: "t", Tool: "createElement", Key: "k-1"})...)
		var doc []byte
		if err := pool.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+query, args...).Scan(&doc); err != nil {
			t.Fatalf("lock %q: %v", lock, err)
		}
		var plans []struct {
			Plan node `json:"Plan"`
		}
		if err := json.Unmarshal(doc, &plans); err != nil || len(plans) != 1 {
			t.Fatalf("lock %q: EXPLAIN answered %s (%v)", lock, doc, err)
		}
		top := plans[0].Plan
		var init *node
		for i, c := range top.Plans {
			if c.Parent == "InitPlan" {
				init = &top.Plans[i]
			}
		}
		if top.NodeType != "Result" || top.Filter == "" || init == nil || init.NodeType != "Function Scan" || init.Function != "pg_advisory_xact_lock" {
			t.Errorf("lock %q: the plan does not take the key's lock first (want a Result whose one-time filter is an init plan scanning pg_advisory_xact_lock):\n%s", lock, doc)
		}
	}
}
