package archimate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	idempg "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/pgstore"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/redisstore"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
	proposalpg "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal/pgstore"
)

// durable connects to the real PostgreSQL and Redis of the machine and
// returns fresh, per-test tables and key prefix.
func durable(t *testing.T) (idempotency.Store, *redis.Client, proposal.Store) {
	t.Helper()
	dsn := os.Getenv("MCPWRITE_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("set MCPWRITE_TEST_POSTGRES_DSN to run against PostgreSQL")
	}
	addr := os.Getenv("MCPWRITE_TEST_REDIS_ADDR")
	if addr == "" {
		t.Skip("set MCPWRITE_TEST_REDIS_ADDR to run against Redis")
	}
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	suffix := fmt.Sprintf("%d_%d", time.Now().UnixNano(), rand.IntN(1<<20))
	idemTable, propTable := "archimate_idem_"+suffix, "archimate_prop_"+suffix
	idem := idempg.New(pool, idempg.WithTable(idemTable))
	props := proposalpg.New(pool, proposalpg.WithTable(propTable))
	if err := idem.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := props.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = pool.Exec(context.Background(), "DROP TABLE IF EXISTS "+idemTable+", "+propTable+" CASCADE")
	})
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { rdb.Close() })
	return idem, rdb, props
}

// instance is one server process of a horizontally scaled deployment: its
// own domain replica view, its own Redis-backed cache layer, shared stores.
func instance(t *testing.T, repo *domain.Repository, idem idempotency.Store, props proposal.Store) *mcp.ClientSession {
	t.Helper()
	s, err := server.New(repo,
		runtime.WithClock(func() time.Time { return fixedNow }),
		runtime.WithRequestContextFunc(runtime.StaticRequestContext(devRC)),
		runtime.WithIdempotency(runtime.IdempotencyOptions{Store: idem}),
		runtime.WithProposals(props, 0))
	if err != nil {
		t.Fatal(err)
	}
	return mcptest.Connect(t, s, mcptest.Options{})
}

func TestReplayAcrossInstancesAndRestarts(t *testing.T) {
	pg, rdb, props := durable(t)
	// Each instance has its own Redis prefix (as if each region ran its own
	// cache) and a fresh in-memory cache (an adapter restart loses it), so
	// only PostgreSQL can know the first call: the replay proves its path.
	n := 0
	layered := func() idempotency.Store {
		n++
		prefix := fmt.Sprintf("archimate-test:%d:%d:", time.Now().UnixNano(), n)
		return idempotency.NewLayered(idempotency.NewLayered(idempotency.NewMemoryStore(), redisstore.New(rdb, redisstore.WithPrefix(prefix))), pg)
	}
	args := `{"type":"ApplicationComponent","name":"OrderService","client_request_id":"create-order-service"}`

	repoA := domain.New()
	first, isErr := call(t, instance(t, repoA, layered(), props), "createElement", args)
	if isErr {
		t.Fatalf("first call: %v", first)
	}
	// Another instance (its own cache) after a restart: PostgreSQL catches the duplicate.
	repoB := domain.New()
	replay, isErr := call(t, instance(t, repoB, layered(), props), "createElement", args)
	if isErr {
		t.Fatalf("replay: %v", replay)
	}
	if len(repoB.Received()) != 0 {
		t.Fatalf("the second instance executed the write again")
	}
	if replay["idempotent_replay"] != true || replay["original_request_time"] != "2026-11-22T10:30:00Z" {
		t.Fatalf("replay markers: %v", replay)
	}
	if diff := cmp.Diff(first["element"], replay["element"]); diff != "" {
		t.Fatalf("replayed element differs (-first +replay):\n%s", diff)
	}
	// Same key, other arguments: refused, never executed.
	other, isErr := call(t, instance(t, domain.New(), layered(), props), "createElement", `{"type":"Node","name":"db","client_request_id":"create-order-service"}`)
	if !isErr || other["error"].(map[string]any)["code"] != runtime.CodeIdempotencyKeyReused {
		t.Fatalf("key reuse: %v", other)
	}
}

func TestProposalMadeOnOneInstanceIsAppliedOnAnother(t *testing.T) {
	pg, _, props := durable(t)
	repo := domain.New()
	a := instance(t, repo, pg, props)
	created, _ := call(t, a, "createElement", `{"type":"Node","name":"db-1"}`)
	id := createdID(t, created)
	// deleteElement is destructive; this client has no elicitation, so it gets a proposal.
	out, isErr := call(t, a, "deleteElement", `{"id":"`+id+`"}`)
	if isErr {
		t.Fatalf("delete: %v", out)
	}
	p := out["proposal"].(map[string]any)
	if p["tool"] != "deleteElement" || p["classification"] != "DESTRUCTIVE_DELETE" {
		t.Fatalf("proposal = %v", p)
	}
	b := instance(t, repo, pg, props)
	args, _ := json.Marshal(map[string]string{"proposal_id": p["proposal_id"].(string)})
	applied, isErr := call(t, b, "applyProposal", string(args))
	if isErr || applied["id"] != id {
		t.Fatalf("apply on the other instance: %v", applied)
	}
	again, isErr := call(t, a, "applyProposal", string(args))
	if isErr || again["idempotent_replay"] != true {
		t.Fatalf("second apply must replay: %v", again)
	}
}

// countingRepo counts domain executions.
type countingRepo struct {
	*domain.Repository
	n atomic.Int32
}

func (c *countingRepo) CreateElement(ctx context.Context, in *archimatev1.CreateElementRequest) (*archimatev1.CreateElementResponse, error) {
	c.n.Add(1)
	time.Sleep(20 * time.Millisecond) // hold the claim while the others arrive
	return c.Repository.CreateElement(ctx, in)
}

// Sixty-four concurrent calls with one key execute once against each store
// alone and against the layered store: memory, Redis, PostgreSQL, and Redis
// in front of PostgreSQL.
func TestSixtyFourConcurrentCallsWithOneKeyExecuteOnce(t *testing.T) {
	pg, rdb, props := durable(t)
	prefix := func(layer string) string { return fmt.Sprintf("archimate-conc:%s:%d:", layer, time.Now().UnixNano()) }
	for _, tt := range []struct {
		layer string
		store idempotency.Store
	}{
		{"memory", idempotency.NewMemoryStore()},
		{"redis", redisstore.New(rdb, redisstore.WithPrefix(prefix("redis")))},
		{"postgres", pg},
		{"layered", idempotency.NewLayered(redisstore.New(rdb, redisstore.WithPrefix(prefix("layered"))), pg)},
	} {
		t.Run(tt.layer, func(t *testing.T) {
			sixtyFourWithOneKey(t, tt.store, props, "conc-"+tt.layer)
		})
	}
}

func sixtyFourWithOneKey(t *testing.T, store idempotency.Store, props proposal.Store, key string) {
	repo := &countingRepo{Repository: domain.New()}
	s := mcp.NewServer(&mcp.Implementation{Name: "archimate", Version: "test"}, nil)
	if err := archimatev1mcpwrite.RegisterArchitectureServiceTools(s, repo,
		runtime.WithRequestContextFunc(runtime.StaticRequestContext(devRC)),
		runtime.WithIdempotency(runtime.IdempotencyOptions{Store: store}), runtime.WithProposals(props, 0)); err != nil {
		t.Fatal(err)
	}
	cs := mcptest.Connect(t, s, mcptest.Options{})

	var wg sync.WaitGroup
	outcomes := make(chan string, 64)
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "createElement",
				Arguments: json.RawMessage(`{"type":"Node","name":"db-1","client_request_id":"` + key + `"}`)})
			if err != nil {
				outcomes <- "protocol error: " + err.Error()
				return
			}
			var body map[string]any
			raw, _ := json.Marshal(res.StructuredContent)
			_ = json.Unmarshal(raw, &body)
			switch {
			case res.IsError:
				outcomes <- body["error"].(map[string]any)["code"].(string)
			case body["idempotent_replay"] == true:
				outcomes <- "replay"
			default:
				outcomes <- "executed"
			}
		}()
	}
	wg.Wait()
	close(outcomes)
	counts := map[string]int{}
	for o := range outcomes {
		counts[o]++
	}
	if repo.n.Load() != 1 || counts["executed"] != 1 || counts["executed"]+counts["replay"]+counts[runtime.CodeIdempotencyInProgress] != 64 {
		t.Fatalf("domain executions %d, outcomes %v; want exactly one execution, the rest replays or IDEMPOTENCY_IN_PROGRESS", repo.n.Load(), counts)
	}
	t.Logf("64 concurrent calls: %v", counts)
}
