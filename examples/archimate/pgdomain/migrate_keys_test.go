package pgdomain

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	idempg "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/pgstore"
)

// keyedIndexes are the domain tables' indexes at schema version 4: none
// leads with the tenant but the listing of a tenant's elements, which only
// a query that says born > 0 can use.
const keyedIndexes = `archimate_elements_listing ON archimate_elements USING btree (tenant) INCLUDE (id, model_id, type, name) WHERE (born > 0)
archimate_elements_name_key ON archimate_elements USING btree (name_key, model_id, tenant)
archimate_elements_name_norm ON archimate_elements USING btree (name_norm, model_id, tenant)
archimate_elements_parent ON archimate_elements USING btree (parent_id, tenant) WHERE ((parent_id)::text <> ''::text)
archimate_elements_pkey ON archimate_elements USING btree (id, tenant)
archimate_properties_pkey ON archimate_properties USING btree (element_id, tenant, key)
archimate_relationships_pkey ON archimate_relationships USING btree (id, tenant)
archimate_relationships_source ON archimate_relationships USING btree (source_id, tenant)
archimate_relationships_target ON archimate_relationships USING btree (target_id, tenant)`

// A database at schema version 3, with rows, is upgraded to version 4:
// only 004 runs, every row stays, the indexes lead with what a write looks
// up, and the keys still hold (a relationship to a missing element is
// refused, deleting an element deletes its properties, a name is unique
// per model and tenant).
func TestMigrateFromVersionThreeKeysIndexesByWhatWritesLookUp(t *testing.T) {
	dsn := os.Getenv("MCPWRITE_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("set MCPWRITE_TEST_POSTGRES_DSN to run against PostgreSQL")
	}
	ctx := context.Background()
	pool := ownSchema(t, dsn, "keys_v3")
	r, err := New(pool, idempg.New(pool), "archimate")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := loadMigrations("archimate")
	if err != nil {
		t.Fatal(err)
	}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `CREATE TABLE archimate_schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
			return err
		}
		for _, m := range ms[:3] {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return err
			}
			if m.after != nil {
				if err := m.after(ctx, tx, r); err != nil {
					return err
				}
			}
			if _, err := tx.Exec(ctx, `INSERT INTO archimate_schema_migrations (version, name) VALUES ($1, $2)`, m.version, m.name); err != nil {
				return err
			}
		}
		for _, q := range []string{
			`INSERT INTO archimate_elements (tenant, id, model_id, type, layer, name, name_key, name_norm, version, parent_id)
			 SELECT t, 'el-'||g, 'm', 'ELEMENT_TYPE_NODE', 'LAYER_TECHNOLOGY', 'Node '||g, 'node '||g, 'node'||g, 1, CASE WHEN g = 2 THEN 'el-1' ELSE '' END
			 FROM unnest(ARRAY['acme', 'globex']) t, generate_series(1, 3) g`,
			`INSERT INTO archimate_properties (tenant, element_id, key, value) SELECT tenant, id, 'owner', 'ops' FROM archimate_elements`,
			`INSERT INTO archimate_relationships (tenant, id, type, source_id, target_id)
			 SELECT t, 'rel-1', 'RELATIONSHIP_TYPE_SERVING', 'el-1', 'el-2' FROM unnest(ARRAY['acme', 'globex']) t`,
		} {
			if _, err := tx.Exec(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	var versions, indexes string
	if err := pool.QueryRow(ctx, `SELECT string_agg(version || ' ' || name, ', ' ORDER BY version) FROM archimate_schema_migrations`).Scan(&versions); err != nil {
		t.Fatal(err)
	}
	if want := "1 001_state.sql, 2 002_rows.sql, 3 003_parents.sql, 4 004_selective_keys.sql"; versions != want {
		t.Fatalf("recorded migrations: %s, want %s", versions, want)
	}
	if err := pool.QueryRow(ctx, `SELECT string_agg(replace(indexdef, 'CREATE ' || CASE WHEN indexdef LIKE 'CREATE UNIQUE%' THEN 'UNIQUE ' ELSE '' END || 'INDEX ', ''), E'\n' ORDER BY indexname)
		FROM pg_indexes WHERE schemaname = current_schema() AND tablename IN ('archimate_elements', 'archimate_properties', 'archimate_relationships')`).Scan(&indexes); err != nil {
		t.Fatal(err)
	}
	if indexes = strings.ReplaceAll(indexes, currentSchema(t, pool)+".", ""); indexes != keyedIndexes {
		t.Fatalf("indexes after the upgrade:\n%s\nwant\n%s", indexes, keyedIndexes)
	}
	var counts string
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM archimate_elements) || ' ' || (SELECT count(*) FROM archimate_properties) || ' ' || (SELECT count(*) FROM archimate_relationships)`).Scan(&counts); err != nil {
		t.Fatal(err)
	}
	if counts != "6 6 2" {
		t.Fatalf("rows after the upgrade (elements, properties, relationships): %s, want 6 6 2", counts)
	}
	for _, c := range []struct{ sql, code, constraint string }{
		{`INSERT INTO archimate_relationships (tenant, id, type, source_id, target_id) VALUES ('acme', 'rel-2', 'RELATIONSHIP_TYPE_SERVING', 'el-1', 'el-9')`, "23503", "archimate_relationships_target_fk"},
		{`INSERT INTO archimate_relationships (tenant, id, type, source_id, target_id) VALUES ('acme', 'rel-2', 'RELATIONSHIP_TYPE_SERVING', 'el-1', 'el-1'), ('acme', 'rel-2', 'RELATIONSHIP_TYPE_SERVING', 'el-1', 'el-1')`, "23505", "archimate_relationships_pkey"},
		{`INSERT INTO archimate_elements (tenant, id, model_id, type, layer, name, name_key, name_norm, version) VALUES ('acme', 'el-9', 'm', 'ELEMENT_TYPE_NODE', 'LAYER_TECHNOLOGY', 'NODE 1', 'node 1', 'node1', 1)`, "23505", "archimate_elements_name_key"},
		{`DELETE FROM archimate_elements WHERE tenant = 'acme' AND id = 'el-1'`, "23503", "archimate_relationships_source_fk"},
	} {
		_, err := pool.Exec(ctx, c.sql)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != c.code || pgErr.ConstraintName != c.constraint {
			t.Errorf("%s: %v, want %s on %s", c.sql, err, c.code, c.constraint)
		}
	}
	if _, err := pool.Exec(ctx, `DELETE FROM archimate_elements WHERE tenant = 'globex' AND id = 'el-3'`); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT string_agg(tenant || '/' || element_id, ' ' ORDER BY tenant, element_id) FROM archimate_properties`).Scan(&counts); err != nil {
		t.Fatal(err)
	}
	if want := "acme/el-1 acme/el-2 acme/el-3 globex/el-1 globex/el-2"; counts != want {
		t.Fatalf("properties after deleting globex/el-3: %s, want %s", counts, want)
	}
}

func currentSchema(t *testing.T, q querier) string {
	t.Helper()
	rows, err := q.Query(context.Background(), `SELECT current_schema()`)
	if err != nil {
		t.Fatal(err)
	}
	s, err := pgx.CollectExactlyOneRow(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return s
}
