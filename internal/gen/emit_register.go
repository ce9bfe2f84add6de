package gen

import "github.com/dave/jennifer/jen"

// registerFunc is Register<Service>Tools for the SDK the file is generated
// for (the sdk parameter): on go-sdk's *mcp.Server through runtime/gosdk,
// or on mark3labs/mcp-go's *server.MCPServer through runtime/mcpgo, so that
// package imports nothing of go-sdk.
func (e *emitter) registerFunc(sm *serviceModel) *jen.Statement {
	// Only the chosen SDK's identifiers are qualified: qualifying one
	// imports its package.
	var server, register *jen.Statement
	switch e.sdk {
	case SDKMCPGo:
		server, register = e.q(mcpGoServerPkg.Ident("MCPServer")), e.q(mcpGoAdapterPkg.Ident("Register"))
	default:
		server, register = e.q(mcpPkg.Ident("Server")), e.q(goSDKAdapterPkg.Ident("Register"))
	}
	return jen.Func().Id(registerName(sm)).Params(
		jen.Id("s").Op("*").Add(server),
		jen.Id("h").Id(handlerName(sm)),
		jen.Id("opts").Op("...").Add(e.rt("Option")),
	).Error().Block(
		jen.Return(register.Call(jen.Id("s"), jen.Id(serviceCtorName(sm)).Call(jen.Id("h")), jen.Id("opts").Op("..."))),
	)
}

// registerTarget names the server Register<Service>Tools registers on, in
// its doc comment.
func (e *emitter) registerTarget() string {
	if e.sdk == SDKMCPGo {
		return "s, a mark3labs/mcp-go server (through runtime/mcpgo)"
	}
	return "s"
}
