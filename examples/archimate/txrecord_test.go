package archimate_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/pgdomain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	idempg "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/pgstore"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// pgRepo is a PostgreSQL archimate repository on fresh tables of its own,
// dropped when the test ends.
func pgRepo(t *testing.T) (*pgxpool.Pool, *idempg.Store, *pgdomain.Repository, string) {
	t.Helper()
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
	prefix := fmt.Sprintf("archtx_%d_%d", time.Now().UnixNano()%1e12, rand.IntN(1<<20))
	idemTable := prefix + "_idem"
	idem := idempg.New(pool, idempg.WithTable(idemTable))
	if err := idem.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	repo, err := pgdomain.New(pool, idem, prefix)
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = pool.Exec(context.Background(), "DROP TABLE IF EXISTS "+idemTable+", "+prefix+"_relationships, "+prefix+"_properties, "+prefix+"_elements, "+prefix+"_state, "+prefix+"_outbox, "+prefix+"_schema_migrations CASCADE")
	})
	return pool, idem, repo, idemTable
}

// noCompletion is an idempotency store whose own completion always fails:
// a call answers success only if the outcome was committed by the handler.
type noCompletion struct{ idempotency.Store }

func (noCompletion) Complete(context.Context, idempotency.Key, string, []byte, bool, time.Time, time.Duration) error {
	return errors.New("completion unavailable")
}

func pgSession(t *testing.T, repo *pgdomain.Repository, idem idempotency.Store) *mcp.ClientSession {
	t.Helper()
	s, err := server.New(repo,
		runtime.WithClock(func() time.Time { return fixedNow }),
		runtime.WithRequestContextFunc(runtime.StaticRequestContext(devRC)),
		runtime.WithIdempotency(runtime.IdempotencyOptions{Store: idem}))
	if err != nil {
		t.Fatal(err)
	}
	return mcptest.Connect(t, s, mcptest.Options{})
}

type keyRow struct {
	state    int
	response string
}

func keyRowOf(t *testing.T, pool *pgxpool.Pool, table, key string) (keyRow, bool) {
	t.Helper()
	var r keyRow
	k := idempotency.ScopedKey(devRC.TenantID, devRC.PrincipalID, "createElement", key)
	err := pool.QueryRow(context.Background(), `SELECT state, coalesce(convert_from(response_payload, 'UTF8'), '') FROM `+table+
		` WHERE tenant_id = $1 AND tool = $2 AND client_request_id = $3`, k.Tenant, k.Tool, k.Key).Scan(&r.state, &r.response)
	if err != nil {
		return keyRow{}, false
	}
	return r, true
}

func outboxCount(t *testing.T, repo *pgdomain.Repository) int {
	t.Helper()
	tools, err := repo.Outbox(context.Background(), devRC.TenantID)
	if err != nil {
		t.Fatal(err)
	}
	return len(tools)
}

// The handler's commit holds the element, its outbox row and the completed
// key: seen from another connection right after the commit, before the
// pipeline has done anything; the pipeline's own completion is never used.
func TestKeyCommitsWithTheWrite(t *testing.T) {
	pool, idem, repo, table := pgRepo(t)
	var atCommit keyRow
	var atCommitFound bool
	var outboxAtCommit int
	repo.Fault = func(point string) {
		switch point {
		case "inside-tx":
			// outside the transaction only the claim is visible
			if r, found := keyRowOf(t, pool, table, "tx-1"); !found || r.state != 1 || outboxCount(t, repo) != 0 {
				t.Errorf("before the commit another connection sees key found %v state %d; want the claim (1) and no outbox row", found, r.state)
			}
		case "after-commit":
			atCommit, atCommitFound = keyRowOf(t, pool, table, "tx-1")
			outboxAtCommit = outboxCount(t, repo)
		}
	}
	cs := pgSession(t, repo, noCompletion{idem})
	out, isErr := call(t, cs, "createElement", `{"type":"Node","name":"db-1","client_request_id":"tx-1"}`)
	if isErr {
		t.Fatalf("call: %v", out)
	}
	if !atCommitFound || atCommit.state != 2 || outboxAtCommit != 1 {
		t.Fatalf("right after the commit: key found %v state %d, outbox rows %d; want the key completed (2) and 1 outbox row", atCommitFound, atCommit.state, outboxAtCommit)
	}
	if id := createdID(t, out); !strings.Contains(atCommit.response, id) {
		t.Fatalf("the committed outcome %s does not hold the created element %s", atCommit.response, id)
	}
	// The recorded answer is the one the call got.
	replay, isErr := call(t, pgSession(t, repo, idem), "createElement", `{"type":"Node","name":"db-1","client_request_id":"tx-1"}`)
	if isErr || replay["idempotent_replay"] != true || createdID(t, replay) != createdID(t, out) {
		t.Fatalf("replay = %v (first %v)", replay, out)
	}
	if n := outboxCount(t, repo); n != 1 {
		t.Fatalf("outbox rows after the replay = %d, want 1", n)
	}
}

// A fault between the handler's commit and the pipeline (the handler
// panics after committing, so the runtime never learns the outcome was
// recorded and releases its claim) does not run the write again on retry:
// the committed key replays.
func TestFaultAfterCommitDoesNotReExecute(t *testing.T) {
	_, idem, repo, _ := pgRepo(t)
	repo.Fault = func(point string) {
		if point == "after-commit" {
			panic("fault after commit")
		}
	}
	args := `{"type":"Node","name":"db-1","client_request_id":"tx-fault"}`
	first, isErr := call(t, pgSession(t, repo, idem), "createElement", args)
	if !isErr || first["error"].(map[string]any)["code"] != "INTERNAL" {
		t.Fatalf("faulted call = %v; want INTERNAL", first)
	}
	repo.Fault = nil
	retry, isErr := call(t, pgSession(t, repo, idem), "createElement", args)
	if isErr || retry["idempotent_replay"] != true {
		t.Fatalf("retry = %v; want the committed answer replayed", retry)
	}
	if n := outboxCount(t, repo); n != 1 {
		t.Fatalf("outbox rows = %d, want 1 (executed once)", n)
	}
	// A write without a key still commits its outbox row (no outcome to record).
	if _, isErr := call(t, pgSession(t, repo, idem), "createElement", `{"type":"Node","name":"db-2"}`); isErr {
		t.Fatal("unkeyed write failed")
	}
	if n := outboxCount(t, repo); n != 2 {
		t.Fatalf("outbox rows = %d, want 2", n)
	}
}
