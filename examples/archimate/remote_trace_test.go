package archimate_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"connectrpc.com/connect"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
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
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/otelmcp"
)

// reservedName is the field violation the remote services below answer for
// the name "Reserved", as a domain service reports one.
func reservedName() error {
	st, err := status.New(codes.InvalidArgument, "element name is reserved").WithDetails(&errdetails.BadRequest{
		FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: "name", Description: "the name Reserved is reserved"}},
	})
	if err != nil {
		return err
	}
	return st.Err()
}

// violatingGRPC refuses "Reserved" with a field violation over gRPC.
type violatingGRPC struct{ grpcService }

func (s *violatingGRPC) CreateElement(ctx context.Context, in *archimatev1.CreateElementRequest) (*archimatev1.CreateElementResponse, error) {
	if in.GetName() == "Reserved" {
		s.note(ctx)
		return nil, reservedName()
	}
	return s.grpcService.CreateElement(ctx, in)
}

// violatingConnect refuses "Reserved" with the same violation as a Connect
// error detail.
type violatingConnect struct{ connectService }

func (s *violatingConnect) CreateElement(ctx context.Context, req *connect.Request[archimatev1.CreateElementRequest]) (*connect.Response[archimatev1.CreateElementResponse], error) {
	if req.Msg.GetName() != "Reserved" {
		return s.connectService.CreateElement(ctx, req)
	}
	s.seen.add(req.Header().Get)
	st := status.Convert(reservedName())
	ce := connect.NewError(connect.Code(st.Code()), errors.New(st.Message()))
	for _, d := range st.Details() {
		br, ok := d.(*errdetails.BadRequest)
		if !ok {
			return nil, errors.New("unexpected detail")
		}
		detail, err := connect.NewErrorDetail(br)
		if err != nil {
			return nil, err
		}
		ce.AddDetail(detail)
	}
	return nil, ce
}

// remoteAdapters are the two generated adapters, each over a real server in
// process whose calls seen records.
var remoteAdapters = map[string]func(*testing.T, *domain.Repository, *traceSeen) archimatev1mcpwrite.ArchitectureServiceHandler{
	"grpc": func(t *testing.T, repo *domain.Repository, seen *traceSeen) archimatev1mcpwrite.ArchitectureServiceHandler {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		gs := grpc.NewServer()
		archimatev1.RegisterArchitectureServiceServer(gs, &violatingGRPC{grpcService{repo: repo, seen: seen}})
		go func() { _ = gs.Serve(lis) }()
		t.Cleanup(gs.Stop)
		conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = conn.Close() })
		return archimatev1mcpwrite.NewArchitectureServiceClientAdapter(archimatev1.NewArchitectureServiceClient(conn), repo)
	},
	"connect": func(t *testing.T, repo *domain.Repository, seen *traceSeen) archimatev1mcpwrite.ArchitectureServiceHandler {
		mux := http.NewServeMux()
		mux.Handle(archimatev1connect.NewArchitectureServiceHandler(&violatingConnect{connectService{repo: repo, seen: seen}}))
		ts := httptest.NewServer(mux)
		t.Cleanup(ts.Close)
		return archimatev1mcpwrite.NewArchitectureServiceConnectAdapter(archimatev1connect.NewArchitectureServiceClient(ts.Client(), ts.URL), repo)
	},
}

// A domain service's field violation reaches the agent the same way through
// either adapter: a Connect error keeps its details.
func TestClientAdaptersReportTheServiceFieldViolation(t *testing.T) {
	want := []any{map[string]any{"code": "VALIDATION_ERROR", "field": "name", "message": "the name Reserved is reserved"}}
	for name, adapter := range remoteAdapters {
		t.Run(name, func(t *testing.T) {
			repo, seen := domain.New(), &traceSeen{}
			cs := mcptest.Connect(t, newGateway(t, adapter(t, repo, seen)), mcptest.Options{})
			out, isErr := call(t, cs, "createElement", `{"type":"DataObject","name":"Reserved"}`)
			if !isErr || !reflect.DeepEqual(out["errors"], want) {
				t.Fatalf("answer = %v, want errors %v", out, want)
			}
			if len(seen.calls) != 1 || !reflect.DeepEqual(seen.calls[0], wantHeaders) {
				t.Errorf("the service saw %v, want one call with %v", seen.calls, wantHeaders)
			}
		})
	}
}

// With the OpenTelemetry observer, both adapters send the tool call's span
// as the traceparent: the caller's trace, the span "tools/call
// createElement" as the domain service's parent.
func TestClientAdaptersSendTheToolCallSpan(t *testing.T) {
	for name, adapter := range remoteAdapters {
		t.Run(name, func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			obs, err := otelmcp.New(otelmcp.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))), otelmcp.WithLogger(nil))
			if err != nil {
				t.Fatal(err)
			}
			repo, seen := domain.New(), &traceSeen{}
			server := mcp.NewServer(&mcp.Implementation{Name: "archimate-gateway", Version: "test"}, nil)
			if err := archimatev1mcpwrite.RegisterArchitectureServiceTools(server, adapter(t, repo, seen),
				runtime.WithRequestContextFunc(runtime.StaticRequestContext(remoteRC)), runtime.WithObserver(obs)); err != nil {
				t.Fatal(err)
			}
			cs := mcptest.Connect(t, server, mcptest.Options{})
			if out, isErr := call(t, cs, "createElement", `{"type":"DataObject","name":"Invoice"}`); isErr {
				t.Fatalf("createElement: %v", out)
			}
			spans := rec.Ended()
			if len(spans) != 1 || spans[0].Name() != "tools/call createElement" {
				t.Fatalf("spans = %v", spans)
			}
			sc := spans[0].SpanContext()
			if got := sc.TraceID().String(); got != "4bf92f3577b34da6a3ce929d0e0e4736" {
				t.Errorf("trace id = %s, want the caller's", got)
			}
			want := map[string]string{
				"traceparent":      "00-4bf92f3577b34da6a3ce929d0e0e4736-" + sc.SpanID().String() + "-01",
				"x-correlation-id": "corr-remote-1", "x-causation-id": "cause-remote-1",
			}
			if len(seen.calls) != 1 || !reflect.DeepEqual(seen.calls[0], want) {
				t.Errorf("the service saw %v, want one call with %v", seen.calls, want)
			}
		})
	}
}
