package gen

import (
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"

	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// pairRuleFor reads valid_pairs of enum e (nil when it declares pairs_of
// nowhere). types is the table the enum is offered with.
func (b *builder) pairRuleFor(types *enumTable) *pairRule {
	if r, ok := b.pairs[types]; ok {
		return r
	}
	r := b.readPairRule(types)
	b.pairs[types] = r
	return r
}

func (b *builder) readPairRule(types *enumTable) *pairRule {
	e := types.enum
	er := ext[*mcpwritev1.EnumRules](e.Desc.Options(), mcpwritev1.E_Enum)
	name := er.GetPairsOf()
	if name == "" {
		for _, v := range e.Values {
			if len(valueRules(v).GetValidPairs()) > 0 {
				b.probs.enumf(e, "value %s declares valid_pairs but the enum has no pairs_of naming the enum of its sources and targets; add option (mcpwrite.v1.enum) = {pairs_of: \"package.Enum\"};", v.Desc.Name())
				return nil
			}
		}
		return nil
	}
	pe, ok := b.enums[protoreflect.FullName(name)]
	if !ok {
		b.probs.enumf(e, "pairs_of %q is not an enum known to this build; import the file that declares it and write its full name, package.Enum", name)
		return nil
	}
	ends, ok := b.file.firstTable[pe.Desc.FullName()]
	if !ok {
		ends = b.table(pe, nil, nil)
	}
	rule := &pairRule{types: types, ends: ends}
	for _, v := range e.Values {
		for _, p := range valueRules(v).GetValidPairs() {
			src, ok1 := ends.lookup(p.GetSource())
			dst, ok2 := ends.lookup(p.GetTarget())
			if !ok1 || !ok2 {
				bad := p.GetSource()
				if ok1 {
					bad = p.GetTarget()
				}
				b.probs.enumf(e, "value %s: valid_pairs names %q, which is not an alias of %s; name one of its aliases (%s)", v.Desc.Name(), bad, name, strings.Join(ends.aliases(), ", "))
				continue
			}
			rule.pairs = append(rule.pairs, pairValue{typ: v, source: src.value, target: dst.value})
		}
	}
	return rule
}

// docPairs lists the valid pairs of one value for discovery.
func (r *pairRule) docPairs(v *protogen.EnumValue) []schemadoc.Pair {
	var out []schemadoc.Pair
	for _, p := range r.pairs {
		if p.typ == v {
			out = append(out, schemadoc.Pair{Source: r.ends.aliasOf(p.source), Target: r.ends.aliasOf(p.target)})
		}
	}
	return out
}

// pairCheck validates a tool's pair_check against its request message.
func (b *builder) pairCheck(t *toolModel, pc *mcpwritev1.PairCheck) *pairCheckModel {
	m := t.method
	byName := map[string]*protogen.Field{}
	for _, f := range m.Input.Fields {
		byName[string(f.Desc.Name())] = f
	}
	get := func(role, name string) *protogen.Field {
		f, ok := byName[name]
		switch {
		case name == "":
			b.probs.methodf(m, "pair_check needs %s: a field of %s; e.g. pair_check: {%s: %q}", role, m.Input.Desc.FullName(), role, firstOf(fieldList(m.Input, singularEnum)))
		case !ok:
			b.probs.methodf(m, "pair_check %s %q is not a field of %s; name one of its enum fields (%s)", role, name, m.Input.Desc.FullName(), fieldList(m.Input, singularEnum))
		case f.Enum == nil || f.Desc.IsList() || f.Desc.IsMap():
			b.probs.methodf(m, "pair_check %s %q is %s, not an enum field; name one of the enum fields of %s (%s)", role, name, kindName(f), m.Input.Desc.FullName(), fieldList(m.Input, singularEnum))
		default:
			return f
		}
		return nil
	}
	typ, src, dst := get("type", pc.GetType()), get("source", pc.GetSource()), get("target", pc.GetTarget())
	if typ == nil || src == nil || dst == nil {
		return nil
	}
	types, ok := b.file.firstTable[typ.Enum.Desc.FullName()]
	if !ok {
		types = b.table(typ.Enum, nil, typ)
	}
	rule := b.pairRuleFor(types)
	if rule == nil {
		b.probs.methodf(m, "pair_check type %q: enum %s declares no pairs_of and valid_pairs; declare them on %s (option (mcpwrite.v1.enum) = {pairs_of: \"package.Enum\"}; and [(mcpwrite.v1.value).valid_pairs = {source: \"A\" target: \"B\"}]), or name another type field", pc.GetType(), typ.Enum.Desc.FullName(), typ.Enum.Desc.Name())
		return nil
	}
	for _, f := range []*protogen.Field{src, dst} {
		if f.Enum != rule.ends.enum {
			b.probs.methodf(m, "pair_check %q is enum %s, but %s pairs name %s; name fields of enum %s as source and target", f.Desc.Name(), f.Enum.Desc.FullName(), typ.Enum.Desc.FullName(), rule.ends.enum.Desc.FullName(), rule.ends.enum.Desc.Name())
			return nil
		}
	}
	return &pairCheckModel{typ: typ, source: src, target: dst, rule: rule, varName: pairTableVarName(m)}
}
