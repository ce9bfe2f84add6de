package gen

// adapter emits the gRPC client adapter of a service: the client interface
// protoc-gen-go-grpc generates (the exposed methods only), an interface of
// the service's resolvers, and a Handler forwarding every tool call to the
// client, so the MCP server can run apart from the domain service.
func (e *emitter) adapter(sm *serviceModel) {
	g := e.g
	n := grpcAdapterNames(sm)
	client, resolvers, impl := n.client, n.resolvers, n.impl
	docComment(g, "", client+" is the part of the gRPC client of "+string(sm.proto.Desc.FullName())+" that the tools call; the client protoc-gen-go-grpc generates satisfies it.")
	g.P("type ", client, " interface {")
	for _, t := range sm.tools {
		m := t.method
		g.P(m.GoName, "(ctx ", contextPkg.Ident("Context"), ", in *", m.Input.GoIdent, ", opts ...", grpcPkg.Ident("CallOption"), ") (*", m.Output.GoIdent, ", error)")
	}
	g.P("}")
	g.P()
	if len(sm.resolvers) > 0 {
		docComment(g, "", resolvers+" derives the fields the server fills by resolver, for a Handler that forwards to a gRPC client.")
		g.P("type ", resolvers, " interface {")
		for _, r := range sm.resolvers {
			g.P(e.resolverSignature(r))
		}
		g.P("}")
		g.P()
	}
	docComment(g, "", n.ctor+" returns a "+handlerName(sm)+" that forwards every tool call to client (the enriched request, unchanged).")
	if len(sm.resolvers) > 0 {
		g.P("func ", n.ctor, "(client ", client, ", resolvers ", resolvers, ") ", handlerName(sm), " {")
		g.P("return &", impl, "{client: client, ", resolvers, ": resolvers}")
	} else {
		g.P("func ", n.ctor, "(client ", client, ") ", handlerName(sm), " {")
		g.P("return &", impl, "{client: client}")
	}
	g.P("}")
	g.P()
	g.P("type ", impl, " struct {")
	g.P("client ", client)
	if len(sm.resolvers) > 0 {
		g.P(resolvers)
	}
	g.P("}")
	g.P()
	for _, t := range sm.tools {
		m := t.method
		g.P("func (a *", impl, ") ", m.GoName, "(ctx ", contextPkg.Ident("Context"), ", in *", m.Input.GoIdent, ") (*", m.Output.GoIdent, ", error) {")
		g.P("return a.client.", m.GoName, "(", rt("OutgoingGRPCContext"), "(ctx), in)")
		g.P("}")
		g.P()
	}
}

// connectAdapter emits the adapter for connect-go clients: the client
// interface protoc-gen-connect-go generates (the exposed methods only) and
// a Handler forwarding every tool call with the request context as headers
// (traceparent, correlation and causation ids), turning connect errors
// into the gRPC statuses the runtime maps for agents, details included
// (connectmcp.Error).
func (e *emitter) connectAdapter(sm *serviceModel) {
	g := e.g
	n := connectAdapterNames(sm)
	client, resolvers, impl := n.client, n.resolvers, n.impl
	docComment(g, "", client+" is the part of the connect-go client of "+string(sm.proto.Desc.FullName())+" that the tools call; the client protoc-gen-connect-go generates satisfies it.")
	g.P("type ", client, " interface {")
	for _, t := range sm.tools {
		m := t.method
		g.P(m.GoName, "(ctx ", contextPkg.Ident("Context"), ", in *", connectPkg.Ident("Request"), "[", m.Input.GoIdent, "]) (*", connectPkg.Ident("Response"), "[", m.Output.GoIdent, "], error)")
	}
	g.P("}")
	g.P()
	docComment(g, "", n.ctor+" returns a "+handlerName(sm)+" that forwards every tool call to a connect-go client (the enriched request, unchanged, with the request context as headers).")
	if len(sm.resolvers) > 0 {
		g.P("func ", n.ctor, "(client ", client, ", resolvers ", resolvers, ") ", handlerName(sm), " {")
		g.P("return &", impl, "{client: client, ", resolvers, ": resolvers}")
	} else {
		g.P("func ", n.ctor, "(client ", client, ") ", handlerName(sm), " {")
		g.P("return &", impl, "{client: client}")
	}
	g.P("}")
	g.P()
	g.P("type ", impl, " struct {")
	g.P("client ", client)
	if len(sm.resolvers) > 0 {
		g.P(resolvers)
	}
	g.P("}")
	g.P()
	for _, t := range sm.tools {
		m := t.method
		g.P("func (a *", impl, ") ", m.GoName, "(ctx ", contextPkg.Ident("Context"), ", in *", m.Input.GoIdent, ") (*", m.Output.GoIdent, ", error) {")
		g.P("req := ", connectPkg.Ident("NewRequest"), "(in)")
		g.P("for k, v := range ", rt("OutgoingHeaders"), "(ctx) {")
		g.P("req.Header().Set(k, v)")
		g.P("}")
		g.P("res, err := a.client.", m.GoName, "(ctx, req)")
		g.P("if err != nil {")
		g.P("return nil, ", connectMCPPkg.Ident("Error"), "(err)")
		g.P("}")
		g.P("return res.Msg, nil")
		g.P("}")
		g.P()
	}
}
