package gen

// The reference check: what enrichment checks on fields the agent sent,
// run on a request whose arguments did not all decode, so a bad reference
// is answered in the same round as the decode problems. It resolves every
// reference that decoded, after the fills a reference resolver may read
// (context values, constants, from_enum; a server-filled envelope such as
// meta), and collects every failure. It fills nothing random or timed and
// calls no value resolver: those read the whole request, which is
// incomplete, and wait for the full enrichment.

import (
	"github.com/dave/jennifer/jen"
)

// refCheckName is the reference check of a message for one service:
// checkRefsGraphServiceConnectRequest.
func refCheckName(sm *serviceModel, m *messageModel) string {
	return "checkRefs" + sm.proto.GoName + m.goName()
}

// refCheckFills reports whether a server-filled envelope (a child the
// enrichment creates) has fills the reference check makes.
func refCheckFills(m *messageModel, seen map[*messageModel]bool) bool {
	if seen[m] {
		return false
	}
	seen[m] = true
	for _, f := range m.fields {
		if f.fill != nil && (f.fill.source == fillContext || f.fill.source == fillConstant || f.fill.source == fillFromEnum) {
			return true
		}
		if envelope(f) && refCheckFills(f.child, seen) {
			return true
		}
	}
	return false
}

// envelope reports a singular child message the agent sets nothing of,
// which the enrichment creates and fills.
func envelope(f *fieldModel) bool {
	pf := f.proto
	return f.child != nil && f.child.serverFilled && !f.child.agentFacing && !pf.Desc.IsList() && !pf.Desc.IsMap() && !realOneof(pf)
}

// refCheckFuncs emits, once per service and message, the reference check
// of m and of the children it descends into.
func (e *emitter) refCheckFuncs(sm *serviceModel, m *messageModel, done map[*messageModel]bool) {
	if done[m] {
		return
	}
	done[m] = true
	fn := jen.Func().Id(refCheckName(sm, m))
	if m.hasReferences {
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
		e.refCheckFills(g, m)
		if m.hasReferences {
			g.Var().Id("errs").Index().Error()
		}
		e.refCheckChildren(g, sm, m)
		if !m.hasReferences {
			g.Return(jen.Nil())
			return
		}
		e.resolveReferences(g, m)
		g.Return(e.rt("JoinResolverErrors").Call(jen.Id("errs").Op("...")))
	}))
	for _, f := range m.fields {
		if f.child != nil && (f.child.hasReferences || envelope(f) && refCheckFills(f.child, map[*messageModel]bool{})) {
			e.refCheckFuncs(sm, f.child, done)
		}
	}
}

// refCheckFills makes m's context, constant and from_enum fills, as the
// enrichment does.
func (e *emitter) refCheckFills(g *jen.Group, m *messageModel) {
	kept := &messageModel{}
	for _, f := range m.fields {
		if f.fill != nil && (f.fill.source == fillContext || f.fill.source == fillConstant || f.fill.source == fillFromEnum) {
			kept.fields = append(kept.fields, f)
		}
	}
	e.enrichFills(g, kept)
}

// refCheckChildren descends into the envelopes with fills and the children
// with references, each failure collected.
func (e *emitter) refCheckChildren(g *jen.Group, sm *serviceModel, m *messageModel) {
	for _, f := range m.fields {
		if f.child == nil {
			continue
		}
		pf := f.proto
		fn := refCheckName(sm, f.child)
		field := jen.Id("m").Dot(pf.GoName)
		switch {
		case envelope(f) && !f.child.hasReferences:
			if !refCheckFills(f.child, map[*messageModel]bool{}) {
				continue
			}
			g.If(field.Clone().Op("==").Nil()).Block(field.Clone().Op("=").New(e.q(f.child.proto.GoIdent)))
			g.If(jen.Err().Op(":=").Id(fn).Call(jen.Id("c"), field.Clone()), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))
		case f.child.hasReferences:
			call := func(x jen.Code) *jen.Statement {
				return jen.Id("errs").Op("=").Append(jen.Id("errs"), jen.Id(fn).Call(jen.Id("c"), jen.Id("h"), jen.Id("root"), x))
			}
			key := jen.Lit(f.agentName)
			enter, leave := jen.Id("c").Dot("Enter").Call(key), jen.Id("c").Dot("Leave").Call()
			switch {
			case pf.Desc.IsList():
				g.For(jen.List(jen.Id("i"), jen.Id("x")).Op(":=").Range().Add(field)).Block(
					enter, jen.Id("c").Dot("EnterIndex").Call(jen.Id("i")), call(jen.Id("x")), leave, jen.Id("c").Dot("Leave").Call(),
				)
			case pf.Desc.IsMap():
				g.For(jen.List(jen.Id("_"), jen.Id("x")).Op(":=").Range().Add(field)).Block(enter, call(jen.Id("x")), leave)
			default:
				g.If(jen.Id("x").Op(":=").Id("m").Dot(getterName(pf)).Call(), jen.Id("x").Op("!=").Nil()).Block(enter, call(jen.Id("x")), leave)
			}
		}
	}
}

// refCheckBinding is the reference check a tool's binding sets, nil when
// its request has no reference.
func (e *emitter) refCheckBinding(sm *serviceModel, t *toolModel) jen.Code {
	if !t.input.hasReferences {
		return nil
	}
	in := t.method.Input.GoIdent
	return jen.Func().Params(jen.Id("c").Op("*").Add(e.rt("Call")), jen.Id("m").Op("*").Add(e.q(in))).Error().Add(inline(
		jen.Return(jen.Id(refCheckName(sm, t.input)).Call(jen.Id("c"), jen.Id(resolversVarName(t.input)), jen.Id("m"), jen.Id("m"))),
	))
}
