package gen

// The walk steps of the fields the server fills: derived and generated
// fields, and the siblings they read (from_enum, implies, content hash).

import (
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"

	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
)

func (b *builder) derivedField(fm *fieldModel) bool {
	f := fm.proto
	d := b.ann(fm).derived
	switch src := d.GetSource().(type) {
	case nil:
		b.probs.fieldf(f, "derived needs a source: from_enum, context, resolver or constant, e.g. [(mcpwrite.v1.field).derived = {context: TENANT_ID}]")
		return false
	case *mcpwritev1.Derived_FromEnum:
		if src.FromEnum == "" {
			b.probs.fieldf(f, "derived.from_enum needs the name of a sibling enum field, e.g. [(mcpwrite.v1.field).derived = {from_enum: \"kind\"}]")
			return false
		}
		if f.Enum == nil || f.Desc.IsList() || f.Desc.IsMap() {
			b.probs.fieldf(f, "derived.from_enum fills an enum field, not %s; fill this field from context, a resolver or a constant instead, e.g. [(mcpwrite.v1.field).derived = {resolver: %q}]", kindName(f), string(f.Desc.Name()))
			return false
		}
		// Resolved against siblings once the message is built.
		_ = src
	case *mcpwritev1.Derived_Context:
		if f.Desc.Kind() != protoreflect.StringKind || f.Desc.IsList() || f.Desc.IsMap() {
			b.probs.fieldf(f, "derived.context %s fills a string field, not %s; make the field a string, or fill it with a resolver, e.g. [(mcpwrite.v1.field).derived = {resolver: %q}]", src.Context, kindName(f), string(f.Desc.Name()))
			return false
		}
		if src.Context == mcpwritev1.Derived_CONTEXT_KEY_UNSPECIFIED {
			b.probs.fieldf(f, "derived.context needs a key: [(mcpwrite.v1.field).derived = {context: TENANT_ID}]")
			return false
		}
		if _, known := contextKeys[src.Context]; !known {
			b.probs.fieldf(f, "unknown derived.context %d (annotations newer than the plugin? upgrade protoc-gen-mcpwrite)", int32(src.Context))
			return false
		}
	case *mcpwritev1.Derived_Resolver:
		if !isSnakeName(src.Resolver) {
			b.probs.fieldf(f, "resolver name %q must be snake_case, e.g. active_model", src.Resolver)
			return false
		}
		goType := goType(f, fullGoIdent)
		if r, ok := b.findResolver(src.Resolver); ok {
			if r.reference {
				b.probs.fieldf(f, "resolver %q resolves references for %s; a value resolver needs its own name", src.Resolver, r.firstUse)
				return false
			}
			if r.goType != goType {
				b.probs.fieldf(f, "resolver %q returns %s here but %s for %s; give this field's resolver a name of its own, e.g. [(mcpwrite.v1.field).derived = {resolver: %q}]", src.Resolver, goType, r.goType, r.firstUse, src.Resolver+"_"+string(f.Desc.Name()))
				return false
			}
			fm.resolver = r
		} else {
			fm.resolver = &resolverModel{name: src.Resolver, method: resolverMethod(src.Resolver), goType: goType, firstUse: string(f.Desc.FullName()), field: f}
			b.file.resolvers = append(b.file.resolvers, fm.resolver)
		}
	case *mcpwritev1.Derived_Constant:
		if _, err := goLiteral(fm, src.Constant); err != nil {
			b.probs.fieldf(f, "constant %s: %v; write it as protojson writes the field, e.g. [(mcpwrite.v1.field).derived = {constant: %s}]", src.Constant, err, literalExample(f))
			return false
		}
	}
	if fm.overridable && f.Message != nil && !isWKT(f) {
		b.probs.fieldf(f, "overridable applies to scalar, enum and well-known fields, not message %s; remove overridable: true", f.Message.Desc.FullName())
		return false
	}
	return true
}

func (b *builder) generatedField(fm *fieldModel) bool {
	f := fm.proto
	g := b.ann(fm).generated
	if f.Desc.IsList() || f.Desc.IsMap() {
		b.probs.fieldf(f, "generated fills a singular field, not %s; annotate a singular field, or make the items' field generated inside the item message", kindName(f))
		return false
	}
	k := f.Desc.Kind()
	isString := k == protoreflect.StringKind
	switch g.GetKind() {
	case mcpwritev1.Generated_KIND_UNSPECIFIED:
		b.probs.fieldf(f, "generated needs a kind: UUID_V4, UUID_V7, ULID, NOW, CONTENT_HASH or REQUEST_SCOPED, e.g. [(mcpwrite.v1.field).generated = {kind: UUID_V7}]")
		return false
	case mcpwritev1.Generated_UUID_V4, mcpwritev1.Generated_UUID_V7, mcpwritev1.Generated_ULID,
		mcpwritev1.Generated_CONTENT_HASH, mcpwritev1.Generated_REQUEST_SCOPED:
		if !isString {
			b.probs.fieldf(f, "generated %s fills a string field, not %s; make the field a string, or remove its generated option", g.GetKind(), kindName(f))
			return false
		}
	case mcpwritev1.Generated_NOW:
		ts := f.Message != nil && f.Message.Desc.FullName() == "google.protobuf.Timestamp"
		if !ts && !isString && k != protoreflect.Int64Kind {
			b.probs.fieldf(f, "generated NOW fills a google.protobuf.Timestamp, string or int64 field, not %s; make the field a google.protobuf.Timestamp, or remove its generated option", kindName(f))
			return false
		}
		if g.Prefix != nil && !isString {
			b.probs.fieldf(f, "prefix applies to string fields only; remove prefix from its (mcpwrite.v1.field).generated option")
			return false
		}
	default:
		b.probs.fieldf(f, "unknown generated kind %d (annotations newer than the plugin? upgrade protoc-gen-mcpwrite)", int32(g.GetKind()))
		return false
	}
	if g.GetKind() == mcpwritev1.Generated_CONTENT_HASH && len(g.GetFrom()) == 0 {
		b.probs.fieldf(f, "generated CONTENT_HASH needs from: the sibling fields to hash, e.g. [(mcpwrite.v1.field).generated = {kind: CONTENT_HASH, from: [\"name\"]}]")
		return false
	}
	if g.GetKind() != mcpwritev1.Generated_CONTENT_HASH && len(g.GetFrom()) > 0 {
		b.probs.fieldf(f, "from applies to CONTENT_HASH only, not %s; remove from, or set kind: CONTENT_HASH", g.GetKind())
		return false
	}
	return true
}

// resolveSiblings links from_enum sources and CONTENT_HASH inputs, which
// name fields of the same message.
func (b *builder) resolveSiblings(mm *messageModel) {
	byName := map[string]*fieldModel{}
	for _, f := range mm.fields {
		byName[string(f.proto.Desc.Name())] = f
	}
	for _, f := range mm.fields {
		if src := b.ann(f).derived.GetFromEnum(); src != "" {
			s, ok := byName[src]
			switch {
			case !ok && refused(mm, src):
			case !ok:
				b.probs.fieldf(f.proto, "from_enum names %q, which is not a field of %s; name a sibling enum field (%s)", src, mm.proto.Desc.FullName(), siblingNames(mm, f, true))
			case s.proto.Enum == nil || s.proto.Desc.IsList() || s.proto.Desc.IsMap():
				b.probs.fieldf(f.proto, "from_enum names %q, which is %s, not an enum field; name a sibling enum field (%s)", src, kindName(s.proto), siblingNames(mm, f, true))
			default:
				f.fromEnum = s
				for _, v := range s.proto.Enum.Values {
					if v.Desc.Number() == 0 || valueRules(v).GetHidden() {
						continue
					}
					t := impliedIn(v, f.proto.Enum)
					if t == nil {
						b.probs.fieldf(f.proto, "from_enum %q: value %s has no implies entry for %s; add one to %s, e.g. [(mcpwrite.v1.value).implies = %s]", src, v.Desc.Name(), f.proto.Enum.Desc.FullName(), v.Desc.Name(), impliesExample(f.proto.Enum))
						continue
					}
					f.implies = append(f.implies, impliedValue{source: v, target: t})
				}
				b.checkImplies(s.proto.Enum)
			}
		}
		if b.ann(f).generated.GetKind() == mcpwritev1.Generated_CONTENT_HASH {
			for _, name := range b.ann(f).generated.GetFrom() {
				s, ok := byName[name]
				switch {
				case !ok && refused(mm, name):
				case !ok:
					b.probs.fieldf(f.proto, "CONTENT_HASH from names %q, which is not a field of %s; name sibling fields (%s)", name, mm.proto.Desc.FullName(), siblingNames(mm, f, false))
				case s.proto.Desc.IsList() || s.proto.Desc.IsMap() || s.proto.Message != nil || s.proto.Desc.Kind() == protoreflect.BytesKind:
					b.probs.fieldf(f.proto, "CONTENT_HASH from names %q, which is %s; hash scalar or enum fields", name, kindName(s.proto))
				case s == f:
					b.probs.fieldf(f.proto, "CONTENT_HASH cannot hash the field it fills; remove %q from from", f.proto.Desc.Name())
				default:
					f.hashFrom = append(f.hashFrom, s)
				}
			}
		}
	}
}

// checkImplies reports implies entries that name no known enum value.
func (b *builder) checkImplies(e *protogen.Enum) {
	for _, v := range e.Values {
		for _, full := range valueRules(v).GetImplies() {
			i := strings.LastIndex(full, ".")
			if i < 0 {
				b.probs.enumf(e, "value %s: implies %q must be a fully-qualified enum value such as pkg.Enum.VALUE; write the enum's full name before the value, e.g. %q", v.Desc.Name(), full, string(e.Desc.ParentFile().Package())+".Enum."+full)
				continue
			}
			te, ok := b.enums[protoreflect.FullName(full[:i])]
			found := false
			if ok {
				for _, tv := range te.Values {
					if impliesName(tv) == full {
						found = true
					}
				}
			}
			if !found {
				b.probs.enumf(e, "value %s: implies %q is not a known enum value; name a value of an enum this file declares or imports, as package.Enum.VALUE", v.Desc.Name(), full)
			}
		}
	}
}

// siblingNames lists the names of self's siblings in mm for a fix that
// names one: the enum fields only when enums, else the scalar and enum
// fields; "none" when there is none.
func siblingNames(mm *messageModel, self *fieldModel, enums bool) string {
	var names []string
	for _, f := range mm.fields {
		d := f.proto.Desc
		if f == self {
			continue
		}
		if d.IsList() || d.IsMap() || d.Message() != nil || (enums && d.Enum() == nil) {
			continue
		}
		names = append(names, string(d.Name()))
	}
	if len(names) == 0 {
		return "there is none; add one"
	}
	return strings.Join(names, ", ")
}
