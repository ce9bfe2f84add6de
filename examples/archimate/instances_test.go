package archimate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/pgdomain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	idempg "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/pgstore"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/redisstore"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcphttp"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
	proposalpg "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal/pgstore"
)

// cluster is n stateless instances of the reference server sharing
// PostgreSQL (repository, keys, proposals) and Redis (key cache), each with
// its own in-process cache, behind a round-robin reverse proxy.
type cluster struct {
	url   string
	hits  []atomic.Int64
	pool  *pgxpool.Pool
	table string
}

func newCluster(t *testing.T, n int, signingKeys [][]byte) *cluster {
	t.Helper()
	return newClusterWith(t, n, signingKeys)
}

// newClusterTB is a cluster with one shared signing key, for benchmarks.
func newClusterTB(b *testing.B, n int) *cluster {
	b.Helper()
	return newClusterWith(b, n, [][]byte{sharedKey})
}

func newClusterWith(t testing.TB, n int, signingKeys [][]byte) *cluster {
	t.Helper()
	dsn, addr := os.Getenv("MCPWRITE_TEST_POSTGRES_DSN"), os.Getenv("MCPWRITE_TEST_REDIS_ADDR")
	if dsn == "" || addr == "" {
		t.Skip("set MCPWRITE_TEST_POSTGRES_DSN and MCPWRITE_TEST_REDIS_ADDR to run the multi-instance tests")
	}
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	prefix := fmt.Sprintf("cluster_%d", time.Now().UnixNano()%1e12)
	t.Cleanup(func() {
		_, _ = pool.Exec(context.Background(), fmt.Sprintf("DROP TABLE IF EXISTS %[1]s_relationships, %[1]s_properties, %[1]s_elements, %[1]s_state, %[1]s_outbox, %[1]s_schema_migrations, %[1]s_idem, %[1]s_proposals CASCADE", prefix))
	})
	idem := idempg.New(pool, idempg.WithTable(prefix+"_idem"))
	props := proposalpg.New(pool, proposalpg.WithTable(prefix+"_proposals"))
	if err := idem.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := props.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(redisstore.ClientOptions(addr))
	t.Cleanup(func() { rdb.Close() })
	c := &cluster{hits: make([]atomic.Int64, n), pool: pool, table: prefix}
	var backends []*url.URL
	for i := range n {
		repo, err := pgdomain.New(pool, idem, prefix, pgdomain.WithProposals(props))
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if err := repo.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
		}
		cache := idempotency.NewLayered(idempotency.NewMemoryStore(), redisstore.New(rdb, redisstore.WithPrefix(prefix+":")))
		s, err := server.New(repo,
			runtime.WithRequestContextFunc(runtime.StaticRequestContext(devRC)),
			runtime.WithIdempotency(runtime.IdempotencyOptions{Store: idempotency.NewLayered(cache, idem), ClaimInHandler: true}),
			runtime.WithProposals(props, 0),
			runtime.WithSecrets(nil, signingKeys[i%len(signingKeys)]))
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(mcphttp.Handler(s, mcphttp.WithStateless()))
		t.Cleanup(ts.Close)
		u, _ := url.Parse(ts.URL)
		backends = append(backends, u)
	}
	var next atomic.Int64
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		i := int(next.Add(1)-1) % n
		c.hits[i].Add(1)
		r.SetURL(backends[i])
	}}
	ps := httptest.NewServer(proxy)
	t.Cleanup(ps.Close)
	c.url = ps.URL
	return c
}

// asked counts the confirmations the test user was asked for.
var asked atomic.Int64

func (c *cluster) connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	asked.Store(0)
	cs, err := mcptest.NewClient(t, &mcp.Implementation{Name: "cluster-test", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Add(1)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
		},
	}).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: c.url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func (c *cluster) count(t *testing.T, query string) int {
	t.Helper()
	var n int
	if err := c.pool.QueryRow(context.Background(), fmt.Sprintf(query, c.table)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func structured(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	b, _ := json.Marshal(res.StructuredContent)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

var sharedKey = []byte("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")

// Thirty same-key calls spread over three instances execute once: one
// element, one outbox row, one completed key in the database.
func TestSameKeyOverThreeInstancesExecutesOnce(t *testing.T) {
	c := newCluster(t, 3, [][]byte{sharedKey})
	cs := c.connect(t)
	var wg sync.WaitGroup
	var executed, replayed, inProgress atomic.Int64
	for range 30 {
		wg.Go(func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "createElement",
				Arguments: json.RawMessage(`{"type":"Node","name":"db-1","description":"d","client_request_id":"spread-1"}`)})
			if err != nil {
				t.Error(err)
				return
			}
			out := structured(t, res)
			switch {
			case res.IsError && out["error"].(map[string]any)["code"] == "IDEMPOTENCY_IN_PROGRESS":
				inProgress.Add(1)
			case res.IsError:
				t.Errorf("call failed: %v", out)
			case out["idempotent_replay"] == true:
				replayed.Add(1)
			default:
				executed.Add(1)
			}
		})
	}
	wg.Wait()
	for i := range c.hits {
		if c.hits[i].Load() == 0 {
			t.Fatalf("instance %d served nothing: the proxy did not spread the calls", i)
		}
	}
	elements := c.count(t, `SELECT count(*) FROM %s_elements WHERE tenant = 'tenant-acme'`)
	outbox := c.count(t, `SELECT count(*) FROM %s_outbox`)
	if executed.Load() != 1 || elements != 1 || outbox != 1 {
		t.Fatalf("executed %d (replayed %d, in progress %d), database: %d elements, %d outbox rows; want 1, 1, 1",
			executed.Load(), replayed.Load(), inProgress.Load(), elements, outbox)
	}
	t.Logf("30 calls over 3 instances (hits %d/%d/%d): 1 executed, %d replayed, %d in progress", c.hits[0].Load(), c.hits[1].Load(), c.hits[2].Load(), replayed.Load(), inProgress.Load())
}

// A proposal made on one instance is applied on another.
func TestProposalAcrossInstances(t *testing.T) {
	c := newCluster(t, 3, [][]byte{sharedKey})
	cs, err := mcptest.NewClient(t, &mcp.Implementation{Name: "cluster-test", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: c.url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	created, isErr := call(t, cs, "createElement", `{"type":"Node","name":"db-2","description":"d"}`)
	if isErr {
		t.Fatal(created)
	}
	id := createdID(t, created)
	before := [3]int64{c.hits[0].Load(), c.hits[1].Load(), c.hits[2].Load()}
	out, _ := call(t, cs, "deleteElement", `{"id":"`+id+`"}`)
	p, _ := out["proposal"].(map[string]any)
	if p == nil {
		t.Fatalf("want a proposal, got %v", out)
	}
	applied, isErr := call(t, cs, "applyProposal", `{"proposal_id":"`+p["proposal_id"].(string)+`"}`)
	if isErr || applied["id"] != id {
		t.Fatalf("apply: %v", applied)
	}
	spread := 0
	for i := range c.hits {
		if c.hits[i].Load() > before[i] {
			spread++
		}
	}
	if spread < 2 || c.count(t, `SELECT count(*) FROM %s_elements WHERE tenant = 'tenant-acme'`) != 0 {
		t.Fatalf("proposal and apply served by %d instances; element still there or not spread", spread)
	}
}

// An elicitation round trip asked on one instance is answered on another:
// with a shared signing key the write happens once; with another key the
// state is refused and nothing is written.
func TestConfirmationRoundTripAcrossInstances(t *testing.T) {
	for _, tt := range []struct {
		name     string
		keys     [][]byte
		wantCode string
	}{
		{"shared key", [][]byte{sharedKey}, ""},
		{"another key", [][]byte{sharedKey, []byte("60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752"), []byte("d4735e3a265e16eee03f59718b9b5d03019c07d8b6c51f90da3a666eec13ab35")}, "CONFIRMATION_INVALID"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newCluster(t, 3, tt.keys)
			cs := c.connect(t)
			created, isErr := call(t, cs, "createElement", `{"type":"Node","name":"db-3","description":"d"}`)
			if isErr {
				t.Fatal(created)
			}
			id := createdID(t, created)
			// The SDK client answers the input request itself (its elicitation
			// handler accepts) and calls again: two HTTP requests, which the
			// round-robin proxy sends to two different instances.
			before := [3]int64{c.hits[0].Load(), c.hits[1].Load(), c.hits[2].Load()}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deleteElement", Arguments: json.RawMessage(`{"id":"` + id + `"}`)})
			if err != nil {
				t.Fatal(err)
			}
			served := 0
			for i := range c.hits {
				if c.hits[i].Load() > before[i] {
					served++
				}
			}
			if served != 2 || asked.Load() != 1 {
				t.Fatalf("ask and answer served by %d instances, user asked %d times; want 2 and 1", served, asked.Load())
			}
			out := structured(t, res)
			left := c.count(t, `SELECT count(*) FROM %s_elements WHERE tenant = 'tenant-acme'`)
			if tt.wantCode == "" {
				if res.IsError || out["id"] != id || left != 0 {
					t.Fatalf("answer %v, %d elements left", out, left)
				}
				return
			}
			if !res.IsError || out["error"].(map[string]any)["code"] != tt.wantCode || left != 1 {
				t.Fatalf("answer %v, %d elements left; want %s and the element kept", out, left, tt.wantCode)
			}
		})
	}
}

// BenchmarkClusterThroughput is keyed writes per second through the
// round-robin proxy with one and with three stateless instances on the same
// PostgreSQL and Redis, eight concurrent clients:
//
//	go test -run '^$' -bench ClusterThroughput ./examples/archimate
func BenchmarkClusterThroughput(b *testing.B) {
	for _, n := range []int{1, 3} {
		b.Run(fmt.Sprintf("instances-%d", n), func(b *testing.B) {
			c := newClusterTB(b, n)
			cs, err := mcptest.NewClient(b, &mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: c.url}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			var seq atomic.Int64
			b.SetParallelism(4)
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := seq.Add(1)
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "createElement",
						Arguments: json.RawMessage(fmt.Sprintf(`{"type":"Node","name":"db-%d","description":"d","client_request_id":"bench-%d"}`, i, i))})
					if err != nil || res.IsError {
						b.Errorf("call %d: %v %v", i, err, res)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
		})
	}
}
