package gen

// The early check: what enrichment checks on fields the agent sent, run
// on a request whose arguments did not all decode, so a bad reference, a
// value a resolver refuses or an invalid pair is answered in the same
// round as the decode problems. On the request that decoded it makes the
// fills a resolver may read (context values, constants, from_enum; a
// server-filled envelope such as meta), resolves every reference that
// decoded, runs the value resolvers when every reference of their message
// resolved, and the pair check when every resolver answered; it collects
// every failure. It fills nothing random or timed (generated values and
// content hashes wait): the next call must draw what it would have drawn.
// A value resolver is given the whole request and does not declare what
// it reads, so it runs on what decoded, as a reference resolver does; the
// runtime keeps only problems that name a field the agent sent and that
// decoded (one_round.go).

import (
	"github.com/dave/jennifer/jen"
)

// earlyCheckName is the early check of a message for one service:
// earlyCheckGraphServiceConnectRequest.
func earlyCheckName(sm *serviceModel, m *messageModel) string {
	return "earlyCheck" + sm.proto.GoName + m.goName()
}

// earlyFill reports a fill the early check makes: one that draws nothing.
func earlyFill(f *fieldModel) bool {
	return f.fill != nil && (f.fill.source == fillContext || f.fill.source == fillConstant || f.fill.source == fillFromEnum)
}

// earlyCheckFills reports whether a server-filled envelope (a child the
// enrichment creates) has fills the early check makes.
func earlyCheckFills(m *messageModel, seen map[*messageModel]bool) bool {
	if seen[m] {
		return false
	}
	seen[m] = true
	for _, f := range m.fields {
		if earlyFill(f) {
			return true
		}
		if envelope(f) && earlyCheckFills(f.child, seen) {
			return true
		}
	}
	return false
}

// earlyChecked reports whether the early check descends into f's child:
// it has resolvers, or it is an envelope with fills a resolver may read.
func earlyChecked(f *fieldModel) bool {
	return f.child != nil && (f.child.hasResolvers || envelope(f) && earlyCheckFills(f.child, map[*messageModel]bool{}))
}

// earlyCheckFuncs emits, once per service and message, the early check of
// m and of the children it descends into.
func (e *emitter) earlyCheckFuncs(sm *serviceModel, m *messageModel, done map[*messageModel]bool) {
	if done[m] {
		return
	}
	done[m] = true
	fn := jen.Func().Id(earlyCheckName(sm, m))
	if m.hasResolvers {
		fn.Types(jen.Id("R").Add(e.q(protoPkg.Ident("Message")))).Params(
			jen.Id("c").Op("*").Add(e.rt("Call")),
			jen.Id("h").Op("*").Id(boundResolversName(sm)).Types(jen.Id("R")),
			jen.Id("root").Id("R"),
			jen.Id("m").Op("*").Add(e.q(m.proto.GoIdent)),
		)
	} else {
		fn.Params(jen.Id("c").Op("*").Add(e.rt("Call")), jen.Id("m").Op("*").Add(e.q(m.proto.GoIdent)))
	}
	e.decl(fn.Error().BlockFunc(func(g *jen.Group) {
		e.earlyCheckFills(g, m)
		if m.hasResolvers {
			g.Var().Id("errs").Index().Error()
		}
		e.earlyCheckChildren(g, sm, m)
		if !m.hasResolvers {
			g.Return(jen.Nil())
			return
		}
		e.resolveReferences(g, m)
		e.earlyValueResolvers(g, m)
		g.Return(e.rt("JoinResolverErrors").Call(jen.Id("errs").Op("...")))
	}))
	for _, f := range m.fields {
		if earlyChecked(f) {
			e.earlyCheckFuncs(sm, f.child, done)
		}
	}
}

// earlyCheckFills makes m's context, constant and from_enum fills, as the
// enrichment does.
func (e *emitter) earlyCheckFills(g *jen.Group, m *messageModel) {
	kept := &messageModel{}
	for _, f := range m.fields {
		if earlyFill(f) {
			kept.fields = append(kept.fields, f)
		}
	}
	e.enrichFills(g, kept)
}

// earlyValueResolvers runs m's value resolvers, as the enrichment does,
// when every reference of m and below resolved (a value resolver reads
// ids, not names); each failure is collected.
func (e *emitter) earlyValueResolvers(g *jen.Group, m *messageModel) {
	var values []*fieldModel
	for _, f := range m.fields {
		if f.resolver != nil && !f.resolver.reference {
			values = append(values, f)
		}
	}
	if len(values) == 0 {
		return
	}
	if m.hasReferences {
		g.If(jen.Len(jen.Id("errs")).Op(">").Lit(0)).Block(jen.Return(e.rt("JoinResolverErrors").Call(jen.Id("errs").Op("..."))))
	}
	for _, f := range values {
		e.guard(g, f, func(g *jen.Group, v string) {
			if resolve := e.resolveInto(f); resolve != nil {
				g.If(jen.Err().Op(":=").Add(resolve), jen.Err().Op("!=").Nil()).Block(jen.Id("errs").Op("=").Append(jen.Id("errs"), jen.Err()))
				return
			}
			g.List(jen.Id(v), jen.Err()).Op(":=").Id("h").Dot(f.resolver.method).Call(jen.Id("c").Dot("Ctx"), jen.Id("root"))
			g.If(jen.Err().Op("!=").Nil()).Block(
				jen.Id("errs").Op("=").Append(jen.Id("errs"), jen.Id("c").Dot("ResolverError").Call(jen.Lit(f.agentName), jen.Err())),
			).Else().Block(e.set(f.proto, jen.Id(v)))
		})
	}
}

// earlyCheckChildren descends into the envelopes with fills and the
// children with resolvers, each failure collected.
func (e *emitter) earlyCheckChildren(g *jen.Group, sm *serviceModel, m *messageModel) {
	for _, f := range m.fields {
		if !earlyChecked(f) {
			continue
		}
		pf := f.proto
		fn := earlyCheckName(sm, f.child)
		field := jen.Id("m").Dot(pf.GoName)
		if !f.child.hasResolvers {
			g.If(field.Clone().Op("==").Nil()).Block(field.Clone().Op("=").New(e.q(f.child.proto.GoIdent)))
			g.If(jen.Err().Op(":=").Id(fn).Call(jen.Id("c"), field.Clone()), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))
			continue
		}
		call := func(x jen.Code) *jen.Statement {
			return jen.Id("errs").Op("=").Append(jen.Id("errs"), jen.Id(fn).Call(jen.Id("c"), jen.Id("h"), jen.Id("root"), x))
		}
		key := jen.Lit(f.agentName)
		enter, leave := jen.Id("c").Dot("Enter").Call(key), jen.Id("c").Dot("Leave").Call()
		switch {
		case envelope(f):
			g.If(field.Clone().Op("==").Nil()).Block(field.Clone().Op("=").New(e.q(f.child.proto.GoIdent)))
			g.Add(call(field.Clone()))
		case pf.Desc.IsList():
			g.For(jen.List(jen.Id("i"), jen.Id("x")).Op(":=").Range().Add(field)).Block(
				enter, jen.Id("c").Dot("EnterIndex").Call(jen.Id("i")), call(jen.Id("x")), leave, jen.Id("c").Dot("Leave").Call(),
			)
		case pf.Desc.IsMap():
			// A map value is named by its key (labels.blue.owner), as the
			// enrichment names it: the runtime keeps only problems on paths
			// the agent sent.
			g.For(jen.List(jen.Id("k"), jen.Id("x")).Op(":=").Range().Add(field)).Block(
				enter, jen.Id("c").Dot("EnterKey").Call(e.mapKeyText(pf.Message.Fields[0], jen.Id("k"))), call(jen.Id("x")), leave, jen.Id("c").Dot("Leave").Call(),
			)
		default:
			g.If(jen.Id("x").Op(":=").Id("m").Dot(getterName(pf)).Call(), jen.Id("x").Op("!=").Nil()).Block(enter, call(jen.Id("x")), leave)
		}
	}
}

// earlyCheckRoot reports whether a tool's early check calls the early
// check of its request.
func earlyCheckRoot(t *toolModel) bool {
	return t.input.hasResolvers || t.pairCheck != nil && earlyCheckFills(t.input, map[*messageModel]bool{})
}

// earlyCheckBinding is the early check a tool's binding sets, nil when its
// request has no resolver and the tool no pair check: the early check
// function of the request (rootFill), or, with a pair check, a function
// literal (literal) that runs it when the rest of the check found
// nothing: its source and target may be resolved values.
func (e *emitter) earlyCheckBinding(sm *serviceModel, t *toolModel) (check jen.Code, literal bool) {
	if !t.input.hasResolvers && t.pairCheck == nil {
		return nil, false
	}
	in := t.method.Input.GoIdent
	params := jen.Params(jen.Id("c").Op("*").Add(e.rt("Call")), jen.Id("m").Op("*").Add(e.q(in))).Error()
	var root *jen.Statement
	switch {
	case !earlyCheckRoot(t):
		return jen.Func().Add(params).Add(inline(jen.Return(e.pairCheckCall(t)))), true
	case t.pairCheck == nil:
		return e.rootFill(earlyCheckName(sm, t.input), t.input), false
	case t.input.hasResolvers:
		root = jen.Id(earlyCheckName(sm, t.input)).Call(jen.Id("c"), jen.Id(resolversVarName(t.input)), jen.Id("m"), jen.Id("m"))
	default:
		root = jen.Id(earlyCheckName(sm, t.input)).Call(jen.Id("c"), jen.Id("m"))
	}
	return jen.Func().Add(params).Block(
		jen.If(jen.Err().Op(":=").Add(root), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Return(e.pairCheckCall(t)),
	), true
}
