package runtime_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/gosdk"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
)

func TestRequestContextComesFromTheContextByDefault(t *testing.T) {
	dom := newDomain()
	server := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v0"}, nil)
	// The embedding server's middleware establishes the caller.
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			return next(runtime.WithRequestContext(ctx, runtime.RequestContext{TenantID: "initech", CorrelationID: "c-9"}), method, req)
		}
	})
	if err := gosdk.Register(server, dom.service()); err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "validate_write",
		Arguments: map[string]any{"operation": "delete_note", "payload": map[string]any{"id": "n1"}}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, `"meta":{"tenant_id":"initech","correlation_id":"c-9",`) {
		t.Fatalf("request context not applied: %s", text)
	}
}

func TestInFlightKeyAnswersInProgress(t *testing.T) {
	store := idempotency.NewMemoryStore()
	h := newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithIdempotency(runtime.IdempotencyOptions{Store: store})}})
	args := `{"title":"Buy milk","client_request_id":"busy"}`
	fp, err := idempotency.Fingerprint([]byte(args))
	if err != nil {
		t.Fatal(err)
	}
	// Another instance holds the key.
	k := idempotency.ScopedKey("acme", "alice", "create_note", "busy")
	if cr, err := store.Claim(context.Background(), k, fp, h.clock.Now(), idempotency.DefaultLease); err != nil || !cr.Claimed {
		t.Fatalf("claim: %v %v", cr, err)
	}
	got := h.call(alice, "create_note", args)
	want := compact(`{"success":false,
		"error":{"code":"IDEMPOTENCY_IN_PROGRESS","message":"a request with client_request_id \"busy\" is still being processed","field":"client_request_id","details":{"client_request_id":"busy"},"suggestions":{"hint":"Wait a few seconds and retry with the same client_request_id and arguments; it will return the result."}},
		"errors":[{"code":"IDEMPOTENCY_IN_PROGRESS","message":"a request with client_request_id \"busy\" is still being processed","field":"client_request_id","details":{"client_request_id":"busy"},"suggestions":{"hint":"Wait a few seconds and retry with the same client_request_id and arguments; it will return the result."}}]}`)
	if !got.isError || got.text != want {
		t.Fatalf("got\n%s\nwant\n%s", got.text, want)
	}
	if h.dom.count("create_note") != 0 {
		t.Fatal("a second execution ran")
	}
}

func TestIdempotencyCanBeTurnedOff(t *testing.T) {
	h := newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithIdempotency(runtime.IdempotencyOptions{Disable: true})}})
	for i := 0; i < 2; i++ {
		if got := h.call(alice, "create_note", `{"title":"Buy milk","client_request_id":"k"}`); strings.Contains(got.text, "idempotent_replay") {
			t.Fatalf("replayed without a store: %s", got.text)
		}
	}
	if n := h.dom.count("create_note"); n != 2 {
		t.Fatalf("handler calls %d, want 2", n)
	}
}
