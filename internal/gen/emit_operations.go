package gen

// The Go side of long-running operations (walk_operations.go): New<Service>
// binds the handler's optional GetOperation, and the gRPC client adapter
// gains a constructor that also forwards GetOperation to an Operations
// client.

import (
	"github.com/dave/jennifer/jen"
	"google.golang.org/protobuf/compiler/protogen"
)

// operationIdents are the Go identifiers of google.longrunning.Operation and
// GetOperationRequest in the package the service's protos use; ok is false
// when no tool of sm is long-running.
func operationIdents(sm *serviceModel) (op, getReq protogen.GoIdent, ok bool) {
	for _, t := range sm.tools {
		if t.operation != nil {
			op = t.method.Output.GoIdent
			return op, op.GoImportPath.Ident("GetOperationRequest"), true
		}
	}
	return op, getReq, false
}

// operationsField is New<Service>'s Operations field: the handler's
// GetOperation when it has one; nil when no tool is long-running.
func (e *emitter) operationsField(sm *serviceModel) jen.Code {
	op, getReq, ok := operationIdents(sm)
	if !ok || sm.operationsTool == "" {
		return nil
	}
	return jen.Id("Operations").Op(":").Add(e.rt("OperationsOf")).Types(jen.Op("*").Add(e.q(op)), e.q(getReq)).Call(jen.Id("h"))
}

// operationsAdapter emits, for a service with long-running tools, the
// optional handler interface that follows operations, the part of the
// google.longrunning.Operations gRPC client it needs, and a gRPC client
// adapter constructor that also forwards GetOperation to that client.
func (e *emitter) operationsAdapter(sm *serviceModel) {
	op, getReq, ok := operationIdents(sm)
	if !ok || sm.operationsTool == "" {
		return
	}
	n := grpcAdapterNames(sm)
	svc := sm.proto.GoName
	opsIface, opsClient, impl := svc+"Operations", svc+"OperationsClient", n.impl+"Operations"
	ctor := n.ctor + "WithOperations"
	ctx := jen.Id("ctx").Add(e.q(contextPkg.Ident("Context")))
	in := jen.Id("in").Op("*").Add(e.q(getReq))
	results := func() *jen.Statement { return jen.Params(jen.Op("*").Add(e.q(op)), jen.Error()) }
	e.decl(docComment("", opsIface+" is what a "+handlerName(sm)+" also implements so agents can follow the long-running operations its tools start: the "+sm.operationsTool+" tool calls GetOperation (a google.longrunning.Operations server implementation satisfies it). A handler without it gets no "+sm.operationsTool+" tool."),
		jen.Type().Id(opsIface).Interface(
			jen.Id("GetOperation").Params(ctx.Clone(), in.Clone()).Add(results()),
		))
	e.decl(docComment("", opsClient+" is the part of the google.longrunning.Operations gRPC client that the "+sm.operationsTool+" tool calls; the client protoc-gen-go-grpc generates satisfies it."),
		jen.Type().Id(opsClient).Interface(
			jen.Id("GetOperation").Params(ctx.Clone(), in.Clone(), jen.Id("opts").Op("...").Add(e.q(grpcPkg.Ident("CallOption")))).Add(results()),
		))
	params := []jen.Code{jen.Id("client").Id(n.client), jen.Id("operations").Id(opsClient)}
	inner := []jen.Code{jen.Id("client").Op(":").Id("client")}
	if len(sm.resolvers) > 0 {
		params = append(params, jen.Id("resolvers").Id(n.resolvers))
		inner = append(inner, jen.Id(n.resolvers).Op(":").Id("resolvers"))
	}
	e.decl(docComment("", ctor+" is "+n.ctor+" whose handler also follows operations through operations (the Operations client of the same connection), for the "+sm.operationsTool+" tool."),
		jen.Func().Id(ctor).Params(params...).Id(handlerName(sm)).Block(
			jen.Return(jen.Op("&").Id(impl).Values(
				jen.Id(n.impl).Op(":").Op("&").Id(n.impl).Values(inner...),
				jen.Id("operations").Op(":").Id("operations"),
			)),
		))
	e.decl(jen.Type().Id(impl).Struct(
		jen.Op("*").Id(n.impl),
		jen.Id("operations").Id(opsClient),
	))
	e.decl(jen.Func().Params(jen.Id("a").Op("*").Id(impl)).Id("GetOperation").Params(ctx.Clone(), in.Clone()).Add(results()).Block(
		jen.Return(jen.Id("a").Dot("operations").Dot("GetOperation").Call(e.rt("OutgoingGRPCContext").Call(jen.Id("ctx")), jen.Id("in"))),
	))
}
