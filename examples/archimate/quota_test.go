package archimate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
	proposalpg "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal/pgstore"
)

// Tenant B floods the shared PostgreSQL proposal store to its quotas from
// its instance; its principals get RESOURCE_EXHAUSTED naming their own
// quota, and tenant A, on another instance of the same store, still
// proposes and applies.
func TestProposalQuotaOnPostgresIsolatesTenants(t *testing.T) {
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
	table := fmt.Sprintf("archimate_quota_%d_%d", time.Now().UnixNano(), rand.IntN(1<<20))
	props := proposalpg.New(pool, proposalpg.WithTable(table), proposalpg.WithClock(func() time.Time { return fixedNow }),
		proposalpg.WithQuotas(proposal.Quotas{PerTenant: 3, PerPrincipal: 2}))
	if err := props.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = pool.Exec(context.Background(), "DROP TABLE IF EXISTS "+table+" CASCADE")
		_, _ = pool.Exec(context.Background(), "DROP FUNCTION IF EXISTS "+table+"_cleanup(timestamptz)")
	})
	connect := func(rc runtime.RequestContext) *mcp.ClientSession {
		s, err := server.New(domain.New(),
			runtime.WithClock(func() time.Time { return fixedNow }),
			runtime.WithRequestContextFunc(runtime.StaticRequestContext(rc)),
			runtime.WithProposals(proposal.Store(props), 0))
		if err != nil {
			t.Fatal(err)
		}
		return mcptest.Connect(t, s, mcptest.Options{})
	}
	var lastID string
	proposeDelete := func(cs *mcp.ClientSession) (map[string]any, bool) {
		created, _ := call(t, cs, "createElement", `{"type":"Node","name":"db-`+fmt.Sprint(rand.IntN(1<<30))+`"}`)
		lastID = createdID(t, created)
		return call(t, cs, "deleteElement", `{"id":"`+lastID+`"}`)
	}
	b1 := connect(runtime.RequestContext{TenantID: "tenant-b", PrincipalID: "b1"})
	b2 := connect(runtime.RequestContext{TenantID: "tenant-b", PrincipalID: "b2"})
	for range 2 {
		if out, isErr := proposeDelete(b1); isErr {
			t.Fatalf("b1's proposal: %v", out)
		}
	}
	wantExhausted := func(out map[string]any, isErr bool, quota string, limit float64) {
		t.Helper()
		e, _ := out["error"].(map[string]any)
		d, _ := e["details"].(map[string]any)
		if !isErr || e["code"] != "RESOURCE_EXHAUSTED" || d["quota"] != quota || d["limit"] != limit || d["retry_after_seconds"] != 900.0 {
			t.Fatalf("answer %v, want RESOURCE_EXHAUSTED of %s (%v), retry after 900 s", out, quota, limit)
		}
	}
	out, isErr := proposeDelete(b1)
	wantExhausted(out, isErr, "pending_proposals_per_principal", 2)
	if out, isErr := proposeDelete(b2); isErr {
		t.Fatalf("b2's proposal: %v", out)
	}
	out, isErr = proposeDelete(b2)
	wantExhausted(out, isErr, "pending_proposals_per_tenant", 3)

	a := connect(devRC)
	out, isErr = proposeDelete(a)
	if isErr {
		t.Fatalf("tenant A's proposal: %v", out)
	}
	args, _ := json.Marshal(map[string]string{"proposal_id": out["proposal"].(map[string]any)["proposal_id"].(string)})
	if applied, isErr := call(t, a, "applyProposal", string(args)); isErr || applied["success"] != true || applied["id"] != lastID {
		t.Fatalf("tenant A's apply: %v", applied)
	}
}
