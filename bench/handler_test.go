package bench

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// echoHandler is a domain that does no work: createElement answers with the
// element it was asked to create, so benchmarks time the MCP layer, not a
// store. last, when set, receives every createElement request.
type echoHandler struct {
	last func(*archimatev1.CreateElementRequest)
}

var _ archimatev1mcpwrite.ArchitectureServiceHandler = echoHandler{}

func (h echoHandler) CreateElement(_ context.Context, req *archimatev1.CreateElementRequest) (*archimatev1.CreateElementResponse, error) {
	if h.last != nil {
		h.last(proto.Clone(req).(*archimatev1.CreateElementRequest))
	}
	return &archimatev1.CreateElementResponse{Element: &archimatev1.Element{
		Id: req.GetId(), ModelId: req.GetModelId(), Type: req.GetType(), Layer: req.GetLayer(),
		Name: req.GetName(), Description: req.GetDescription(), Properties: req.GetProperties(),
		ParentId: req.GetParentId(), Version: 1,
	}}, nil
}

func (echoHandler) CreateRelationship(context.Context, *archimatev1.CreateRelationshipRequest) (*archimatev1.CreateRelationshipResponse, error) {
	return nil, status.Error(codes.Unimplemented, "not benchmarked")
}

func (echoHandler) UpdateElement(context.Context, *archimatev1.UpdateElementRequest) (*archimatev1.UpdateElementResponse, error) {
	return nil, status.Error(codes.Unimplemented, "not benchmarked")
}

func (echoHandler) DeleteElement(context.Context, *archimatev1.DeleteElementRequest) (*archimatev1.DeleteElementResponse, error) {
	return nil, status.Error(codes.Unimplemented, "not benchmarked")
}

func (echoHandler) CreateCapability(context.Context, *archimatev1.CreateCapabilityRequest) (*archimatev1.CreateCapabilityResponse, error) {
	return nil, status.Error(codes.Unimplemented, "not benchmarked")
}

// ResolveActiveModel reads the tenant like a real resolver would.
func (echoHandler) ResolveActiveModel(ctx context.Context, _ proto.Message) (string, error) {
	rc, ok := runtime.RequestContextFrom(ctx)
	if !ok || rc.TenantID == "" {
		return "", status.Error(codes.PermissionDenied, "no tenant in the request context")
	}
	return "model-" + rc.TenantID + "-main", nil
}

func (echoHandler) ResolveCurrentVersion(context.Context, proto.Message) (int32, error) {
	return 0, status.Error(codes.Unimplemented, "not benchmarked")
}

// benchRC is the caller every benchmark call runs as.
var benchRC = runtime.RequestContext{
	TenantID: "tenant-acme", PrincipalID: "user-ada", CorrelationID: "corr-42",
	TraceParent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
}

// createElementArgs is what an agent sends to createElement.
const createElementArgs = `{"type":"ApplicationComponent","name":"OrderService","description":"Handles order processing","properties":{"team":"payments"}}`

func (echoHandler) ResolveSourceElementType(context.Context, proto.Message) (archimatev1.ElementType, error) {
	return archimatev1.ElementType_ELEMENT_TYPE_APPLICATION_COMPONENT, nil
}

func (echoHandler) ResolveTargetElementType(context.Context, proto.Message) (archimatev1.ElementType, error) {
	return archimatev1.ElementType_ELEMENT_TYPE_APPLICATION_SERVICE, nil
}

// ResolveElementRef takes every reference as the id it names.
func (echoHandler) ResolveElementRef(_ context.Context, _ proto.Message, ref string) (runtime.Reference, error) {
	return runtime.Reference{Matches: []runtime.Referent{{ID: ref, Name: ref}}}, nil
}

func (echoHandler) CreateCapabilityStructure(context.Context, *archimatev1.CreateCapabilityStructureRequest) (*archimatev1.CreateCapabilityStructureResponse, error) {
	return &archimatev1.CreateCapabilityStructureResponse{}, nil
}

func (echoHandler) AddComponentToCapability(context.Context, *archimatev1.AddComponentToCapabilityRequest) (*archimatev1.AddComponentToCapabilityResponse, error) {
	return &archimatev1.AddComponentToCapabilityResponse{}, nil
}

func (echoHandler) CreateElements(context.Context, *archimatev1.CreateElementsRequest) (*archimatev1.CreateElementsResponse, error) {
	return &archimatev1.CreateElementsResponse{}, nil
}
