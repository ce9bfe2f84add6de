package gen

import (
	"github.com/dave/jennifer/jen"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// returnIfErr is "if err != nil { return err }".
func returnIfErr() *jen.Statement {
	return jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))
}

// enrichFuncs emits, once per service and message, the function that fills
// every server-supplied field: generated values, constants, context values
// and enum implications first, nested messages next, content hashes after
// the fields they hash, resolvers last (they see the rest of the request).
func (e *emitter) enrichFuncs(sm *serviceModel, m *messageModel, done map[*messageModel]bool) {
	if done[m] || !m.serverFilled {
		return
	}
	done[m] = true
	fn := jen.Func().Id(enrichName(sm, m))
	if m.hasResolvers {
		// Generic over the request type R: the resolvers table of the
		// request (emit_resolvers.go) and the request itself.
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
		e.enrichBody(g, sm, m)
	}))
	for _, f := range m.fields {
		if f.child != nil {
			e.enrichFuncs(sm, f.child, done)
		}
	}
}

// enrichBody emits, in order: the fills of m's own fields, the enrichment
// of its server-filled children, its content hashes (which read the
// filled fields) and its resolvers.
func (e *emitter) enrichBody(g *jen.Group, sm *serviceModel, m *messageModel) {
	e.enrichFills(g, m)
	// A reference below is collected with m's own, so every reference
	// problem of the request is answered at once.
	nested := false
	for _, f := range m.fields {
		nested = nested || f.child != nil && f.child.hasReferences
	}
	if nested {
		g.Var().Id("errs").Index().Error()
	}
	e.enrichChildren(g, sm, m)
	e.enrichHashes(g, m)
	e.enrichResolvers(g, m, nested)
}

// enrichFills fills m's generated (but content hash), constant, context
// and from_enum fields.
func (e *emitter) enrichFills(g *jen.Group, m *messageModel) {
	for _, f := range m.fields {
		fl := f.fill
		if fl == nil {
			continue
		}
		switch {
		case fl.source == fillGenerated && fl.gen != genContentHash:
			e.guard(g, f, func(g *jen.Group, _ string) { g.Add(e.set(f.proto, e.generatedExpr(f))) })
		case fl.source == fillConstant:
			e.guard(g, f, func(g *jen.Group, _ string) { g.Add(e.set(f.proto, e.literal(fl.constant))) })
		case fl.source == fillContext:
			e.guard(g, f, func(g *jen.Group, v string) {
				g.List(jen.Id(v), jen.Err()).Op(":=").Id("c").Dot("ContextValue").Call(e.rt(fl.contextIdent), jen.Lit(f.agentName))
				g.Add(returnIfErr())
				g.Add(e.set(f.proto, jen.Id(v)))
			})
		case fl.source == fillFromEnum:
			e.guard(g, f, func(g *jen.Group, _ string) {
				// One case per implied value, in first-use order.
				var targets []*protogen.EnumValue
				sources := map[*protogen.EnumValue][]jen.Code{}
				for _, iv := range f.implies {
					if sources[iv.target] == nil {
						targets = append(targets, iv.target)
					}
					sources[iv.target] = append(sources[iv.target], e.q(iv.source.GoIdent))
				}
				g.Switch(jen.Id("m").Dot(getterName(f.fromEnum.proto)).Call()).BlockFunc(func(s *jen.Group) {
					for _, t := range targets {
						s.Case(sources[t]...).Block(e.set(f.proto, e.q(t.GoIdent)))
					}
				})
			})
		}
	}
}

// envelope reports a singular child message the agent sets nothing of,
// which the enrichment creates and fills.
func envelope(f *fieldModel) bool {
	pf := f.proto
	return f.child != nil && f.child.serverFilled && !f.child.agentFacing && !pf.Desc.IsList() && !pf.Desc.IsMap() && !realOneof(pf)
}

// enrichChildren calls the enrich function of every child message the
// server fills some field of. The call descends into each child (Enter,
// EnterIndex, EnterKey), so an error names the field by its whole path
// (elements[2].owner) and an item's request-scoped ID is its own.
func (e *emitter) enrichChildren(g *jen.Group, sm *serviceModel, m *messageModel) {
	for _, f := range m.fields {
		if f.child == nil || !f.child.serverFilled {
			continue
		}
		pf := f.proto
		field := jen.Id("m").Dot(pf.GoName)
		fn := enrichName(sm, f.child)
		call := enrichCall(fn, f.child, jen.Id("x"))
		key := jen.Lit(f.agentName)
		enter, leave := jen.Id("c").Dot("Enter").Call(key), jen.Id("c").Dot("Leave").Call()
		// run calls the child's enrich and leaves it; references below are
		// collected with m's own, so every reference problem is answered at
		// once. Another error returns, leaving the list or map (outer) too.
		run := func(g *jen.Group, outer bool) {
			if f.child.hasReferences {
				g.If(jen.Err().Op(":=").Add(call), jen.Err().Op("!=").Nil()).Block(jen.Id("errs").Op("=").Append(jen.Id("errs"), jen.Err()))
				g.Add(leave.Clone())
				return
			}
			g.Err().Op(":=").Add(call)
			g.Add(leave.Clone())
			g.If(jen.Err().Op("!=").Nil()).BlockFunc(func(g *jen.Group) {
				if outer {
					g.Add(leave.Clone())
				}
				g.Return(jen.Err())
			})
		}
		switch {
		case pf.Desc.IsList():
			g.Add(enter)
			g.For(jen.List(jen.Id("i"), jen.Id("x")).Op(":=").Range().Add(field)).BlockFunc(func(g *jen.Group) {
				g.Id("c").Dot("EnterIndex").Call(jen.Id("i"))
				run(g, true)
			})
			g.Add(leave)
		case pf.Desc.IsMap():
			g.Add(enter)
			g.For(jen.List(jen.Id("k"), jen.Id("x")).Op(":=").Range().Add(field)).BlockFunc(func(g *jen.Group) {
				g.Id("c").Dot("EnterKey").Call(e.mapKeyText(pf.Message.Fields[0], jen.Id("k")))
				run(g, true)
			})
			g.Add(leave)
		case envelope(f) && !f.child.hasResolvers:
			// A message of server fills only (meta) is created and filled,
			// by the runtime's FillEnvelope.
			g.If(jen.Err().Op(":=").Add(e.rt("FillEnvelope")).Call(jen.Id("c"), key, jen.Op("&").Add(field), jen.Id(fn)), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Err()),
			)
		case envelope(f):
			g.If(field.Clone().Op("==").Nil()).Block(field.Clone().Op("=").New(e.q(f.child.proto.GoIdent)))
			g.BlockFunc(func(g *jen.Group) {
				g.Add(enter)
				g.Err().Op(":=").Add(enrichCall(fn, f.child, field.Clone()))
				g.Add(leave.Clone())
				g.Add(returnIfErr())
			})
		default:
			g.If(jen.Id("x").Op(":=").Id("m").Dot(getterName(pf)).Call(), jen.Id("x").Op("!=").Nil()).BlockFunc(func(g *jen.Group) {
				g.Add(enter)
				run(g, false)
			})
		}
	}
}

// mapKeyText is map key k as the decoder names a map value's path: the
// key's text.
func (e *emitter) mapKeyText(kf *protogen.Field, k *jen.Statement) *jen.Statement {
	conv := func(name string) *jen.Statement { return e.q(strconvPkg.Ident(name)) }
	switch kf.Desc.Kind() {
	case protoreflect.StringKind:
		return k
	case protoreflect.BoolKind:
		return conv("FormatBool").Call(k)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return conv("FormatUint").Call(jen.Uint64().Call(k), jen.Lit(10))
	}
	return conv("FormatInt").Call(jen.Int64().Call(k), jen.Lit(10))
}

// enrichCall calls fn, the enrich function of m, on x: with the resolvers
// table and the request when resolvers fill some field of m.
func enrichCall(fn string, m *messageModel, x jen.Code) *jen.Statement {
	if m.hasResolvers {
		return jen.Id(fn).Call(jen.Id("c"), jen.Id("h"), jen.Id("root"), x)
	}
	return jen.Id(fn).Call(jen.Id("c"), x)
}

// enrichHashes fills m's content hash fields, once the fields they read
// are filled.
func (e *emitter) enrichHashes(g *jen.Group, m *messageModel) {
	for _, f := range m.fields {
		if f.fill != nil && f.fill.source == fillGenerated && f.fill.gen == genContentHash {
			e.guard(g, f, func(g *jen.Group, _ string) { g.Add(e.set(f.proto, e.generatedExpr(f))) })
		}
	}
}

// enrichResolvers runs m's reference and value resolvers and returns;
// nested says errs is declared already, holding the references below.
func (e *emitter) enrichResolvers(g *jen.Group, m *messageModel, nested bool) {
	// Every resolver runs, so all missing references are reported at once.
	// Reference resolvers run first: value resolvers see ids, not names,
	// and do not run when a reference failed.
	resolvers, refs := 0, 0
	for _, f := range m.fields {
		switch {
		case f.resolver == nil:
		case f.resolver.reference:
			refs++
		default:
			resolvers++
		}
	}
	collect := nested || resolvers > 1 || refs > 0
	joined := func() *jen.Statement { return jen.Return(e.rt("JoinResolverErrors").Call(jen.Id("errs").Op("..."))) }
	if collect && !nested {
		g.Var().Id("errs").Index().Error()
	}
	if refs > 0 {
		e.resolveReferences(g, m)
	}
	if (refs > 0 || nested) && resolvers > 0 {
		g.If(jen.Len(jen.Id("errs")).Op(">").Lit(0)).Block(joined())
	}
	for _, f := range m.fields {
		if f.resolver == nil || f.resolver.reference {
			continue
		}
		e.guard(g, f, func(g *jen.Group, v string) {
			if resolve := e.resolveInto(f); resolve != nil {
				if collect {
					g.If(jen.Err().Op(":=").Add(resolve), jen.Err().Op("!=").Nil()).Block(jen.Id("errs").Op("=").Append(jen.Id("errs"), jen.Err()))
				} else {
					g.If(jen.Err().Op(":=").Add(resolve), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))
				}
				return
			}
			g.List(jen.Id(v), jen.Err()).Op(":=").Id("h").Dot(f.resolver.method).Call(jen.Id("c").Dot("Ctx"), jen.Id("root"))
			resolverErr := jen.Id("c").Dot("ResolverError").Call(jen.Lit(f.agentName), jen.Err())
			if collect {
				g.If(jen.Err().Op("!=").Nil()).Block(
					jen.Id("errs").Op("=").Append(jen.Id("errs"), resolverErr),
				).Else().Block(e.set(f.proto, jen.Id(v)))
			} else {
				g.If(jen.Err().Op("!=").Nil()).Block(jen.Return(resolverErr))
				g.Add(e.set(f.proto, jen.Id(v)))
			}
		})
	}
	if collect {
		g.Add(joined())
	} else {
		g.Return(jen.Nil())
	}
}

// resolveReferences emits the resolution of every reference field of m,
// appending failures to errs so all of them are reported at once.
func (e *emitter) resolveReferences(g *jen.Group, m *messageModel) {
	for _, f := range m.fields {
		if f.resolver == nil || !f.resolver.reference {
			continue
		}
		g.If(jen.Id("ref").Op(":=").Id("m").Dot(getterName(f.proto)).Call(), jen.Id("ref").Op("!=").Lit("")).Block(
			jen.List(jen.Id("r"), jen.Id("rerr")).Op(":=").Id("h").Dot(f.resolver.method).Call(jen.Id("c").Dot("Ctx"), jen.Id("root"), jen.Id("ref")),
			jen.If(
				jen.List(jen.Id("id"), jen.Err()).Op(":=").Id("c").Dot("ResolveReference").Call(jen.Lit(f.agentName), jen.Lit(f.resolver.kind), jen.Id("ref"), jen.Id("r"), jen.Id("rerr")),
				jen.Err().Op("!=").Nil(),
			).Block(
				jen.Id("errs").Op("=").Append(jen.Id("errs"), jen.Err()),
			).Else().Block(e.set(f.proto, jen.Id("id"))),
		)
	}
}

// guard wraps the fill of an overridable field so an agent value wins; an
// unconditional fill is emitted as it is. body gets the name of the
// variable a fill that reads a value first may declare: "v" inside the
// guard, a name of the field's own outside it, so fills do not collide.
func (e *emitter) guard(g *jen.Group, f *fieldModel, body func(g *jen.Group, v string)) {
	if !f.overridable {
		body(g, fillVarName(f.proto))
		return
	}
	g.If(e.unset(f.proto)).BlockFunc(func(g *jen.Group) { body(g, "v") })
}

func (e *emitter) generatedExpr(f *fieldModel) *jen.Statement {
	fl := f.fill
	c := func(method string, args ...jen.Code) *jen.Statement { return jen.Id("c").Dot(method).Call(args...) }
	var expr *jen.Statement
	switch fl.gen {
	case genUUIDv4:
		expr = c("UUIDv4")
	case genUUIDv7:
		expr = c("UUIDv7")
	case genULID:
		expr = c("ULID")
	case genRequestScoped:
		expr = c("RequestScopedID")
		if k := f.msg.itemKey; k != nil {
			// An item with a key of its own: the ID derives from it.
			expr = c("ItemScopedID", jen.Id("m").Dot(getterName(k.proto)).Call())
		}
	case genContentHash:
		var parts []jen.Code
		for _, s := range f.hashFrom {
			parts = append(parts, e.hashPart(s.proto))
		}
		expr = c("ContentHash", parts...)
	case genNow:
		switch {
		case f.proto.Message != nil:
			return c("NowTimestamp")
		case f.proto.Desc.Kind() == protoreflect.Int64Kind:
			return c("Now").Dot("UnixMilli").Call()
		default:
			expr = e.rt("FormatRFC3339").Call(c("Now"))
		}
	}
	if fl.prefix != nil {
		return jen.Lit(*fl.prefix).Op("+").Add(expr)
	}
	return expr
}

// hashPart is a scalar field as the string CONTENT_HASH hashes.
func (e *emitter) hashPart(f *protogen.Field) *jen.Statement {
	get := func() *jen.Statement { return jen.Id("m").Dot(getterName(f)).Call() }
	conv := func(name string) *jen.Statement { return e.q(strconvPkg.Ident(name)) }
	switch f.Desc.Kind() {
	case protoreflect.StringKind:
		return get()
	case protoreflect.EnumKind:
		return get().Dot("String").Call()
	case protoreflect.BoolKind:
		return conv("FormatBool").Call(get())
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return conv("FormatFloat").Call(jen.Float64().Call(get()), jen.LitRune('g'), jen.Lit(-1), jen.Lit(64))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return conv("FormatUint").Call(jen.Uint64().Call(get()), jen.Lit(10))
	}
	return conv("FormatInt").Call(jen.Int64().Call(get()), jen.Lit(10))
}

// rootFill is the enrich or early check function fill of a tool's request
// m as the tool takes it: the function itself, or bound to the request's
// resolvers table (New<Service>'s variable) when it has one.
func (e *emitter) rootFill(fill string, m *messageModel) *jen.Statement {
	if m.hasResolvers {
		return e.rt("BindResolvers").Call(jen.Id(resolversVarName(m)), jen.Id(fill))
	}
	return jen.Id(fill)
}

// resolveInto is the runtime's Resolve of f's value resolver into the
// field, nil when f is a oneof member or has explicit presence (its
// value is not assigned as it is).
func (e *emitter) resolveInto(f *fieldModel) *jen.Statement {
	if realOneof(f.proto) || isPtr(f.proto) {
		return nil
	}
	return e.rt("Resolve").Call(jen.Id("c"), jen.Id("h").Dot(f.resolver.method), jen.Id("root"), jen.Lit(f.agentName), jen.Op("&").Id("m").Dot(f.proto.GoName))
}
