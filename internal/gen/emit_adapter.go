package gen

import "github.com/dave/jennifer/jen"

// adapter emits the gRPC client adapter of a service: the client interface
// protoc-gen-go-grpc generates (the exposed methods only), an interface of
// the service's resolvers, and a Handler forwarding every tool call to the
// client, so the MCP server can run apart from the domain service.
func (e *emitter) adapter(sm *serviceModel) {
	n := grpcAdapterNames(sm)
	e.decl(docComment("", n.client+" is the part of the gRPC client of "+string(sm.proto.Desc.FullName())+" that the tools call; the client protoc-gen-go-grpc generates satisfies it."),
		jen.Type().Id(n.client).InterfaceFunc(func(g *jen.Group) {
			for _, t := range sm.tools {
				m := t.method
				g.Id(m.GoName).Params(
					jen.Id("ctx").Add(e.q(contextPkg.Ident("Context"))),
					jen.Id("in").Op("*").Add(e.q(m.Input.GoIdent)),
					jen.Id("opts").Op("...").Add(e.q(grpcPkg.Ident("CallOption"))),
				).Params(jen.Op("*").Add(e.q(m.Output.GoIdent)), jen.Error())
			}
		}))
	if len(sm.resolvers) > 0 {
		e.decl(docComment("", n.resolvers+" derives the fields the server fills by resolver, for a Handler that forwards to a gRPC client."),
			jen.Type().Id(n.resolvers).InterfaceFunc(func(g *jen.Group) {
				for _, r := range sm.resolvers {
					g.Add(e.resolverSignature(r))
				}
			}))
	}
	e.adapterCtor(sm, n, docComment("", n.ctor+" returns a "+handlerName(sm)+" that forwards every tool call to client (the enriched request, unchanged), each within the deadline of opts (runtime.WithBackendTimeout; default runtime.DefaultBackendTimeout)."))
	// Each method is one call of mcpwriteimpl.ForwardGRPC: the deadline,
	// the outgoing metadata and the error mapping are the runtime's.
	for _, t := range sm.tools {
		e.decl(e.adapterMethod(n, t).Block(
			jen.Return(e.rt("ForwardGRPC").Call(jen.Id("ctx"), jen.Id("a").Dot("forward"), jen.Id("in"), jen.Id("a").Dot("client").Dot(t.method.GoName))),
		))
	}
}

// forwardStart bounds a forwarded call by the adapter's deadline
// (runtime.WithBackendTimeout).
func (e *emitter) forwardStart() jen.Code {
	return jen.List(jen.Id("ctx"), jen.Id("cancel")).Op(":=").Id("a").Dot("forward").Dot("Start").Call(jen.Id("ctx")).Line().
		Defer().Id("cancel").Call()
}

// adapterCtor emits an adapter's constructor and type.
func (e *emitter) adapterCtor(sm *serviceModel, n adapterNames, doc *jen.Statement) {
	params := []jen.Code{jen.Id("client").Id(n.client)}
	fields := []jen.Code{jen.Id("client").Op(":").Id("client")}
	if len(sm.resolvers) > 0 {
		params = append(params, jen.Id("resolvers").Id(n.resolvers))
		fields = append(fields, jen.Id(n.resolvers).Op(":").Id("resolvers"))
	}
	params = append(params, jen.Id("opts").Op("...").Add(e.rt("AdapterOption")))
	fields = append(fields, jen.Id("forward").Op(":").Add(e.rt("NewForwarder")).Call(jen.Id("opts").Op("...")))
	e.decl(doc, jen.Func().Id(n.ctor).Params(params...).Id(handlerName(sm)).Block(
		jen.Return(jen.Op("&").Id(n.impl).Values(fields...)),
	))
	e.decl(jen.Type().Id(n.impl).StructFunc(func(g *jen.Group) {
		g.Id("client").Id(n.client)
		if len(sm.resolvers) > 0 {
			g.Id(n.resolvers)
		}
		g.Id("forward").Add(e.rt("Forwarder"))
	}))
	if len(sm.resolvers) > 0 {
		// New<Service> looks for typed resolver methods on what the
		// adapter forwards to, not on the adapter.
		e.decl(jen.Func().Params(jen.Id("a").Op("*").Id(n.impl)).Id("resolvers").Params().Any().Block(
			jen.Return(jen.Id("a").Dot(n.resolvers)),
		))
	}
}

// adapterMethod is the signature of an adapter's method for a tool.
func (e *emitter) adapterMethod(n adapterNames, t *toolModel) *jen.Statement {
	m := t.method
	return jen.Func().Params(jen.Id("a").Op("*").Id(n.impl)).Id(m.GoName).Params(
		jen.Id("ctx").Add(e.q(contextPkg.Ident("Context"))),
		jen.Id("in").Op("*").Add(e.q(m.Input.GoIdent)),
	).Params(jen.Op("*").Add(e.q(m.Output.GoIdent)), jen.Error())
}

// connectAdapter emits the adapter for connect-go clients: the client
// interface protoc-gen-connect-go generates (the exposed methods only) and
// a Handler forwarding every tool call with the request context as headers
// (traceparent, correlation and causation ids), turning connect errors
// into the gRPC statuses the runtime maps for agents, details included
// (connectmcp.Error).
func (e *emitter) connectAdapter(sm *serviceModel) {
	n := connectAdapterNames(sm)
	e.decl(docComment("", n.client+" is the part of the connect-go client of "+string(sm.proto.Desc.FullName())+" that the tools call; the client protoc-gen-connect-go generates satisfies it."),
		jen.Type().Id(n.client).InterfaceFunc(func(g *jen.Group) {
			for _, t := range sm.tools {
				m := t.method
				g.Id(m.GoName).Params(
					jen.Id("ctx").Add(e.q(contextPkg.Ident("Context"))),
					jen.Id("in").Op("*").Add(e.q(connectPkg.Ident("Request"))).Index(e.q(m.Input.GoIdent)),
				).Params(jen.Op("*").Add(e.q(connectPkg.Ident("Response"))).Index(e.q(m.Output.GoIdent)), jen.Error())
			}
		}))
	e.adapterCtor(sm, n, docComment("", n.ctor+" returns a "+handlerName(sm)+" that forwards every tool call to a connect-go client (the enriched request, unchanged, with the request context as headers), each within the deadline of opts (runtime.WithBackendTimeout; default runtime.DefaultBackendTimeout)."))
	for _, t := range sm.tools {
		m := t.method
		e.decl(e.adapterMethod(n, t).Block(
			e.forwardStart(),
			jen.Id("req").Op(":=").Add(e.q(connectPkg.Ident("NewRequest"))).Call(jen.Id("in")),
			jen.For(jen.List(jen.Id("k"), jen.Id("v")).Op(":=").Range().Add(e.rt("OutgoingHeaders")).Call(jen.Id("ctx"))).Block(
				jen.Id("req").Dot("Header").Call().Dot("Set").Call(jen.Id("k"), jen.Id("v")),
			),
			jen.List(jen.Id("res"), jen.Err()).Op(":=").Id("a").Dot("client").Dot(m.GoName).Call(jen.Id("ctx"), jen.Id("req")),
			jen.If(jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Id("a").Dot("forward").Dot("Err").Call(jen.Id("ctx"), e.q(connectMCPPkg.Ident("Error")).Call(jen.Err()))),
			),
			jen.Return(jen.Id("res").Dot("Msg"), jen.Nil()),
		))
	}
}
