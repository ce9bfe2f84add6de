package archimate_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/pgdomain"
)

// versionOneDDL is the schema the repository made before rows (one jsonb
// state document per tenant), as it made it: no migrations table.
const versionOneDDL = `
CREATE TABLE %[1]s_state (tenant text PRIMARY KEY, state jsonb NOT NULL, version bigint NOT NULL DEFAULT 0);
CREATE TABLE %[1]s_outbox (id bigserial PRIMARY KEY, tenant text NOT NULL, tool text NOT NULL,
    request jsonb NOT NULL, response jsonb NOT NULL, occurred_at timestamptz NOT NULL DEFAULT now())`

// outboxContract is the outbox's columns as a relay reads them.
const outboxContract = `created_at timestamp with time zone NOT NULL, delivered_at timestamp with time zone NULL, id bigint NOT NULL, request jsonb NOT NULL, response jsonb NOT NULL, tenant text NOT NULL, tool text NOT NULL, txid xid8 NOT NULL`

func (db *rowsDB) outboxColumns(t *testing.T) string {
	t.Helper()
	rows, err := db.pool.Query(context.Background(), `SELECT column_name || ' ' || data_type || ' ' || CASE is_nullable WHEN 'NO' THEN 'NOT NULL' ELSE 'NULL' END
		FROM information_schema.columns WHERE table_name = $1 ORDER BY column_name`, db.prefix+"_outbox")
	if err != nil {
		t.Fatal(err)
	}
	cols, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(cols, ", ")
}

func (db *rowsDB) versions(t *testing.T) string {
	t.Helper()
	rows, err := db.pool.Query(context.Background(), `SELECT version || ' ' || name FROM `+db.prefix+`_schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(vs, ", ")
}

// From an empty database: the versioned scripts run once, whoever runs
// them (three instances starting together, then a restart), and leave the
// outbox as the relay reads it, with its partial index of undelivered rows.
func TestMigrateFromEmpty(t *testing.T) {
	db := openRowsDB(t, nil)
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() { errs[i] = db.repo.Migrate(context.Background()) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := db.repo.Migrate(context.Background()); err != nil {
		t.Fatalf("second start: %v", err)
	}
	if got := db.versions(t); got != "1 001_state.sql, 2 002_rows.sql, 3 003_parents.sql, 4 004_selective_keys.sql" {
		t.Fatalf("recorded migrations: %s", got)
	}
	if got := db.outboxColumns(t); got != outboxContract {
		t.Fatalf("outbox columns:\n got %s\nwant %s", got, outboxContract)
	}
	var def string
	if err := db.pool.QueryRow(context.Background(), `SELECT indexdef FROM pg_indexes WHERE indexname = $1`, db.prefix+"_outbox_undelivered").Scan(&def); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("CREATE INDEX %[1]s_outbox_undelivered ON public.%[1]s_outbox USING btree (txid, id) WHERE (delivered_at IS NULL)", db.prefix); def != want {
		t.Fatalf("outbox index:\n got %s\nwant %s", def, want)
	}
	if n := db.count(t, `SELECT count(*) FROM pg_tables WHERE tablename = '$P_state'`); n != 0 {
		t.Fatal("a new database has a state table")
	}
	if got := fmt.Sprint(pgdomain.SchemaVersion); got != "4" {
		t.Fatalf("SchemaVersion %s", got)
	}
}

// From version 1 (the jsonb state): every tenant's elements, properties
// and relationships move into rows with their creation numbers, so state
// digests confirmed before the upgrade still match after it; the old
// outbox rows stay; new elements are numbered after the old ones; a second
// start changes nothing.
func TestMigrateFromJSONStateVersion(t *testing.T) {
	db := openRowsDB(t, nil)
	ctx := context.Background()
	if _, err := db.pool.Exec(ctx, fmt.Sprintf(versionOneDDL, db.prefix)); err != nil {
		t.Fatal(err)
	}
	mem := domain.New()
	meta := func(tenant string) *archimatev1.MessageMeta { return &archimatev1.MessageMeta{TenantId: tenant} }
	for _, tenant := range []string{"tenant-a", "tenant-b"} {
		model := domain.ActiveModel(tenant)
		steps := []error{
			domain.Apply(ctx, mem, &archimatev1.CreateElementRequest{Meta: meta(tenant), Id: "el-1", ModelId: model, Type: archimatev1.ElementType_ELEMENT_TYPE_APPLICATION_COMPONENT,
				Layer: archimatev1.Layer_LAYER_APPLICATION, Name: "Order Service", Description: "orders", Properties: map[string]string{"tier": "gold", "owner": "ops"}}),
			domain.Apply(ctx, mem, &archimatev1.CreateElementRequest{Meta: meta(tenant), Id: "el-2", ModelId: model, Type: archimatev1.ElementType_ELEMENT_TYPE_NODE,
				Layer: archimatev1.Layer_LAYER_TECHNOLOGY, Name: "db", ParentId: "el-1"}),
			domain.Apply(ctx, mem, &archimatev1.CreateRelationshipRequest{Meta: meta(tenant), Id: "rel-1", Type: archimatev1.RelationshipType_RELATIONSHIP_TYPE_SERVING,
				SourceId: "el-2", TargetId: "el-1", Name: "serves"}),
			domain.Apply(ctx, mem, &archimatev1.CreateCapabilityStructureRequest{Meta: meta(tenant), Id: "cap", ModelId: model, Name: "Fulfil",
				ValueStreams: []string{"Ship"}, SubCapabilities: []string{"Pack"}}),
		}
		for _, err := range steps {
			if err != nil {
				t.Fatal(err)
			}
		}
		snap, err := mem.Snapshot(tenant)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.pool.Exec(ctx, `INSERT INTO `+db.prefix+`_state (tenant, state, version) VALUES ($1, $2, 4)`, tenant, snap); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.pool.Exec(ctx, `INSERT INTO `+db.prefix+`_outbox (tenant, tool, request, response) VALUES ('tenant-a', 'createElement', '{}', '{}')`); err != nil {
		t.Fatal(err)
	}

	for range 2 {
		if err := db.repo.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := db.versions(t); got != "1 001_state.sql, 2 002_rows.sql, 3 003_parents.sql, 4 004_selective_keys.sql" {
		t.Fatalf("recorded migrations: %s", got)
	}
	for _, tenant := range []string{"tenant-a", "tenant-b"} {
		if n := db.count(t, `SELECT count(*) FROM $P_elements WHERE tenant = $1`, tenant); n != 5 {
			t.Fatalf("%s: %d elements, want 5", tenant, n)
		}
		// serves, the composition el-1 -> el-2 from el-2's parent_id, and
		// the capability structure's realization and composition.
		if n := db.count(t, `SELECT count(*) FROM $P_relationships WHERE tenant = $1`, tenant); n != 4 {
			t.Fatalf("%s: %d relationships, want 4", tenant, n)
		}
		if n := db.count(t, `SELECT count(*) FROM $P_properties WHERE tenant = $1 AND element_id = 'el-1'`, tenant); n != 2 {
			t.Fatalf("%s: %d properties, want 2", tenant, n)
		}
		for _, req := range []*archimatev1.DeleteElementRequest{{Meta: meta(tenant), Id: "el-1", Cascade: proto.Bool(true)}, {Meta: meta(tenant), Id: "cap-sub-1"}} {
			want, _, err := mem.StatePreview(ctx, "deleteElement", req)
			if err != nil {
				t.Fatal(err)
			}
			got, ok, err := db.repo.StatePreview(ctx, "deleteElement", req)
			if err != nil || !ok {
				t.Fatalf("state of %s after the upgrade: %v %v", req.GetId(), ok, err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%s %s: state changed by the upgrade (-before +after):\n%s", tenant, req.GetId(), diff)
			}
		}
		want, _ := mem.Element(tenant, "el-1")
		got, err := db.repo.UpdateElement(ctx, &archimatev1.UpdateElementRequest{Meta: meta(tenant), Id: "el-1", ExpectedVersion: 1, Properties: map[string]string{"tier": "silver"}})
		if err != nil {
			t.Fatal(err)
		}
		want.Properties["tier"], want.Version = "silver", 2
		if diff := cmp.Diff(want.String(), got.GetElement().String()); diff != "" {
			t.Fatalf("migrated element (-want +got):\n%s", diff)
		}
	}
	if n := db.count(t, `SELECT count(*) FROM pg_tables WHERE tablename = '$P_state'`); n != 0 {
		t.Fatal("the state table outlived the upgrade")
	}
	if got := db.outboxColumns(t); got != outboxContract {
		t.Fatalf("outbox columns:\n got %s\nwant %s", got, outboxContract)
	}
	if n := db.count(t, `SELECT count(*) FROM $P_outbox WHERE tenant = 'tenant-a' AND tool = 'createElement' AND delivered_at IS NULL AND created_at <= now()`); n != 1 {
		t.Fatalf("%d old outbox rows kept, want 1", n)
	}
	if _, err := db.repo.CreateElement(ctx, &archimatev1.CreateElementRequest{Meta: meta("tenant-a"), Id: "el-new", ModelId: domain.ActiveModel("tenant-a"), Name: "New",
		Type: archimatev1.ElementType_ELEMENT_TYPE_NODE, Layer: archimatev1.Layer_LAYER_TECHNOLOGY}); err != nil {
		t.Fatal(err)
	}
	if n := db.count(t, `SELECT count(*) FROM $P_elements WHERE born >= (SELECT born FROM $P_elements WHERE tenant = 'tenant-a' AND id = 'el-new')`); n != 1 {
		t.Fatalf("the new element's creation number is not after every migrated one (%d at or after it)", n)
	}
}

// A version 1 state the domain cannot read stops the upgrade with the
// tenant named, and changes nothing: the state stays, no table is made.
func TestMigrateRefusesUnreadableState(t *testing.T) {
	db := openRowsDB(t, nil)
	ctx := context.Background()
	if _, err := db.pool.Exec(ctx, fmt.Sprintf(versionOneDDL, db.prefix)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.pool.Exec(ctx, `INSERT INTO `+db.prefix+`_state (tenant, state) VALUES ('tenant-ok', '{}'), ('tenant-bad', '{"elements":[{"id":5}]}')`); err != nil {
		t.Fatal(err)
	}
	err := db.repo.Migrate(ctx)
	if err == nil || !strings.Contains(err.Error(), `002_rows.sql: tenant "tenant-bad": the stored state cannot be read, so it is not migrated`) {
		t.Fatalf("Migrate = %v", err)
	}
	if n := db.count(t, `SELECT count(*) FROM $P_state`); n != 2 {
		t.Fatalf("%d state rows left, want 2", n)
	}
	if n := db.count(t, `SELECT count(*) FROM pg_tables WHERE tablename IN ('$P_elements', '$P_schema_migrations')`); n != 0 {
		t.Fatal("a failed upgrade left tables behind")
	}
}
