package mcpwriteimpl

import (
	"context"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// GetOperation answers the google.longrunning.Operation of a name, as
// Service.Operations holds it.
type GetOperation = impl.GetOperation

// OperationsOf is h's GetOperation (the google.longrunning.Operations
// server method) as Service.Operations takes it; nil when h has none. Op is
// the google.longrunning.Operation Go type and Req GetOperationRequest, in
// the package the service's protos use.
func OperationsOf[Op proto.Message, Req any, PReq interface {
	*Req
	proto.Message
}](h any) GetOperation {
	g, ok := h.(interface {
		GetOperation(context.Context, PReq) (Op, error)
	})
	if !ok {
		return nil
	}
	return func(ctx context.Context, name string) (proto.Message, error) {
		req := PReq(new(Req))
		m := req.ProtoReflect()
		if f := m.Descriptor().Fields().ByName("name"); f != nil {
			m.Set(f, protoreflect.ValueOfString(name))
		}
		op, err := g.GetOperation(ctx, req)
		if err != nil {
			return nil, err
		}
		return op, nil
	}
}
