package lro_test

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"

	statuspb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	longrunningpb "github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/lro/gen/google/longrunning"
	shelfv1 "github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/lro/gen/shelf/v1"
)

// The themes that script an operation's course in the fake backend.
const (
	themeBroken  = "broken"  // done with FAILED_PRECONDITION
	themeForever = "forever" // never done
	// any other theme: done with the shelf at the third look
	doneAtLook = 3
)

// backend is a fake domain service and Operations server, served over
// in-process gRPC: CreateShelf and RepaintShelf start operations named
// operations/1, operations/2, ... and GetOperation plays each by its theme.
type backend struct {
	shelfv1.UnimplementedShelfServiceServer
	longrunningpb.UnimplementedOperationsServer

	mu     sync.Mutex
	starts int
	themes map[string]string
	looks  map[string]int
}

func newBackend() *backend {
	return &backend{themes: map[string]string{}, looks: map[string]int{}}
}

func (b *backend) start(theme string) *longrunningpb.Operation {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.starts++
	name := fmt.Sprintf("operations/%d", b.starts)
	b.themes[name] = theme
	return &longrunningpb.Operation{Name: name, Metadata: mustAny(&shelfv1.BuildMetadata{})}
}

func (b *backend) CreateShelf(_ context.Context, in *shelfv1.CreateShelfRequest) (*longrunningpb.Operation, error) {
	return b.start(in.GetTheme()), nil
}

func (b *backend) RepaintShelf(_ context.Context, in *shelfv1.RepaintShelfRequest) (*longrunningpb.Operation, error) {
	return b.start(in.GetColor()), nil
}

func (b *backend) GetOperation(_ context.Context, in *longrunningpb.GetOperationRequest) (*longrunningpb.Operation, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	theme, ok := b.themes[in.GetName()]
	if !ok {
		return nil, status.Errorf(codes.NotFound, "operation %q not found", in.GetName())
	}
	b.looks[in.GetName()]++
	n := b.looks[in.GetName()]
	op := &longrunningpb.Operation{Name: in.GetName()}
	switch {
	case theme == themeBroken && n >= doneAtLook:
		op.Done = true
		op.Metadata = mustAny(&shelfv1.BuildMetadata{PercentDone: 40})
		op.Result = &longrunningpb.Operation_Error{Error: &statuspb.Status{Code: int32(codes.FailedPrecondition), Message: "the workshop is closed"}}
	case theme != themeForever && theme != themeBroken && n >= doneAtLook:
		op.Done = true
		op.Metadata = mustAny(&shelfv1.BuildMetadata{PercentDone: 100})
		op.Result = &longrunningpb.Operation_Response{Response: mustAny(&shelfv1.Shelf{Name: "shelves/" + theme, Theme: theme})}
	default:
		op.Metadata = mustAny(&shelfv1.BuildMetadata{PercentDone: 50})
	}
	return op, nil
}

// counts are how many operations were started and how many times name was
// looked at.
func (b *backend) counts(name string) (starts, looks int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.starts, b.looks[name]
}

func mustAny(m proto.Message) *anypb.Any {
	a, err := anypb.New(m)
	if err != nil {
		panic(err)
	}
	return a
}

// serve runs b on an in-process gRPC server and returns a connection to it.
func serve(t *testing.T, b *backend) *grpc.ClientConn {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	s := grpc.NewServer()
	shelfv1.RegisterShelfServiceServer(s, b)
	longrunningpb.RegisterOperationsServer(s, b)
	go func() { _ = s.Serve(lis) }()
	t.Cleanup(s.Stop)
	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}
