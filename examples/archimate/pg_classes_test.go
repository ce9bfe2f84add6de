package archimate_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/pgdomain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// Each class of PostgreSQL error, forced for real, gets the answer
// docs/postgres.md gives it: data the store cannot hold and constraint
// violations are permanent errors naming the field (recorded, so a retry
// replays them instead of failing for ever); serialization failures,
// cancelled statements and terminated backends are UNAVAILABLE with a
// retry hint, and the retry executes once.

func permanentEntry(t *testing.T, out map[string]any, code, field, sqlstate string) {
	t.Helper()
	e, _ := out["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	if e["code"] != code || e["field"] != field || d["sqlstate"] != sqlstate || d["retryable"] != false {
		t.Fatalf("want %s on %s (sqlstate %s, not retryable): %v", code, field, sqlstate, out)
	}
}

// Class 22 (22021): a NUL character in a name cannot be stored in text.
// The answer names the field and is the key's outcome: the retry replays
// it, the database holds nothing.
func TestStoreErrorNULInANameIsPermanent(t *testing.T) {
	db := newRowsDB(t, nil)
	cs := db.session(t, nil)
	args := `{"type":"Node","name":"db\u0000primary","client_request_id":"nul-1"}`
	out, isErr := call(t, cs, "createElement", args)
	if !isErr {
		t.Fatalf("stored a NUL: %v", out)
	}
	permanentEntry(t, out, "VALIDATION_ERROR", "name", "22021")
	if e := out["error"].(map[string]any); e["message"] != "name contains a character the store cannot hold (U+0000 or invalid UTF-8)" {
		t.Fatalf("message: %v", e["message"])
	}
	again, _ := call(t, cs, "createElement", args)
	if again["idempotent_replay"] != true {
		t.Fatalf("retry: %v; want the replay of the permanent error", again)
	}
	permanentEntry(t, again, "VALIDATION_ERROR", "name", "22021")
	if n := db.count(t, `SELECT count(*) FROM $P_elements`) + db.count(t, `SELECT count(*) FROM $P_outbox`); n != 0 {
		t.Fatalf("%d rows written", n)
	}
}

// Class 22 (22P05): a NUL in a value only the outbox's jsonb keeps (the
// request's correlation id) cannot be stored either.
func TestStoreErrorNULInJSONBIsPermanent(t *testing.T) {
	db := newRowsDB(t, nil)
	_, err := db.repo.CreateElement(context.Background(), &archimatev1.CreateElementRequest{
		Meta: &archimatev1.MessageMeta{TenantId: "tenant-acme", CorrelationId: "corr\x00"}, Id: "el-1", ModelId: domain.ActiveModel("tenant-acme"),
		Type: archimatev1.ElementType_ELEMENT_TYPE_NODE, Layer: archimatev1.Layer_LAYER_TECHNOLOGY, Name: "db"})
	var e *runtime.ErrorEntry
	if !errors.As(err, &e) || e.Code != "VALIDATION_ERROR" || e.Field != "meta.correlation_id" || e.Details["sqlstate"] != "22P05" {
		t.Fatalf("CreateElement = %v", err)
	}
	if n := db.count(t, `SELECT count(*) FROM $P_elements`); n != 0 {
		t.Fatal("the element committed without its outbox row")
	}
}

// Class 22 (22001): an id longer than its column holds.
func TestStoreErrorValueOverColumnLimitIsPermanent(t *testing.T) {
	db := newRowsDB(t, nil)
	long := strings.Repeat("x", 300)
	_, err := db.repo.CreateElement(context.Background(), &archimatev1.CreateElementRequest{
		Meta: &archimatev1.MessageMeta{TenantId: "tenant-acme"}, Id: long, ModelId: domain.ActiveModel("tenant-acme"),
		Type: archimatev1.ElementType_ELEMENT_TYPE_NODE, Layer: archimatev1.Layer_LAYER_TECHNOLOGY, Name: "db"})
	var e *runtime.ErrorEntry
	if !errors.As(err, &e) || e.Code != "VALIDATION_ERROR" || e.Field != "id" || e.Details["sqlstate"] != "22001" ||
		e.Message != "id is longer than the 256 characters the store holds" {
		t.Fatalf("CreateElement = %v", err)
	}
}

// blockedBehind runs write while holder's transaction holds what it needs,
// waits until it waits for that lock, then commits holder.
func blockedBehind(t *testing.T, db *rowsDB, holderSQL []string, write func() error) error {
	t.Helper()
	ctx := context.Background()
	holder, err := db.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = holder.Rollback(ctx) }()
	for _, q := range holderSQL {
		if _, err := holder.Exec(ctx, strings.ReplaceAll(q, "$P", db.prefix)); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() { done <- write() }()
	for deadline := time.Now().Add(10 * time.Second); db.count(t, `SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%$P_%'`) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the write never waited")
		}
	}
	if err := holder.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	return <-done
}

// Class 23: a concurrent write got there first, after the write read its
// rows. A unique violation (23505: the same name, inserted by a
// transaction the write could not see yet) is the domain's answer, naming
// the field. A relationship's source deleted meanwhile never reaches the
// foreign key: the write's share lock on the source waits for the delete
// and then reads no source, so the answer is the domain's own
// ELEMENT_NOT_FOUND.
func TestStoreErrorConstraintViolationsArePermanent(t *testing.T) {
	db := newRowsDB(t, nil)
	ctx := context.Background()
	model := domain.ActiveModel("tenant-acme")
	meta := &archimatev1.MessageMeta{TenantId: "tenant-acme"}
	err := blockedBehind(t, db, []string{
		`INSERT INTO $P_elements (tenant, id, model_id, type, layer, name, name_key, name_norm, version) VALUES ('tenant-acme', 'other', '` + model + `', 'ELEMENT_TYPE_NODE', 'LAYER_TECHNOLOGY', 'DB', 'db', 'db', 1)`,
	}, func() error {
		_, err := db.repo.CreateElement(ctx, &archimatev1.CreateElementRequest{Meta: meta, Id: "el-1", ModelId: model,
			Type: archimatev1.ElementType_ELEMENT_TYPE_NODE, Layer: archimatev1.Layer_LAYER_TECHNOLOGY, Name: "db"})
		return err
	})
	var e *runtime.ErrorEntry
	if !errors.As(err, &e) || e.Code != "ALREADY_EXISTS" || e.Field != "name" || e.Details["sqlstate"] != "23505" || e.Details["constraint"] != "elements_name_key" {
		t.Fatalf("the same name, concurrently: %v", err)
	}

	for _, id := range []string{"src", "dst"} {
		if _, err := db.repo.CreateElement(ctx, &archimatev1.CreateElementRequest{Meta: meta, Id: id, ModelId: model,
			Type: archimatev1.ElementType_ELEMENT_TYPE_NODE, Layer: archimatev1.Layer_LAYER_TECHNOLOGY, Name: id}); err != nil {
			t.Fatal(err)
		}
	}
	err = blockedBehind(t, db, []string{`DELETE FROM $P_elements WHERE tenant = 'tenant-acme' AND id = 'src'`}, func() error {
		_, err := db.repo.CreateRelationship(ctx, &archimatev1.CreateRelationshipRequest{Meta: meta, Id: "rel-1", SourceId: "src", TargetId: "dst",
			Type: archimatev1.RelationshipType_RELATIONSHIP_TYPE_SERVING})
		return err
	})
	if !errors.As(err, &e) || e.Code != "ELEMENT_NOT_FOUND" || e.Field != "source_id" || e.Message != "Element 'src' not found" {
		t.Fatalf("a source deleted concurrently: %v", err)
	}
	if n := db.count(t, `SELECT count(*) FROM $P_relationships`); n != 0 {
		t.Fatal("a relationship to a deleted element was stored")
	}
}

// A keyed create reads no element (its id and name are checked by their
// unique indexes): when a concurrent transaction inserts the same name,
// the create's insert waits for it, is refused by the unique index when
// it commits, and the create runs again reading its footprint, so the
// answer is the domain's, naming the element that took the name.
func TestKeyedCreateOfANameTakenConcurrentlyIsTheDomainsAnswer(t *testing.T) {
	db := newRowsDB(t, nil)
	cs := db.session(t, nil)
	model := domain.ActiveModel(devRC.TenantID)
	var out map[string]any
	var isErr bool
	if err := blockedBehind(t, db, []string{
		`INSERT INTO $P_elements (tenant, id, model_id, type, layer, name, name_key, name_norm, version) VALUES ('` + devRC.TenantID + `', 'other', '` + model + `', 'ELEMENT_TYPE_NODE', 'LAYER_TECHNOLOGY', 'DB', 'db', 'db', 1)`,
	}, func() error {
		out, isErr = call(t, cs, "createElement", `{"type":"Node","name":"db","client_request_id":"race-1"}`)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"code":    "DUPLICATE_NAME",
		"message": "Element 'db' already exists in this model",
		"field":   "name",
		"suggestions": map[string]any{
			"existing_element": map[string]any{"id": "other", "type": "Node"},
			"alternatives":     []any{"db2", "dbV2", "Newdb"},
			"hint":             "Use updateElement to modify the existing element, or choose a different name",
		},
	}
	if diff := cmp.Diff(map[string]any{"success": false, "error": want, "errors": []any{want}}, out); !isErr || diff != "" {
		t.Fatalf("isError=%v (-want +got):\n%s", isErr, diff)
	}
	if n := db.count(t, `SELECT count(*) FROM $P_elements`) + db.count(t, `SELECT count(*) FROM $P_outbox`); n != 1 {
		t.Fatalf("%d rows, want the other transaction's element alone", n)
	}
}

// sideRepo is a second repository on db's tables whose connections set
// params (isolation, timeouts, an application name).
func sideRepo(t *testing.T, db *rowsDB, params map[string]string) *pgdomain.Repository {
	t.Helper()
	cfg := db.pool.Config().Copy()
	for k, v := range params {
		cfg.ConnConfig.RuntimeParams[k] = v
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	repo, err := pgdomain.New(pool, db.idem, db.prefix)
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

func unavailableErr(t *testing.T, what string, err error) {
	t.Helper()
	if status.Code(err) != codes.Unavailable || status.Convert(err).Message() != "the architecture repository is unavailable; retry with the same client_request_id" {
		t.Fatalf("%s: %v; want UNAVAILABLE with a retry hint", what, err)
	}
}

func nodeRequest(id, name, parent string) *archimatev1.CreateElementRequest {
	return &archimatev1.CreateElementRequest{Meta: &archimatev1.MessageMeta{TenantId: "tenant-acme"}, Id: id, ModelId: domain.ActiveModel("tenant-acme"),
		Type: archimatev1.ElementType_ELEMENT_TYPE_NODE, Layer: archimatev1.Layer_LAYER_TECHNOLOGY, Name: name, ParentId: parent}
}

// Class 40 (40001): two serializable transactions. The write reads its
// parent; meanwhile another transaction reads the tenant's elements,
// changes the parent and commits; the write's insert then completes a
// dangerous cycle and PostgreSQL aborts it. UNAVAILABLE; the retry
// succeeds once.
func TestStoreErrorSerializationFailureIsTransient(t *testing.T) {
	db := newRowsDB(t, nil)
	ctx := context.Background()
	if _, err := db.repo.CreateElement(ctx, nodeRequest("parent", "Parent", "")); err != nil {
		t.Fatal(err)
	}
	repo := sideRepo(t, db, map[string]string{"default_transaction_isolation": "serializable"})
	h := newHold("locked")
	repo.Fault = h.fault
	done := make(chan error, 1)
	go func() {
		_, err := repo.CreateElement(ctx, nodeRequest("child", "Child", "parent"))
		done <- err
	}()
	waitFor(t, "the write to read its rows", h.reached)
	other, err := db.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"SET TRANSACTION ISOLATION LEVEL SERIALIZABLE",
		"SELECT count(*) FROM $P_elements WHERE tenant = 'tenant-acme'",
		"UPDATE $P_elements SET description = 'changed' WHERE tenant = 'tenant-acme' AND id = 'parent'"} {
		if _, err := other.Exec(ctx, strings.ReplaceAll(q, "$P", db.prefix)); err != nil {
			t.Fatal(err)
		}
	}
	if err := other.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	close(h.release)
	unavailableErr(t, "the write after a serialization failure", <-done)
	if _, err := repo.CreateElement(ctx, nodeRequest("child", "Child", "parent")); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if n := db.count(t, `SELECT count(*) FROM $P_elements WHERE id = 'child'`); n != 1 {
		t.Fatalf("%d children", n)
	}
}

// Class 57 (57014): a statement cancelled by statement_timeout while it
// waits for a lock another transaction holds.
func TestStoreErrorStatementTimeoutIsTransient(t *testing.T) {
	db := newRowsDB(t, nil)
	ctx := context.Background()
	if _, err := db.repo.CreateElement(ctx, nodeRequest("el-1", "db", "")); err != nil {
		t.Fatal(err)
	}
	repo := sideRepo(t, db, map[string]string{"statement_timeout": "200"})
	holder, err := db.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := holder.Exec(ctx, `SELECT 1 FROM `+db.prefix+`_elements WHERE id = 'el-1' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	update := &archimatev1.UpdateElementRequest{Meta: &archimatev1.MessageMeta{TenantId: "tenant-acme"}, Id: "el-1", ExpectedVersion: 1, Description: new(string)}
	*update.Description = "later"
	_, err = repo.UpdateElement(ctx, update)
	unavailableErr(t, "a write past statement_timeout", err)
	_ = holder.Rollback(ctx)
	if resp, err := repo.UpdateElement(ctx, update); err != nil || resp.GetNewVersion() != 2 {
		t.Fatalf("retry: %v %v", resp, err)
	}
}

// Class 57 (57P01): the write's own backend is terminated
// (pg_terminate_backend) in the middle of its transaction. Nothing is
// stored; the retry, on a new connection, succeeds.
func TestStoreErrorTerminatedBackendIsTransient(t *testing.T) {
	db := newRowsDB(t, nil)
	ctx := context.Background()
	app := db.prefix + "_victim"
	repo := sideRepo(t, db, map[string]string{"application_name": app})
	terminated := 0
	repo.Fault = func(point string) {
		if point != "locked" || terminated > 0 {
			return
		}
		terminated = db.count(t, `SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1) t`, app)
		for deadline := time.Now().Add(5 * time.Second); db.count(t, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND state <> 'idle'`, app) > 0; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the backend outlived pg_terminate_backend")
			}
		}
	}
	_, err := repo.CreateElement(ctx, nodeRequest("el-1", "db", ""))
	if terminated != 1 {
		t.Fatalf("terminated %d backends, want the write's own", terminated)
	}
	unavailableErr(t, "a write whose backend was terminated", err)
	if n := db.count(t, `SELECT count(*) FROM $P_elements`) + db.count(t, `SELECT count(*) FROM $P_outbox`); n != 0 {
		t.Fatalf("%d rows of a terminated write", n)
	}
	if _, err := repo.CreateElement(ctx, nodeRequest("el-1", "db", "")); err != nil {
		t.Fatalf("retry: %v", err)
	}
}

// A string that is not UTF-8 (possible from Go callers, never from JSON)
// cannot be kept in the outbox's jsonb: a permanent error naming the field,
// and nothing is written.
func TestStoreErrorInvalidUTF8IsPermanent(t *testing.T) {
	db := newRowsDB(t, nil)
	req := nodeRequest("el-1", "db", "")
	req.Description = "bad \xff"
	_, err := db.repo.CreateElement(context.Background(), req)
	var e *runtime.ErrorEntry
	if !errors.As(err, &e) || e.Code != "VALIDATION_ERROR" || e.Field != "description" || e.Details["retryable"] != false {
		t.Fatalf("CreateElement = %v", err)
	}
	if n := db.count(t, `SELECT count(*) FROM $P_elements`) + db.count(t, `SELECT count(*) FROM $P_outbox`); n != 0 {
		t.Fatalf("%d rows written", n)
	}
}
