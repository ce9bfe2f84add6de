package gen

// Typed resolvers. The Handler keeps the contract form of every resolver,
// Resolve<Name>(ctx, in proto.Message), since one resolver may serve
// several request types. Beside it, each (resolver, request type) pair has
// an optional typed interface, Resolve<Name>For<Request>(ctx, in
// *<Request>); a handler that implements it is called with the request
// itself. The choice is made once, when the service is bound
// (New<Service>), into a table of functions per request type; the
// enrichment is generic over the request type R and calls the table, so no
// call asserts a type.

import (
	"github.com/dave/jennifer/jen"
	"google.golang.org/protobuf/compiler/protogen"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/naming"
)

// requestResolvers is one request model with resolvers: the table the
// enrichment of its tools reads.
type requestResolvers struct {
	input     *messageModel
	resolvers []*resolverModel // in the service's order
}

// resolverTables lists, in tool order, the request models of sm whose
// fields (transitively) some resolver fills.
func resolverTables(sm *serviceModel) []requestResolvers {
	var out []requestResolvers
	seen := map[*messageModel]bool{}
	for _, t := range sm.tools {
		if !t.input.hasResolvers || seen[t.input] {
			continue
		}
		seen[t.input] = true
		used := map[string]bool{}
		usedResolvers(t.input, used, map[*messageModel]bool{})
		rr := requestResolvers{input: t.input}
		for _, r := range sm.resolvers {
			if used[r.name] {
				rr.resolvers = append(rr.resolvers, r)
			}
		}
		out = append(out, rr)
	}
	return out
}

func usedResolvers(m *messageModel, used map[string]bool, seen map[*messageModel]bool) {
	if seen[m] {
		return
	}
	seen[m] = true
	for _, f := range m.fields {
		if f.resolver != nil {
			used[f.resolver.name] = true
		}
		if f.child != nil {
			usedResolvers(f.child, used, seen)
		}
	}
}

// typedPair is one typed resolver interface: a resolver for one request Go
// type.
type typedPair struct {
	r   *resolverModel
	req protogen.GoIdent
}

// typedPairs lists the typed interfaces of sm, one per resolver and request
// Go type. Two request types of different packages with one Go name would
// give one method name two signatures: that pair keeps the contract form
// only.
func typedPairs(sm *serviceModel) []typedPair {
	var out []typedPair
	byMethod := map[string]int{}
	clash := map[string]bool{}
	for _, rr := range resolverTables(sm) {
		req := rr.input.proto.GoIdent
		for _, r := range rr.resolvers {
			name := typedResolverMethod(r, req)
			if i, ok := byMethod[name]; ok {
				if out[i].req != req {
					clash[name] = true
				}
				continue
			}
			byMethod[name] = len(out)
			out = append(out, typedPair{r: r, req: req})
		}
	}
	kept := out[:0]
	for _, p := range out {
		if !clash[typedResolverMethod(p.r, p.req)] {
			kept = append(kept, p)
		}
	}
	return kept
}

// typedResolverMethod is a resolver's typed method for a request type:
// ResolvePersonVersionForUpdatePersonRequest.
func typedResolverMethod(r *resolverModel, req protogen.GoIdent) string {
	return r.method + "For" + req.GoName
}

// typedResolverIface is the interface of a typed resolver method, named
// after its method: CrmServiceResolvePersonVersionForUpdatePersonRequest.
func typedResolverIface(sm *serviceModel, r *resolverModel, req protogen.GoIdent) string {
	return sm.proto.GoName + typedResolverMethod(r, req)
}

// unimplementedResolversName is the struct a handler embeds to get the
// contract resolver methods when it implements the typed ones.
func unimplementedResolversName(sm *serviceModel) string {
	return "Unimplemented" + sm.proto.GoName + "Resolvers"
}

// boundResolversName is the table of one request type's resolvers.
func boundResolversName(sm *serviceModel) string { return "boundResolvers" + sm.proto.GoName }

// bindResolversName builds the table of a request model.
func bindResolversName(sm *serviceModel, m *messageModel) string {
	return "bind" + sm.proto.GoName + m.goName() + "Resolvers"
}

// resolversVarName is the table of a request model in New<Service>.
func resolversVarName(m *messageModel) string {
	return naming.Camel(naming.Words(m.goName())) + "Resolvers"
}

// resolverSignatureTyped is a resolver's parameters and results with the
// request type req (a Go type expression) in place of proto.Message.
func (e *emitter) resolverSignatureTyped(r *resolverModel, req jen.Code) *jen.Statement {
	params := []jen.Code{jen.Id("ctx").Add(e.q(contextPkg.Ident("Context"))), jen.Id("in").Add(req)}
	if r.reference {
		return jen.Params(append(params, jen.Id("ref").String())...).Params(e.rt("Reference"), jen.Error())
	}
	return jen.Params(params...).Params(e.goType(r.field), jen.Error())
}

// resolverFuncType is a table field's type: the resolver's signature with
// the request type R.
func (e *emitter) resolverFuncType(r *resolverModel, req jen.Code) *jen.Statement {
	params := []jen.Code{e.q(contextPkg.Ident("Context")), req}
	if r.reference {
		return jen.Func().Params(append(params, jen.String())...).Params(e.rt("Reference"), jen.Error())
	}
	return jen.Func().Params(params...).Params(e.goType(r.field), jen.Error())
}

// typedResolvers emits, for a service with resolvers, the typed resolver
// interfaces, the struct that answers the contract methods of a handler
// that implements only typed ones, the table type and the table builders.
func (e *emitter) typedResolvers(sm *serviceModel) {
	if len(sm.resolvers) == 0 {
		return
	}
	pairs := typedPairs(sm)
	for _, p := range pairs {
		name := typedResolverIface(sm, p.r, p.req)
		e.decl(docComment("", name+" is "+p.r.method+" typed for "+string(e.fullName(p.req))+": when the handler implements it, the tools with this request call it, with the request itself, instead of "+p.r.method+"."),
			jen.Type().Id(name).Interface(jen.Id(typedResolverMethod(p.r, p.req)).Add(e.resolverSignatureTyped(p.r, jen.Op("*").Add(e.q(p.req))))))
	}
	un := unimplementedResolversName(sm)
	e.decl(docComment("", un+" answers every resolver method of "+handlerName(sm)+" with an error naming the typed method to implement. Embed it in a handler that implements the typed resolvers, so it satisfies "+handlerName(sm)+" without the contract methods."),
		jen.Type().Id(un).Struct())
	for _, r := range sm.resolvers {
		results := []jen.Code{jen.Id("v").Add(e.goType(r.field)), jen.Err().Error()}
		params := []jen.Code{jen.Id("_").Add(e.q(contextPkg.Ident("Context"))), jen.Id("in").Add(e.q(protoPkg.Ident("Message")))}
		if r.reference {
			results[0] = jen.Id("v").Add(e.rt("Reference"))
			params = append(params, jen.Id("_").String())
		}
		e.decl(jen.Func().Params(jen.Id(un)).Id(r.method).Params(params...).Params(results...).Block(
			jen.Return(jen.Id("v"), e.rt("ResolverNotImplemented").Call(jen.Lit(r.method), jen.Id("in"))),
		))
	}
	table := boundResolversName(sm)
	e.decl(docComment("", table+" are the resolvers of one request type R, bound to the handler once: the typed method when the handler has it, else the contract method."),
		jen.Type().Id(table).Types(jen.Id("R").Add(e.q(protoPkg.Ident("Message")))).StructFunc(func(g *jen.Group) {
			for _, r := range sm.resolvers {
				g.Id(r.method).Add(e.resolverFuncType(r, jen.Id("R")))
			}
		}))
	typed := map[string]bool{}
	for _, p := range pairs {
		typed[typedResolverMethod(p.r, p.req)] = true
	}
	for _, rr := range resolverTables(sm) {
		e.bindResolvers(sm, rr, typed)
	}
}

// bindResolvers emits the table builder of one request model.
func (e *emitter) bindResolvers(sm *serviceModel, rr requestResolvers, typed map[string]bool) {
	req := rr.input.proto.GoIdent
	reqType := func() *jen.Statement { return jen.Op("*").Add(e.q(req)) }
	tableType := jen.Op("*").Id(boundResolversName(sm)).Types(reqType())
	e.decl(jen.Func().Id(bindResolversName(sm, rr.input)).Params(jen.Id("h").Id(handlerName(sm)), jen.Id("typed").Any()).Add(tableType).BlockFunc(func(g *jen.Group) {
		g.Id("b").Op(":=").Op("&").Id(boundResolversName(sm)).Types(reqType()).Values()
		for _, r := range rr.resolvers {
			args := []jen.Code{jen.Id("ctx"), jen.Id("in")}
			if r.reference {
				args = append(args, jen.Id("ref"))
			}
			contract := jen.Id("b").Dot(r.method).Op("=").Func().Add(e.resolverSignatureTyped(r, reqType())).Add(inline(jen.Return(jen.Id("h").Dot(r.method).Call(args...))))
			method := typedResolverMethod(r, req)
			if !typed[method] {
				g.Add(contract)
				continue
			}
			if !r.reference {
				// A value resolver is bound by the runtime's BindResolver.
				g.Id("b").Dot(r.method).Op("=").Add(e.rt("BindResolver")).Call(
					jen.Id("typed"), jen.Id(typedResolverIface(sm, r, req)).Dot(method), jen.Id("h"), jen.Id(handlerName(sm)).Dot(r.method))
				continue
			}
			g.If(jen.List(jen.Id("t"), jen.Id("ok")).Op(":=").Id("typed").Assert(jen.Id(typedResolverIface(sm, r, req))), jen.Id("ok")).Block(
				jen.Id("b").Dot(r.method).Op("=").Id("t").Dot(method),
			).Else().Block(contract)
		}
		g.Return(jen.Id("b"))
	}))
}

// fullName is the proto full name of a request Go type of the file's
// services, for doc comments.
func (e *emitter) fullName(id protogen.GoIdent) string {
	for _, sm := range e.fm.services {
		for _, t := range sm.tools {
			if t.method.Input.GoIdent == id {
				return string(t.method.Input.Desc.FullName())
			}
		}
	}
	return id.GoName
}

// bindTables declares, in New<Service>, the resolvers table of every
// request model with resolvers. A generated client adapter hands over the
// resolvers it forwards to, so their typed methods are found.
func (e *emitter) bindTables(g *jen.Group, sm *serviceModel) {
	tables := resolverTables(sm)
	if len(tables) == 0 {
		return
	}
	g.Var().Id("typed").Any().Op("=").Id("h")
	g.If(jen.List(jen.Id("a"), jen.Id("ok")).Op(":=").Id("h").Assert(jen.Interface(jen.Id("resolvers").Params().Any())), jen.Id("ok")).Block(
		jen.Id("typed").Op("=").Id("a").Dot("resolvers").Call(),
	)
	for _, rr := range tables {
		g.Id(resolversVarName(rr.input)).Op(":=").Id(bindResolversName(sm, rr.input)).Call(jen.Id("h"), jen.Id("typed"))
	}
}
