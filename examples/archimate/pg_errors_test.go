package archimate_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/pgdomain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	idempg "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/pgstore"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// The repository on PostgreSQL answers invalid types and missing elements
// exactly like the in-memory one: the context comes from the committed
// state.
func TestPostgresAnswersInvalidTypesAndMissingElementsInContext(t *testing.T) {
	dsn := os.Getenv("MCPWRITE_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("set MCPWRITE_TEST_POSTGRES_DSN to run against PostgreSQL")
	}
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	prefix := fmt.Sprintf("errctx_%d", time.Now().UnixNano()%1e12)
	t.Cleanup(func() {
		_, _ = pool.Exec(context.Background(), fmt.Sprintf("DROP TABLE IF EXISTS %[1]s_relationships, %[1]s_properties, %[1]s_elements, %[1]s_state, %[1]s_outbox, %[1]s_schema_migrations, %[1]s_idem CASCADE", prefix))
	})
	idem := idempg.New(pool, idempg.WithTable(prefix+"_idem"))
	repo, err := pgdomain.New(pool, idem, prefix)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []func(context.Context) error{idem.Migrate, repo.Migrate} {
		if err := m(ctx); err != nil {
			t.Fatal(err)
		}
	}
	s, err := server.New(repo, runtime.WithRequestContextFunc(runtime.StaticRequestContext(devRC)), runtime.WithIdempotency(runtime.IdempotencyOptions{Store: idem}))
	if err != nil {
		t.Fatal(err)
	}
	cs := mcptest.Connect(t, s, mcptest.Options{})
	capID := createdID(t, mustOK(t, cs, "createElement", `{"type":"Capability","name":"Fulfillment"}`))
	compID := createdID(t, mustOK(t, cs, "createElement", `{"type":"ApplicationComponent","name":"OrderService"}`))

	out, _ := call(t, cs, "createRelationship", `{"type":"Realisation","source_id":"Fulfillment","target_id":"`+compID+`"}`)
	e := out["error"].(map[string]any)
	sg := e["suggestions"].(map[string]any)
	if diff := cmp.Diff([]any{"Serving", "Assignment"}, sg["valid_types_for_context"]); e["code"] != "INVALID_RELATIONSHIP_TYPE" || diff != "" {
		t.Fatalf("error %v (-want +got):\n%s", e, diff)
	}
	out, _ = call(t, cs, "createElement", `{"type":"AppComponent","name":"X"}`)
	if e := out["error"].(map[string]any); e["code"] != "INVALID_ELEMENT_TYPE" || e["message"] != "Element type 'AppComponent' is not valid" {
		t.Fatalf("element type: %v", e)
	}
	out, _ = call(t, cs, "createRelationship", `{"type":"Serving","source_id":"`+capID+`","target_id":"OrderServce"}`)
	want := []any{map[string]any{"id": compID, "name": "OrderService", "type": "ApplicationComponent"}}
	if diff := cmp.Diff(want, out["error"].(map[string]any)["suggestions"].(map[string]any)["similar_elements"]); diff != "" {
		t.Fatalf("similar_elements (-want +got):\n%s", diff)
	}
}
