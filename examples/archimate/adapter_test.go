package archimate_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// remote stands for a gRPC client of the domain service: it records the
// call options and forwards to the domain, as a network client would.
type remote struct {
	repo  *domain.Repository
	calls []string
}

func (r *remote) CreateElement(ctx context.Context, in *archimatev1.CreateElementRequest, _ ...grpc.CallOption) (*archimatev1.CreateElementResponse, error) {
	r.calls = append(r.calls, "CreateElement")
	return r.repo.CreateElement(ctx, in)
}

func (r *remote) CreateRelationship(ctx context.Context, in *archimatev1.CreateRelationshipRequest, _ ...grpc.CallOption) (*archimatev1.CreateRelationshipResponse, error) {
	r.calls = append(r.calls, "CreateRelationship")
	return r.repo.CreateRelationship(ctx, in)
}

func (r *remote) UpdateElement(ctx context.Context, in *archimatev1.UpdateElementRequest, _ ...grpc.CallOption) (*archimatev1.UpdateElementResponse, error) {
	r.calls = append(r.calls, "UpdateElement")
	return r.repo.UpdateElement(ctx, in)
}

func (r *remote) DeleteElement(ctx context.Context, in *archimatev1.DeleteElementRequest, _ ...grpc.CallOption) (*archimatev1.DeleteElementResponse, error) {
	r.calls = append(r.calls, "DeleteElement")
	return r.repo.DeleteElement(ctx, in)
}

func (r *remote) CreateCapability(ctx context.Context, in *archimatev1.CreateCapabilityRequest, _ ...grpc.CallOption) (*archimatev1.CreateCapabilityResponse, error) {
	r.calls = append(r.calls, "CreateCapability")
	return r.repo.CreateCapability(ctx, in)
}

func (r *remote) CreateCapabilityStructure(ctx context.Context, in *archimatev1.CreateCapabilityStructureRequest, _ ...grpc.CallOption) (*archimatev1.CreateCapabilityStructureResponse, error) {
	r.calls = append(r.calls, "CreateCapabilityStructure")
	return r.repo.CreateCapabilityStructure(ctx, in)
}

func (r *remote) AddComponentToCapability(ctx context.Context, in *archimatev1.AddComponentToCapabilityRequest, _ ...grpc.CallOption) (*archimatev1.AddComponentToCapabilityResponse, error) {
	r.calls = append(r.calls, "AddComponentToCapability")
	return r.repo.AddComponentToCapability(ctx, in)
}

func (r *remote) CreateElements(ctx context.Context, in *archimatev1.CreateElementsRequest, _ ...grpc.CallOption) (*archimatev1.CreateElementsResponse, error) {
	r.calls = append(r.calls, "CreateElements")
	return r.repo.CreateElements(ctx, in)
}

func TestClientAdapterForwardsToTheGRPCClient(t *testing.T) {
	repo := domain.New()
	client := &remote{repo: repo}
	server := mcp.NewServer(&mcp.Implementation{Name: "archimate-gateway", Version: "test"}, nil)
	if err := archimatev1mcpwrite.RegisterArchitectureServiceTools(server,
		archimatev1mcpwrite.NewArchitectureServiceClientAdapter(client, repo),
		runtime.WithRequestContextFunc(runtime.StaticRequestContext(devRC))); err != nil {
		t.Fatal(err)
	}
	cs := mcptest.Connect(t, server, mcptest.Options{})
	if out, isErr := call(t, cs, "createElement", `{"type":"DataObject","name":"Invoice"}`); isErr {
		t.Fatalf("call: %v", out)
	}
	if len(client.calls) != 1 || client.calls[0] != "CreateElement" {
		t.Fatalf("client calls = %v", client.calls)
	}
	req := repo.Received()[0].(*archimatev1.CreateElementRequest)
	if req.GetModelId() != "model-tenant-acme-main" || req.GetLayer() != archimatev1.Layer_LAYER_APPLICATION {
		t.Fatalf("forwarded request = %v", req)
	}
}
