package archimate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1connect"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// The backends' secrets: none of them may reach the agent.
const (
	leakDSN     = "postgres://orders:hunter2@10.0.0.9:5432/orders"
	leakMessage = "cannot reach " + leakDSN + " (password=hunter2)"
)

// badBackend answers createElement as a failing backend does: "stall"
// holds the call until its deadline (or 20 s), "leak" answers UNAVAILABLE
// with a DSN and password, "missing" answers NOT_FOUND naming the
// database's address. It reports the deadline each call arrived with.
type badBackend struct {
	mode      string
	deadlines chan time.Duration
}

func (b *badBackend) createElement(ctx context.Context) error {
	if d, ok := ctx.Deadline(); ok {
		b.deadlines <- time.Until(d)
	} else {
		b.deadlines <- 0
	}
	switch b.mode {
	case "stall":
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Second):
		}
		return status.Error(codes.Unavailable, "stalled")
	case "leak":
		return status.Error(codes.Unavailable, leakMessage)
	default:
		return status.Error(codes.NotFound, "element Invoice not found in shard 10.0.0.9:5432")
	}
}

type badGRPC struct {
	archimatev1.UnimplementedArchitectureServiceServer
	b *badBackend
}

func (s *badGRPC) CreateElement(ctx context.Context, _ *archimatev1.CreateElementRequest) (*archimatev1.CreateElementResponse, error) {
	return nil, s.b.createElement(ctx)
}

type badConnect struct {
	archimatev1connect.UnimplementedArchitectureServiceHandler
	b *badBackend
}

func (s *badConnect) CreateElement(ctx context.Context, _ *connect.Request[archimatev1.CreateElementRequest]) (*connect.Response[archimatev1.CreateElementResponse], error) {
	err := s.b.createElement(ctx)
	st := status.Convert(err)
	return nil, connect.NewError(connect.Code(st.Code()), errorText(st.Message()))
}

type errorText string

func (e errorText) Error() string { return string(e) }

// endsObserver keeps every call's end.
type endsObserver struct {
	mu   sync.Mutex
	ends []runtime.CallEnd
}

func (o *endsObserver) CallStarted(ctx context.Context, _ runtime.CallStart) context.Context {
	return ctx
}
func (o *endsObserver) CallEnded(_ context.Context, c runtime.CallEnd) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.ends = append(o.ends, c)
}

// deadAddr is a loopback address nothing listens on.
func deadAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

const transientHint = "This is a temporary problem, not a problem with the arguments. Retry in a few seconds with the same arguments; quote the trace_id if it persists."

// Behind both client adapters, a dead, a stalled and a leaking backend:
// transient and connection errors are answered with fixed text and a
// trace_id (the original in the log and in the observer's CallEnd.Cause
// under that trace_id), a stalled backend is answered UNAVAILABLE at the
// adapter's deadline with a retry hint, and a business error keeps its
// message with the address redacted.
func TestClientAdaptersAgainstDeadStalledAndLeakingBackends(t *testing.T) {
	const timeout = 300 * time.Millisecond
	unavailable := map[string]any{"code": "UNAVAILABLE", "message": "service unavailable; retry later", "suggestions": map[string]any{"hint": transientHint}}
	stalled := map[string]any{"code": "UNAVAILABLE", "message": "the backend did not answer within 300ms",
		"details": map[string]any{"retry_after_seconds": 1.0}, "suggestions": map[string]any{"hint": transientHint}}
	missing := map[string]any{"code": "NOT_FOUND", "message": "element Invoice not found in shard [address]"}
	cases := []struct {
		mode   string
		want   map[string]any
		logged string // the original text, in the log and CallEnd.Cause
	}{
		{"dead", unavailable, "connection refused"},
		{"stall", stalled, "backend did not answer within 300ms"},
		{"leak", unavailable, leakMessage},
		{"missing", missing, ""},
	}
	for _, kind := range []string{"grpc", "connect"} {
		for _, tc := range cases {
			t.Run(kind+"/"+tc.mode, func(t *testing.T) {
				b := &badBackend{mode: tc.mode, deadlines: make(chan time.Duration, 4)}
				var h archimatev1mcpwrite.ArchitectureServiceHandler
				dead := ""
				if tc.mode == "dead" {
					dead = deadAddr(t)
				}
				switch kind {
				case "grpc":
					h = archimatev1mcpwrite.NewArchitectureServiceClientAdapter(grpcBackend(t, b, dead), domain.New(), runtime.WithBackendTimeout(timeout))
				case "connect":
					h = archimatev1mcpwrite.NewArchitectureServiceConnectAdapter(connectBackend(t, b, dead), domain.New(), runtime.WithBackendTimeout(timeout))
				}
				var logs syncBuffer
				obs := &endsObserver{}
				server := mcp.NewServer(&mcp.Implementation{Name: "archimate-gateway", Version: "test"}, nil)
				if err := archimatev1mcpwrite.RegisterArchitectureServiceTools(server, h,
					runtime.WithRequestContextFunc(runtime.StaticRequestContext(remoteRC)), runtime.WithObserver(obs),
					runtime.WithLogger(slog.New(slog.NewTextHandler(&logs, nil)))); err != nil {
					t.Fatal(err)
				}
				cs := mcptest.Connect(t, server, mcptest.Options{})
				start := time.Now()
				out, isErr := call(t, cs, "createElement", `{"type":"DataObject","name":"Invoice"}`)
				took := time.Since(start)
				e, _ := out["error"].(map[string]any)
				want := tc.want
				if tc.logged != "" {
					id, _ := e["trace_id"].(string)
					if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(id) {
						t.Fatalf("trace_id %q in %v", id, out)
					}
					want = withTraceID(want, id)
					if !strings.Contains(logs.String(), "trace_id="+id) || !strings.Contains(logs.String(), tc.logged) {
						t.Errorf("the log lacks the trace_id %s or %q:\n%s", id, tc.logged, logs.String())
					}
					obs.mu.Lock()
					end := obs.ends[len(obs.ends)-1]
					obs.mu.Unlock()
					if end.ErrorTraceID != id || end.Cause == nil || !strings.Contains(end.Cause.Error(), tc.logged) {
						t.Errorf("observer: trace_id %q cause %v, want %s and %q", end.ErrorTraceID, end.Cause, id, tc.logged)
					}
				}
				if !isErr || jsonText(t, e) != jsonText(t, want) {
					t.Fatalf("answer %s\nwant %s", jsonText(t, e), jsonText(t, want))
				}
				text, _ := json.Marshal(out)
				for _, secret := range []string{"hunter2", "10.0.0.9", "127.0.0.1", "5432", "postgres://"} {
					if bytes.Contains(text, []byte(secret)) {
						t.Fatalf("the answer leaks %q: %s", secret, text)
					}
				}
				if tc.mode == "stall" && (took < timeout || took > timeout+time.Second) {
					t.Fatalf("a stalled backend was answered after %s, want at the %s deadline", took, timeout)
				}
				if tc.mode != "dead" {
					if d := <-b.deadlines; d <= 0 || d > timeout {
						t.Fatalf("the backend saw a deadline %s away, want within (0, %s]", d, timeout)
					}
				}
			})
		}
	}
}

// grpcBackend serves b on a loopback gRPC server (or dials dead) and
// returns a client of it.
func grpcBackend(t *testing.T, b *badBackend, dead string) archimatev1.ArchitectureServiceClient {
	t.Helper()
	addr := dead
	if addr == "" {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		gs := grpc.NewServer()
		archimatev1.RegisterArchitectureServiceServer(gs, &badGRPC{b: b})
		go func() { _ = gs.Serve(lis) }()
		t.Cleanup(gs.Stop)
		addr = lis.Addr().String()
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return archimatev1.NewArchitectureServiceClient(conn)
}

// connectBackend serves b over httptest (or points at dead) and returns a
// connect-go client of it.
func connectBackend(t *testing.T, b *badBackend, dead string) archimatev1connect.ArchitectureServiceClient {
	t.Helper()
	if dead != "" {
		return archimatev1connect.NewArchitectureServiceClient(http.DefaultClient, "http://"+dead)
	}
	mux := http.NewServeMux()
	mux.Handle(archimatev1connect.NewArchitectureServiceHandler(&badConnect{b: b}))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return archimatev1connect.NewArchitectureServiceClient(ts.Client(), ts.URL)
}

func withTraceID(m map[string]any, id string) map[string]any {
	out := map[string]any{"trace_id": id}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// syncBuffer is a bytes.Buffer safe for the logger's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
