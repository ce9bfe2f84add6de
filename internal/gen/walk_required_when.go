package gen

import (
	"encoding/json"
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// quoted is how error messages and rules name the value: as JSON.
func (v condValue) quoted() string { return string(mustJSON(v.json)) }

// requiredWhen links the required_when conditions of mm's fields to their
// siblings and checks them: the sibling is a singular scalar or enum field
// the agent sets, and every value is one it can hold.
func (b *builder) requiredWhen(mm *messageModel) {
	for _, f := range mm.fields {
		rw := b.ann(f).agent.GetRequiredWhen()
		if rw == nil || f.mode != modeAgent {
			continue
		}
		pf := f.proto
		switch {
		case rw.GetField() == "":
			b.probs.fieldf(pf, "required_when needs field: the sibling field whose value makes this one required, e.g. required_when: {field: \"mode\" equals: %q}", "\"x\"")
			continue
		case len(rw.GetEquals()) == 0:
			b.probs.fieldf(pf, "required_when needs equals: the values of %s (JSON literals, enum aliases) that make this field required, e.g. required_when: {field: %q equals: %q}", rw.GetField(), rw.GetField(), "\"x\"")
			continue
		case b.ann(f).agent.GetRequired() || f.required:
			b.probs.fieldf(pf, "a required field cannot also have required_when; drop one of them")
			continue
		case b.ann(f).agent.Default != nil:
			b.probs.fieldf(pf, "a field with a default is never absent, so required_when cannot apply; drop one of them")
			continue
		case rw.GetField() == string(pf.Desc.Name()):
			b.probs.fieldf(pf, "required_when cannot name the field it belongs to; name a sibling field (%s)", siblingNames(mm, f, false))
			continue
		}
		var sp *fieldModel
		found := false
		for _, x := range mm.proto.Fields {
			if string(x.Desc.Name()) == rw.GetField() {
				found = true
				sp = mm.fieldFor(x)
			}
		}
		if !found {
			b.probs.fieldf(pf, "required_when names %q, which is not a field of %s; name a sibling field (%s)", rw.GetField(), mm.proto.Desc.FullName(), siblingNames(mm, f, false))
			continue
		}
		if sp == nil {
			continue // the sibling's own problem is reported already
		}
		switch sp.mode {
		case modeAgent, modeEnumAlias:
		case modeHidden:
			b.probs.fieldf(pf, "required_when names %q, which is hidden; a condition reads a field the agent sets", rw.GetField())
			continue
		default:
			b.probs.fieldf(pf, "required_when names %q, which the server fills; a condition reads a field the agent sets", rw.GetField())
			continue
		}
		sf := sp.proto
		if sf.Desc.IsList() || sf.Desc.IsMap() || sf.Message != nil || sf.Desc.Kind() == protoreflect.BytesKind {
			b.probs.fieldf(pf, "required_when names %q, which is %s; a condition reads a singular scalar or enum field", rw.GetField(), kindName(sf))
			continue
		}
		m := &requiredWhenModel{when: sp}
		seen := map[string]string{}
		ok := true
		for _, raw := range rw.GetEquals() {
			v, good := b.condValue(f, sp, raw)
			if !good {
				ok = false
				continue
			}
			key := v.lit.code
			if v.lit.ident != nil {
				key = v.lit.ident.GoName
			}
			if prev, dup := seen[key]; dup {
				b.probs.fieldf(pf, "required_when lists %s and %s, which are the same value of %s; list each value once", prev, raw, rw.GetField())
				ok = false
				continue
			}
			seen[key] = raw
			m.values = append(m.values, v)
		}
		if ok {
			f.requiredWhen = m
		}
	}
}

// condValue reads one required_when value for the sibling sp.
func (b *builder) condValue(f, sp *fieldModel, raw string) (condValue, bool) {
	if sp.proto.Enum != nil {
		var alias string
		if err := json.Unmarshal([]byte(raw), &alias); err != nil {
			b.probs.fieldf(f.proto, "required_when value %s: want an alias of %s as a JSON string, e.g. %q", raw, sp.proto.Enum.Desc.FullName(), strconv.Quote(firstAlias(sp)))
			return condValue{}, false
		}
		v, ok := sp.enumTable.lookup(alias)
		if !ok {
			b.probs.fieldf(f.proto, "required_when value %q is not an alias of %s (valid: %s); e.g. equals: %q", alias, sp.proto.Enum.Desc.FullName(), strings.Join(sp.enumTable.aliases(), ", "), strconv.Quote(firstAlias(sp)))
			return condValue{}, false
		}
		id := v.value.GoIdent
		return condValue{lit: literal{ident: &id}, json: v.alias, text: v.alias}, true
	}
	lit, err := goLiteral(sp, raw)
	if err != nil {
		b.probs.fieldf(f.proto, "required_when value %s for %s: %v; write it as protojson writes %s, e.g. equals: %s", raw, sp.proto.Desc.Name(), err, sp.proto.Desc.Name(), literalExample(sp.proto))
		return condValue{}, false
	}
	return condValue{lit: lit, json: lit.jsonValue, text: string(mustJSON(lit.jsonValue))}, true
}

func firstAlias(f *fieldModel) string {
	if as := f.enumTable.aliases(); len(as) > 0 {
		return as[0]
	}
	return ""
}

// orList joins values as "a", "a or b", "a, b or c".
func orList(vs []string) string {
	if len(vs) <= 1 {
		return strings.Join(vs, "")
	}
	return strings.Join(vs[:len(vs)-1], ", ") + " or " + vs[len(vs)-1]
}

// requiredWhenNote is the sentence the field's description ends with.
func requiredWhenNote(f *fieldModel) string {
	var vs []string
	for _, v := range f.requiredWhen.values {
		vs = append(vs, v.text)
	}
	return "Required when " + f.requiredWhen.when.agentName + " is " + orList(vs) + "."
}

// requiredWhenRule is the rule as getWriteSchema states it, by the dotted
// agent paths of the field and of its condition.
func requiredWhenRule(field, when string, vs []condValue) string {
	var qs []string
	for _, v := range vs {
		qs = append(qs, v.quoted())
	}
	return field + " is required when " + when + " is " + orList(qs)
}
