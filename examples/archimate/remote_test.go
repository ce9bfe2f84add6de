package archimate_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"connectrpc.com/connect"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1connect"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// traceSeen records the trace headers each call brought to the service.
type traceSeen struct {
	mu    sync.Mutex
	calls []map[string]string
}

func (s *traceSeen) add(get func(string) string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, map[string]string{
		"traceparent": get("traceparent"), "x-correlation-id": get("x-correlation-id"), "x-causation-id": get("x-causation-id"),
	})
}

// grpcService is the domain behind a real gRPC server.
type grpcService struct {
	archimatev1.UnimplementedArchitectureServiceServer
	repo *domain.Repository
	seen *traceSeen
}

func (s *grpcService) note(ctx context.Context) {
	md, _ := metadata.FromIncomingContext(ctx)
	s.seen.add(func(k string) string {
		if v := md.Get(k); len(v) == 1 {
			return v[0]
		}
		return ""
	})
}

func (s *grpcService) CreateElement(ctx context.Context, in *archimatev1.CreateElementRequest) (*archimatev1.CreateElementResponse, error) {
	s.note(ctx)
	return s.repo.CreateElement(ctx, in)
}

func (s *grpcService) CreateCapability(ctx context.Context, in *archimatev1.CreateCapabilityRequest) (*archimatev1.CreateCapabilityResponse, error) {
	s.note(ctx)
	return s.repo.CreateCapability(ctx, in)
}

// connectService is the domain behind a real connect-go server.
type connectService struct {
	archimatev1connect.UnimplementedArchitectureServiceHandler
	repo *domain.Repository
	seen *traceSeen
}

func (s *connectService) CreateElement(ctx context.Context, req *connect.Request[archimatev1.CreateElementRequest]) (*connect.Response[archimatev1.CreateElementResponse], error) {
	s.seen.add(req.Header().Get)
	if req.Msg.GetName() == "Taken" {
		return nil, connect.NewError(connect.CodeAlreadyExists, errTaken)
	}
	res, err := s.repo.CreateElement(ctx, req.Msg)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(res), nil
}

type takenError struct{}

func (takenError) Error() string { return "an element named Taken already exists" }

var errTaken = takenError{}

// remoteRC is the caller of the tool calls the adapters forward.
var remoteRC = runtime.RequestContext{
	TenantID: "tenant-acme", PrincipalID: "user-ada", CorrelationID: "corr-remote-1", CausationID: "cause-remote-1",
	TraceParent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
}

var wantHeaders = map[string]string{
	"traceparent": remoteRC.TraceParent, "x-correlation-id": "corr-remote-1", "x-causation-id": "cause-remote-1",
}

// The gRPC client adapter forwards each tool call to a real gRPC server in
// process, with the request context as metadata.
func TestGRPCClientAdapterAgainstARealServer(t *testing.T) {
	repo, seen := domain.New(), &traceSeen{}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	archimatev1.RegisterArchitectureServiceServer(gs, &grpcService{repo: repo, seen: seen})
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })

	server := newGateway(t, archimatev1mcpwrite.NewArchitectureServiceClientAdapter(archimatev1.NewArchitectureServiceClient(conn), repo))
	cs := mcptest.Connect(t, server, mcptest.Options{})
	if out, isErr := call(t, cs, "createElement", `{"type":"DataObject","name":"Invoice"}`); isErr {
		t.Fatalf("createElement: %v", out)
	}
	if out, isErr := call(t, cs, "createCapability", `{"name":"Billing","profile":{"owner":"Finance","criticality":"High","lifecycle":"Active"}}`); isErr {
		t.Fatalf("createCapability: %v", out)
	}
	if len(seen.calls) != 2 {
		t.Fatalf("the service saw %d calls, want 2", len(seen.calls))
	}
	for i, h := range seen.calls {
		for k, v := range wantHeaders {
			if h[k] != v {
				t.Errorf("call %d: metadata %s = %q, want %q", i, k, h[k], v)
			}
		}
	}
	req := repo.Received()[0].(*archimatev1.CreateElementRequest)
	if req.GetMeta().GetCorrelationId() != "corr-remote-1" || req.GetLayer() != archimatev1.Layer_LAYER_APPLICATION {
		t.Fatalf("forwarded request = %v", req)
	}
}

// The connect-go client adapter forwards to a real connect server in
// process, with the request context as headers; a connect error reaches the
// agent with its code.
func TestConnectClientAdapterAgainstARealServer(t *testing.T) {
	repo, seen := domain.New(), &traceSeen{}
	mux := http.NewServeMux()
	mux.Handle(archimatev1connect.NewArchitectureServiceHandler(&connectService{repo: repo, seen: seen}))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	client := archimatev1connect.NewArchitectureServiceClient(ts.Client(), ts.URL)

	server := newGateway(t, archimatev1mcpwrite.NewArchitectureServiceConnectAdapter(client, repo))
	cs := mcptest.Connect(t, server, mcptest.Options{})
	out, isErr := call(t, cs, "createElement", `{"type":"DataObject","name":"Invoice"}`)
	if isErr {
		t.Fatalf("createElement: %v", out)
	}
	if el := out["element"].(map[string]any); el["name"] != "Invoice" || el["layer"] != "Application" {
		t.Fatalf("element = %v", el)
	}
	out, isErr = call(t, cs, "createElement", `{"type":"DataObject","name":"Taken"}`)
	e, _ := out["error"].(map[string]any)
	if !isErr || e["code"] != "ALREADY_EXISTS" || e["message"] != "an element named Taken already exists" {
		t.Fatalf("connect error answer: %v", out)
	}
	if len(seen.calls) != 2 {
		t.Fatalf("the service saw %d calls, want 2", len(seen.calls))
	}
	for i, h := range seen.calls {
		for k, v := range wantHeaders {
			if h[k] != v {
				t.Errorf("call %d: header %s = %q, want %q", i, k, h[k], v)
			}
		}
	}
}

// newGateway is an MCP server whose tools forward through h.
func newGateway(t *testing.T, h archimatev1mcpwrite.ArchitectureServiceHandler) *mcp.Server {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "archimate-gateway", Version: "test"}, nil)
	if err := archimatev1mcpwrite.RegisterArchitectureServiceTools(server, h,
		runtime.WithRequestContextFunc(runtime.StaticRequestContext(remoteRC))); err != nil {
		t.Fatal(err)
	}
	return server
}
