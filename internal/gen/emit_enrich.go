package gen

import (
	"strconv"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// enrichFuncs emits, once per service and message, the function that fills
// every server-supplied field: generated values, constants, context values
// and enum implications first, nested messages next, content hashes after
// the fields they hash, resolvers last (they see the rest of the request).
func (e *emitter) enrichFuncs(sm *serviceModel, m *messageModel, done map[*messageModel]bool) {
	if done[m] || !m.serverFilled {
		return
	}
	done[m] = true
	g := e.g
	g.P("func ", enrichName(sm, m), "(c *", rt("Call"), ", h ", handlerName(sm), ", root ", protoPkg.Ident("Message"), ", m *", m.proto.GoIdent, ") error {")
	for _, f := range m.fields {
		fl := f.fill
		if fl == nil {
			continue
		}
		if fl.source == fillGenerated && fl.gen != genContentHash {
			e.guard(f, func(string) { g.P(e.set(f.proto, e.generatedExpr(f))) })
		}
		switch fl.source {
		case fillConstant:
			e.guard(f, func(string) { g.P(e.set(f.proto, e.literal(fl.constant))) })
		case fillContext:
			e.guard(f, func(v string) {
				g.P(v, ", err := c.ContextValue(", rt(fl.contextIdent), ", ", strconv.Quote(f.agentName), ")")
				g.P("if err != nil {")
				g.P("return err")
				g.P("}")
				g.P(e.set(f.proto, v))
			})
		case fillFromEnum:
			e.guard(f, func(string) {
				g.P("switch m.Get", f.fromEnum.proto.GoName, "() {")
				// One case per implied value, in first-use order.
				var targets []*protogen.EnumValue
				sources := map[*protogen.EnumValue][]string{}
				for _, iv := range f.implies {
					if sources[iv.target] == nil {
						targets = append(targets, iv.target)
					}
					sources[iv.target] = append(sources[iv.target], g.QualifiedGoIdent(iv.source.GoIdent))
				}
				for _, t := range targets {
					g.P("case ", strings.Join(sources[t], ", "), ":")
					g.P(e.set(f.proto, g.QualifiedGoIdent(t.GoIdent)))
				}
				g.P("}")
			})
		}
	}
	for _, f := range m.fields {
		if f.child == nil || !f.child.serverFilled {
			continue
		}
		fn := enrichName(sm, f.child)
		pf := f.proto
		switch {
		case !f.child.agentFacing && !pf.Desc.IsList() && !pf.Desc.IsMap() && !realOneof(pf):
			g.P("if m.", pf.GoName, " == nil {")
			g.P("m.", pf.GoName, " = new(", f.child.proto.GoIdent, ")")
			g.P("}")
			g.P("if err := ", fn, "(c, h, root, m.", pf.GoName, "); err != nil {")
			g.P("return err")
			g.P("}")
		case f.child.hasReferences:
			// References below name their field by its whole agent path.
			key := strconv.Quote(f.agentName)
			switch {
			case pf.Desc.IsList():
				g.P("for i, x := range m.", pf.GoName, " {")
				g.P("c.Enter(", key, ")")
				g.P("c.EnterIndex(i)")
				g.P("err := ", fn, "(c, h, root, x)")
				g.P("c.Leave()")
				g.P("c.Leave()")
			case pf.Desc.IsMap():
				g.P("for _, x := range m.", pf.GoName, " {")
				g.P("c.Enter(", key, ")")
				g.P("err := ", fn, "(c, h, root, x)")
				g.P("c.Leave()")
			default:
				g.P("if x := m.Get", pf.GoName, "(); x != nil {")
				g.P("c.Enter(", key, ")")
				g.P("err := ", fn, "(c, h, root, x)")
				g.P("c.Leave()")
			}
			g.P("if err != nil {")
			g.P("return err")
			g.P("}")
			g.P("}")
		case pf.Desc.IsList() || pf.Desc.IsMap():
			g.P("for _, x := range m.", pf.GoName, " {")
			g.P("if err := ", fn, "(c, h, root, x); err != nil {")
			g.P("return err")
			g.P("}")
			g.P("}")
		default:
			g.P("if x := m.Get", pf.GoName, "(); x != nil {")
			g.P("if err := ", fn, "(c, h, root, x); err != nil {")
			g.P("return err")
			g.P("}")
			g.P("}")
		}
	}
	for _, f := range m.fields {
		if f.fill != nil && f.fill.source == fillGenerated && f.fill.gen == genContentHash {
			e.guard(f, func(string) { g.P(e.set(f.proto, e.generatedExpr(f))) })
		}
	}
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
	collect := resolvers > 1 || refs > 0
	if collect {
		g.P("var errs []error")
	}
	if refs > 0 {
		e.resolveReferences(m)
		if resolvers > 0 {
			g.P("if len(errs) > 0 {")
			g.P("return ", rt("JoinResolverErrors"), "(errs...)")
			g.P("}")
		}
	}
	for _, f := range m.fields {
		if f.resolver == nil || f.resolver.reference {
			continue
		}
		e.guard(f, func(v string) {
			g.P(v, ", err := h.", f.resolver.method, "(c.Ctx, root)")
			g.P("if err != nil {")
			if collect {
				g.P("errs = append(errs, c.ResolverError(", strconv.Quote(f.agentName), ", err))")
				g.P("} else {")
				g.P(e.set(f.proto, v))
				g.P("}")
			} else {
				g.P("return c.ResolverError(", strconv.Quote(f.agentName), ", err)")
				g.P("}")
				g.P(e.set(f.proto, v))
			}
		})
	}
	if collect {
		g.P("return ", rt("JoinResolverErrors"), "(errs...)")
	} else {
		g.P("return nil")
	}
	g.P("}")
	g.P()
	for _, f := range m.fields {
		if f.child != nil {
			e.enrichFuncs(sm, f.child, done)
		}
	}
}

// guard wraps the fill of an overridable field so an agent value wins; an
// unconditional fill is emitted as it is. body gets the name of the
// variable a fill that reads a value first may declare: "v" inside the
// guard, a name of the field's own outside it, so fills do not collide.
func (e *emitter) guard(f *fieldModel, body func(v string)) {
	if !f.overridable {
		body(fillVarName(f.proto))
		return
	}
	e.g.P("if ", e.unset(f.proto), " {")
	body("v")
	e.g.P("}")
}

func (e *emitter) generatedExpr(f *fieldModel) string {
	fl := f.fill
	var expr string
	switch fl.gen {
	case genUUIDv4:
		expr = "c.UUIDv4()"
	case genUUIDv7:
		expr = "c.UUIDv7()"
	case genULID:
		expr = "c.ULID()"
	case genRequestScoped:
		expr = "c.RequestScopedID()"
	case genContentHash:
		expr = "c.ContentHash("
		for i, s := range f.hashFrom {
			if i > 0 {
				expr += ", "
			}
			expr += e.hashPart(s.proto)
		}
		expr += ")"
	case genNow:
		switch {
		case f.proto.Message != nil:
			return e.g.QualifiedGoIdent(timestampPkg.Ident("New")) + "(c.Now())"
		case f.proto.Desc.Kind() == protoreflect.Int64Kind:
			return "c.Now().UnixMilli()"
		default:
			expr = e.g.QualifiedGoIdent(rt("FormatRFC3339")) + "(c.Now())"
		}
	}
	if fl.prefix != nil {
		expr = strconv.Quote(*fl.prefix) + " + " + expr
	}
	return expr
}

// hashPart renders a scalar field as the string CONTENT_HASH hashes.
func (e *emitter) hashPart(f *protogen.Field) string {
	get := "m.Get" + f.GoName + "()"
	conv := func(name string) string { return e.g.QualifiedGoIdent(strconvPkg.Ident(name)) }
	switch f.Desc.Kind() {
	case protoreflect.StringKind:
		return get
	case protoreflect.EnumKind:
		return get + ".String()"
	case protoreflect.BoolKind:
		return conv("FormatBool") + "(" + get + ")"
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return conv("FormatFloat") + "(float64(" + get + "), 'g', -1, 64)"
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return conv("FormatUint") + "(uint64(" + get + "), 10)"
	}
	return conv("FormatInt") + "(int64(" + get + "), 10)"
}
