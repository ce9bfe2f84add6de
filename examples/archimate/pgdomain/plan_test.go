package pgdomain

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	idempg "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/pgstore"
)

// A write's reads are index scans whatever the tenant's size: on a tenant
// of 100,000 elements and relationships, the plans PostgreSQL picks for
// the footprint reads (custom and generic, as a prepared statement gets
// after five runs) scan no table.
func TestFootprintReadsUseIndexesAtAnyTenantSize(t *testing.T) {
	dsn := os.Getenv("MCPWRITE_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("set MCPWRITE_TEST_POSTGRES_DSN to run against PostgreSQL")
	}
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	prefix := fmt.Sprintf("plan_%d", time.Now().UnixNano()%1e12)
	r, err := New(pool, idempg.New(pool), prefix)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_, _ = pool.Exec(context.Background(), fmt.Sprintf("DROP TABLE IF EXISTS %[1]s_relationships, %[1]s_properties, %[1]s_elements, %[1]s_outbox, %[1]s_schema_migrations CASCADE", prefix))
	}()
	if err := r.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO $P_elements (tenant, id, model_id, type, layer, name, name_key, name_norm, version)
		 SELECT 't', 'el-'||g, 'm', 'ELEMENT_TYPE_NODE', 'LAYER_TECHNOLOGY', 'Node '||g, 'node '||g, 'node'||g, 1 FROM generate_series(1, 100000) g`,
		`INSERT INTO $P_relationships (tenant, id, type, source_id, target_id)
		 SELECT 't', 'rel-'||g, 'RELATIONSHIP_TYPE_SERVING', 'el-'||g, 'el-'||(g % 100000 + 1) FROM generate_series(1, 100000) g`,
		`ANALYZE $P_elements`, `ANALYZE $P_relationships`,
	} {
		if _, err := pool.Exec(ctx, strings.ReplaceAll(q, "$P", prefix)); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
		if _, err := conn.Exec(ctx, "SET plan_cache_mode = "+mode); err != nil {
			t.Fatal(err)
		}
		for _, q := range []struct {
			name, sql string
			args      []any
		}{
			{"create", strings.Replace(r.sql.loadElements, lockMarker, lockShare, 1), []any{"t", []string{"new", "el-7"}, "m", []string{"node 9"}, []string{}, []string{"node9"}, []string{}}},
			{"rename", strings.Replace(r.sql.loadElements, lockMarker, lockUpdate, 1), []any{"t", []string{"el-5"}, "", []string{}, []string{"node 9"}, []string{}, []string{}}},
			{"delete", strings.Replace(r.sql.loadElements, lockMarker, lockDelete, 1), []any{"t", []string{"el-5"}, "", []string{}, []string{}, []string{}, []string{"el-5"}}},
			{"relationships", r.sql.loadRelationships, []any{"t", []string{"rel-1"}, []string{"el-5"}}},
		} {
			// A prepared statement, as pgx runs it: after five runs
			// PostgreSQL may plan it once for all parameters.
			if _, err := conn.Exec(ctx, "PREPARE footprint AS "+q.sql); err != nil {
				t.Fatal(err)
			}
			rows, err := conn.Query(ctx, "EXPLAIN EXECUTE footprint("+literals(q.args)+")")
			if err != nil {
				t.Fatal(err)
			}
			lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				t.Fatal(err)
			}
			if _, err := conn.Exec(ctx, "DEALLOCATE footprint"); err != nil {
				t.Fatal(err)
			}
			if plan := strings.Join(lines, "\n"); strings.Contains(plan, "Seq Scan") {
				t.Errorf("%s (%s) scans a table:\n%s", q.name, mode, plan)
			}
		}
	}
}

// literals writes args (strings and string lists without quotes) as SQL.
func literals(args []any) string {
	out := make([]string, len(args))
	for i, a := range args {
		switch a := a.(type) {
		case string:
			out[i] = "'" + a + "'"
		case []string:
			out[i] = "ARRAY[" + strings.Join(quoted(a), ", ") + "]::text[]"
		}
	}
	return strings.Join(out, ", ")
}

func quoted(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = "'" + s + "'"
	}
	return out
}
