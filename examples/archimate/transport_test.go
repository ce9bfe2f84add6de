package archimate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcphttp"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// bearer adds an Authorization header (and optional extra headers) to every request.
type bearer struct {
	token   string
	headers map[string]string
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	for k, v := range b.headers {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func httpSession(t *testing.T, url string, rt http.RoundTripper) (*mcp.ClientSession, error) {
	t.Helper()
	client := mcptest.NewClient(t, &mcp.Implementation{Name: "http-e2e", Version: "test"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: rt}}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

func TestStreamableHTTPTakesIdentityFromTheBearerToken(t *testing.T) {
	repo := domain.New()
	s, err := server.New(repo, runtime.WithRequestContextFunc(mcphttp.RequestContextFromCall))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(server.HTTPHandler(s, map[string]server.Identity{"tok-acme": {Tenant: "tenant-acme", Principal: "user-ada"}}))
	t.Cleanup(ts.Close)

	if _, err := httpSession(t, ts.URL, bearer{token: "wrong"}); err == nil {
		t.Fatal("a session with an unknown token was accepted")
	}
	cs, err := httpSession(t, ts.URL, bearer{token: "tok-acme", headers: map[string]string{"X-Correlation-Id": "corr-http-7"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "createElement", Arguments: json.RawMessage(`{"type":"Node","name":"db-1"}`)})
	if err != nil || res.IsError {
		t.Fatalf("call: err=%v result=%v", err, res)
	}
	req := repo.Received()[0].(*archimatev1.CreateElementRequest)
	meta := req.GetMeta()
	if meta.GetTenantId() != "tenant-acme" || meta.GetPrincipalId() != "user-ada" || meta.GetCorrelationId() != "corr-http-7" {
		t.Fatalf("meta = tenant %q principal %q correlation %q", meta.GetTenantId(), meta.GetPrincipalId(), meta.GetCorrelationId())
	}
	// No traceparent was sent: the middleware generated a valid one.
	parts := strings.Split(meta.GetTraceparent(), "-")
	if len(parts) != 4 || parts[0] != "00" || len(parts[1]) != 32 || len(parts[2]) != 16 {
		t.Fatalf("traceparent = %q", meta.GetTraceparent())
	}
}

func TestMetaCarriesTraceButNeverIdentity(t *testing.T) {
	repo := domain.New()
	s, err := server.New(repo, runtime.WithRequestContextFunc(runtime.StaticRequestContext(runtime.RequestContext{TenantID: "tenant-acme", PrincipalID: "user-ada"})))
	if err != nil {
		t.Fatal(err)
	}
	cs := mcptest.Connect(t, s, mcptest.Options{})
	tp := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	params := &mcp.CallToolParams{Name: "createElement", Arguments: json.RawMessage(`{"type":"Node","name":"db-2"}`)}
	params.SetMeta(map[string]any{"traceparent": tp, "io.mcpwrite/correlation_id": "corr-meta", "tenant_id": "tenant-evil", "io.mcpwrite/tenant_id": "tenant-evil"})
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("call: err=%v result=%v", err, res)
	}
	meta := repo.Received()[0].(*archimatev1.CreateElementRequest).GetMeta()
	if meta.GetTraceparent() != tp || meta.GetCorrelationId() != "corr-meta" || meta.GetTenantId() != "tenant-acme" {
		t.Fatalf("meta = %v", meta)
	}
}

func TestServerBinaryOverStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary")
	}
	bin := serverBinary(t)
	client := mcptest.NewClient(t, &mcp.Implementation{Name: "stdio-e2e", Version: "test"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: exec.Command(bin, "-tenant", "tenant-stdio", "-principal", "user-stdio")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 14 {
		t.Fatalf("tools/list: err=%v n=%d", err, len(tools.Tools))
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "createElement", Arguments: json.RawMessage(`{"type":"Capability","name":"Fulfillment"}`)})
	if err != nil || res.IsError {
		t.Fatalf("call: err=%v result=%v", err, res)
	}
	el := res.StructuredContent.(map[string]any)["element"].(map[string]any)
	if el["model_id"] != "model-tenant-stdio-main" || el["layer"] != "Strategy" {
		t.Fatalf("element = %v", el)
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "createElement", Arguments: json.RawMessage(`{"type":"Capabilities","name":"X"}`)})
	if err != nil || !res.IsError {
		t.Fatalf("typo: err=%v result=%v", err, res)
	}
	e := res.StructuredContent.(map[string]any)["error"].(map[string]any)
	if dym := e["suggestions"].(map[string]any)["did_you_mean"].([]any); dym[0] != "Capability" {
		t.Fatalf("did_you_mean = %v", dym)
	}
}

// A retry after the server process restarted replays from PostgreSQL: the
// adapter-restart row of the idempotency failure table, with real processes.
func TestReplayAcrossServerProcessRestart(t *testing.T) {
	dsn := os.Getenv("MCPWRITE_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("set MCPWRITE_TEST_POSTGRES_DSN to run against PostgreSQL")
	}
	if testing.Short() {
		t.Skip("builds the server binary")
	}
	bin := serverBinary(t)
	key := fmt.Sprintf("restart-%d", time.Now().UnixNano())
	prefix := fmt.Sprintf("restart_%d", time.Now().UnixNano()%1e12) // tables of this run only
	t.Cleanup(func() {
		pool, err := pgxpool.New(context.Background(), dsn)
		if err == nil {
			_, _ = pool.Exec(context.Background(), fmt.Sprintf("DROP TABLE IF EXISTS %[1]s_relationships, %[1]s_properties, %[1]s_elements, %[1]s_state, %[1]s_outbox, %[1]s_schema_migrations, %[1]s_idem, %[1]s_proposals CASCADE", prefix))
			pool.Close()
		}
	})
	args := json.RawMessage(`{"type":"Node","name":"db-restart","client_request_id":"` + key + `"}`)
	var results []map[string]any
	for range 2 {
		cmd := exec.Command(bin, "-tenant", "tenant-restart", "-postgres", dsn, "-pg-prefix", prefix)
		cmd.Env = append(os.Environ(), "MCPWRITE_ID_SECRET=restart-secret-0123456789abcdef0123456789",
			"MCPWRITE_SIGNING_KEY=restart-signing-key-9f86d081884c7d659a2feaa0c55ad015")
		cs, err := mcptest.NewClient(t, &mcp.Implementation{Name: "restart", Version: "test"}, nil).
			Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "createElement", Arguments: args})
		cs.Close() // the process exits: its in-memory cache and domain are gone
		if err != nil || res.IsError {
			t.Fatalf("call: %v %v", err, res)
		}
		results = append(results, res.StructuredContent.(map[string]any))
	}
	if results[0]["idempotent_replay"] != nil || results[1]["idempotent_replay"] != true {
		t.Fatalf("first must execute, second replay: %v / %v", results[0]["idempotent_replay"], results[1]["idempotent_replay"])
	}
	if results[0]["element"].(map[string]any)["id"] != results[1]["element"].(map[string]any)["id"] {
		t.Fatalf("replay returned another element: %v vs %v", results[0]["element"], results[1]["element"])
	}
}

// An embedding server can establish the request context itself, in process:
// a receiving middleware puts it on the context, and the generated tools
// read it without any WithRequestContextFunc.
func TestInProcessRequestContextFromMiddleware(t *testing.T) {
	repo := domain.New()
	s, err := server.New(repo)
	if err != nil {
		t.Fatal(err)
	}
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			rc := runtime.RequestContext{TenantID: "tenant-mw", PrincipalID: "user-mw", CorrelationID: "corr-mw"}
			return next(runtime.WithRequestContext(ctx, rc), method, req)
		}
	})
	cs := mcptest.Connect(t, s, mcptest.Options{})
	if res := mcptest.Call(t, cs, "createElement", `{"type":"Node","name":"db-mw"}`); res.IsError {
		t.Fatalf("call: %s", res.Text)
	}
	meta := repo.Received()[0].(*archimatev1.CreateElementRequest).GetMeta()
	if meta.GetTenantId() != "tenant-mw" || meta.GetPrincipalId() != "user-mw" || meta.GetCorrelationId() != "corr-mw" {
		t.Fatalf("meta = %v", meta)
	}
}
