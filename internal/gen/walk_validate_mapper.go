package gen

// pvMapper maps the buf.validate rules of one field, type by type, onto
// the field's AgentSupplied (rules with an mcpwrite counterpart), its
// pvRules (the others) and its rule docs.

import (
	"slices"
	"strconv"
	"strings"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
)

type pvMapper struct {
	b     *builder
	fm    *fieldModel
	a     *mcpwritev1.AgentSupplied // merged rules; nil for enum_alias fields
	given *mcpwritev1.AgentSupplied // the annotation as written
	pv    *pvRules
	ok    bool
	// server: document only; the protovalidate step checks every rule.
	server bool
}

func (m *pvMapper) doc(rule, value, by string) {
	if m.server {
		by = "protovalidate"
	}
	m.pv.docs = append(m.pv.docs, ruleDoc{Rule: rule, Value: value, CheckedBy: by})
}

// typed maps the type-specific rules of r; prefix is "" for the field
// itself, "repeated.items." or "map.values." for its elements.
func (m *pvMapper) typed(r *validate.FieldRules, prefix string) {
	rm := r.ProtoReflect()
	which := rm.WhichOneof(rm.Descriptor().Oneofs().ByName("type"))
	if which == nil {
		return
	}
	kind := string(which.Name())
	msg := rm.Get(which).Message()
	if want := ruleKindFor(m.fm.proto.Desc, prefix); want != "" && want != kind {
		what := kindName(m.fm.proto)
		switch prefix {
		case "repeated.items.":
			what = want + " items"
		case "map.values.":
			what = want + " map values"
		}
		m.b.probs.fieldf(m.fm.proto, "(buf.validate.field).%s%s rules do not apply to %s; use %s rules", prefix, kind, what, want)
		m.ok = false
		return
	}
	switch {
	case kind == "string":
		m.stringRules(r.GetString(), prefix)
	case kind == "enum":
		m.enumRules(r.GetEnum(), prefix)
	case kind == "repeated" && prefix == "":
		m.repeatedRules(r.GetRepeated())
	case kind == "map" && prefix == "":
		m.mapRules(r.GetMap())
	case isNumberRules(kind):
		m.numberRules(msg, prefix+kind)
	default:
		m.others(msg, prefix+kind, nil)
	}
}

// others documents the set rules of msg not in handled as checked by the
// protovalidate step.
func (m *pvMapper) others(msg protoreflect.Message, prefix string, handled map[string]bool) {
	fields := msg.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		name := string(fd.Name())
		if handled[name] || !msg.Has(fd) || name == "example" {
			continue
		}
		m.doc(prefix+"."+name, ruleValue(fd, msg.Get(fd)), "protovalidate")
	}
}

// setU32 merges a uint32 rule; the annotation must not state another value.
func (m *pvMapper) setU32(dst **uint32, mine string, v uint64, theirs string) {
	if given := m.givenU32(mine); given != nil && uint64(*given) != v {
		m.conflict(mine, strconv.FormatUint(uint64(*given), 10), theirs, strconv.FormatUint(v, 10))
		return
	}
	x := uint32(min(v, uint64(^uint32(0))))
	*dst = &x
}

func (m *pvMapper) givenU32(name string) *uint32 {
	if m.given == nil {
		return nil
	}
	switch name {
	case "min_length":
		return m.given.MinLength
	case "max_length":
		return m.given.MaxLength
	case "min_items":
		return m.given.MinItems
	case "max_items":
		return m.given.MaxItems
	}
	return nil
}

func (m *pvMapper) conflict(mine, mineVal, theirs, theirsVal string) {
	m.b.probs.fieldf(m.fm.proto, "(mcpwrite.v1.field).agent.%s %s contradicts (buf.validate.field).%s %s; state the rule once, in buf.validate", mine, mineVal, theirs, theirsVal)
	m.ok = false
}

func (m *pvMapper) stringRules(s *validate.StringRules, prefix string) {
	p := prefix + "string."
	if m.a == nil {
		m.others(s.ProtoReflect(), prefix+"string", nil)
		return
	}
	if s.HasLen() {
		m.setU32(&m.a.MinLength, "min_length", s.GetLen(), p+"len")
		m.setU32(&m.a.MaxLength, "max_length", s.GetLen(), p+"len")
		m.doc(p+"len", strconv.FormatUint(s.GetLen(), 10), "decoder")
	}
	if s.HasMinLen() {
		m.setU32(&m.a.MinLength, "min_length", s.GetMinLen(), p+"min_len")
		m.doc(p+"min_len", strconv.FormatUint(s.GetMinLen(), 10), "decoder")
	}
	if s.HasMaxLen() {
		m.setU32(&m.a.MaxLength, "max_length", s.GetMaxLen(), p+"max_len")
		m.doc(p+"max_len", strconv.FormatUint(s.GetMaxLen(), 10), "decoder")
	}
	if s.HasPattern() {
		if m.given.Pattern != nil && m.given.GetPattern() != s.GetPattern() {
			m.conflict("pattern", strconv.Quote(m.given.GetPattern()), p+"pattern", strconv.Quote(s.GetPattern()))
		} else {
			m.a.Pattern = proto.String(s.GetPattern())
		}
		m.doc(p+"pattern", strconv.Quote(s.GetPattern()), "decoder")
	}
	if s.HasConst() {
		m.pv.strIn = []string{s.GetConst()}
		m.doc(p+"const", strconv.Quote(s.GetConst()), "decoder")
	}
	if len(s.GetIn()) > 0 {
		m.pv.strIn = s.GetIn()
		m.doc(p+"in", ruleValue(s.ProtoReflect().Descriptor().Fields().ByName("in"), s.ProtoReflect().Get(s.ProtoReflect().Descriptor().Fields().ByName("in"))), "decoder")
	}
	if len(s.GetNotIn()) > 0 {
		m.pv.strNotIn = s.GetNotIn()
		m.doc(p+"not_in", ruleValue(s.ProtoReflect().Descriptor().Fields().ByName("not_in"), s.ProtoReflect().Get(s.ProtoReflect().Descriptor().Fields().ByName("not_in"))), "decoder")
	}
	for _, name := range []string{"prefix", "suffix", "contains", "not_contains"} {
		fd := s.ProtoReflect().Descriptor().Fields().ByName(protoreflect.Name(name))
		if s.ProtoReflect().Has(fd) {
			v := s.ProtoReflect().Get(fd).String()
			m.pv.affixes = append(m.pv.affixes, affix{name, v})
			m.doc(p+name, strconv.Quote(v), "decoder")
		}
	}
	for _, name := range []string{"uuid", "email", "uri", "hostname", "ip", "ipv4", "ipv6"} {
		fd := s.ProtoReflect().Descriptor().Fields().ByName(protoreflect.Name(name))
		if s.ProtoReflect().Has(fd) && s.ProtoReflect().Get(fd).Bool() {
			m.pv.format = name
			m.doc(p+name, "true", "decoder")
		}
	}
	m.others(s.ProtoReflect(), prefix+"string", map[string]bool{
		"len": true, "min_len": true, "max_len": true, "pattern": true, "const": true, "in": true, "not_in": true,
		"prefix": true, "suffix": true, "contains": true, "not_contains": true,
		"uuid": true, "email": true, "uri": true, "hostname": true, "ip": true, "ipv4": true, "ipv6": true,
	})
}

// numberRules maps the rules every numeric rules message shares, read by
// name so one function serves int32 to double.
func (m *pvMapper) numberRules(msg protoreflect.Message, rule string) {
	if m.a == nil {
		m.others(msg, rule, nil)
		return
	}
	fields := msg.Descriptor().Fields()
	get := func(name string) (float64, bool) {
		fd := fields.ByName(protoreflect.Name(name))
		if fd == nil || !msg.Has(fd) {
			return 0, false
		}
		return numberOf(msg.Get(fd)), true
	}
	list := func(name string) []float64 {
		fd := fields.ByName(protoreflect.Name(name))
		var out []float64
		if fd == nil || !msg.Has(fd) {
			return nil
		}
		l := msg.Get(fd).List()
		for i := 0; i < l.Len(); i++ {
			out = append(out, numberOf(l.Get(i)))
		}
		return out
	}
	// text is the values of the rule named name as written (numberText).
	text := func(name string) []string {
		fd := fields.ByName(protoreflect.Name(name))
		if fd == nil || !msg.Has(fd) {
			return nil
		}
		if !fd.IsList() {
			return []string{numberText(msg.Get(fd))}
		}
		l := msg.Get(fd).List()
		out := make([]string, l.Len())
		for i := range out {
			out[i] = numberText(l.Get(i))
		}
		return out
	}
	p := rule + "."
	m.pv.f32 = strings.HasSuffix(rule, "float") // float, repeated.items.float, map.values.float
	if x, ok := get("gte"); ok {
		if m.given.Minimum != nil && m.given.GetMinimum() != x {
			m.conflict("minimum", formatFloat(m.given.GetMinimum()), p+"gte", formatFloat(x))
		} else {
			m.a.Minimum = proto.Float64(x)
		}
		m.doc(p+"gte", text("gte")[0], "decoder")
	}
	if x, ok := get("lte"); ok {
		if m.given.Maximum != nil && m.given.GetMaximum() != x {
			m.conflict("maximum", formatFloat(m.given.GetMaximum()), p+"lte", formatFloat(x))
		} else {
			m.a.Maximum = proto.Float64(x)
		}
		m.doc(p+"lte", text("lte")[0], "decoder")
	}
	if x, ok := get("gt"); ok {
		if m.given.Minimum != nil && m.given.GetMinimum() <= x {
			m.conflict("minimum", formatFloat(m.given.GetMinimum()), p+"gt", formatFloat(x))
		}
		m.pv.exclusiveMin = &x
		m.doc(p+"gt", text("gt")[0], "decoder")
	}
	if x, ok := get("lt"); ok {
		if m.given.Maximum != nil && m.given.GetMaximum() >= x {
			m.conflict("maximum", formatFloat(m.given.GetMaximum()), p+"lt", formatFloat(x))
		}
		m.pv.exclusiveMax = &x
		m.doc(p+"lt", text("lt")[0], "decoder")
	}
	if x, ok := get("const"); ok {
		m.pv.numIn, m.pv.numInText = []float64{x}, text("const")
		m.pv.numConst = true
		m.doc(p+"const", text("const")[0], "decoder")
	}
	if in := list("in"); len(in) > 0 {
		m.pv.numIn, m.pv.numInText = in, text("in")
		m.pv.numConst = false
		m.doc(p+"in", "["+strings.Join(m.pv.numInText, ", ")+"]", "decoder")
	}
	if out := list("not_in"); len(out) > 0 {
		m.pv.numNotIn, m.pv.numNotInText = out, text("not_in")
		m.doc(p+"not_in", "["+strings.Join(m.pv.numNotInText, ", ")+"]", "decoder")
	}
	m.others(msg, rule, map[string]bool{"gt": true, "gte": true, "lt": true, "lte": true, "const": true, "in": true, "not_in": true})
}

// enumRules narrows the alias table of the field to enum.in / not_in;
// defined_only is what alias decoding does already.
func (m *pvMapper) enumRules(e *validate.EnumRules, prefix string) {
	p := prefix + "enum."
	t := m.fm.enumTable
	if m.server {
		t = nil
	}
	if e.GetDefinedOnly() {
		m.doc(p+"defined_only", "true", "decoder")
	}
	in, notIn := e.GetIn(), e.GetNotIn()
	if e.HasConst() {
		in = []int32{e.GetConst()}
		m.doc(p+"const", strconv.Itoa(int(e.GetConst())), "decoder")
	}
	if len(e.GetIn()) > 0 {
		m.doc(p+"in", int32List(e.GetIn()), "decoder")
	}
	if len(notIn) > 0 {
		m.doc(p+"not_in", int32List(notIn), "decoder")
	}
	if t != nil && (len(in) > 0 || len(notIn) > 0) {
		var allowed []int32
		for _, v := range t.values {
			n := int32(v.value.Desc.Number())
			if (len(in) == 0 || slices.Contains(in, n)) && !slices.Contains(notIn, n) {
				allowed = append(allowed, n)
			}
		}
		if len(allowed) == 0 {
			m.b.probs.fieldf(m.fm.proto, "(buf.validate.field).%s leaves no alias of %s the agent could send; let the rule allow at least one offered value", strings.TrimSuffix(p, "."), t.enum.Desc.FullName())
			m.ok = false
			return
		}
		if len(allowed) < len(t.values) {
			m.pv.enumAllowed = allowed
		}
	}
}

func (m *pvMapper) repeatedRules(r *validate.RepeatedRules) {
	if m.a != nil {
		if r.HasMinItems() {
			m.setU32(&m.a.MinItems, "min_items", r.GetMinItems(), "repeated.min_items")
		}
		if r.HasMaxItems() {
			m.setU32(&m.a.MaxItems, "max_items", r.GetMaxItems(), "repeated.max_items")
		}
	} else {
		// enum_alias fields keep item counts in pv.
		if r.HasMinItems() {
			m.pv.minCount = proto.Uint64(r.GetMinItems())
		}
		if r.HasMaxItems() {
			m.pv.maxCount = proto.Uint64(r.GetMaxItems())
		}
	}
	if r.HasMinItems() {
		m.doc("repeated.min_items", strconv.FormatUint(r.GetMinItems(), 10), "decoder")
	}
	if r.HasMaxItems() {
		m.doc("repeated.max_items", strconv.FormatUint(r.GetMaxItems(), 10), "decoder")
	}
	if r.GetUnique() {
		m.pv.unique = true
		m.doc("repeated.unique", "true", "decoder")
	}
	if r.HasItems() {
		m.typed(r.GetItems(), "repeated.items.")
		for _, c := range r.GetItems().GetCel() {
			m.pv.docs = append(m.pv.docs, ruleDoc{Rule: "repeated.items.cel", ID: c.GetId(), Message: c.GetMessage(), Value: c.GetExpression(), CheckedBy: "protovalidate"})
		}
	}
}

func (m *pvMapper) mapRules(r *validate.MapRules) {
	if r.HasMinPairs() {
		m.pv.minCount = proto.Uint64(r.GetMinPairs())
		m.doc("map.min_pairs", strconv.FormatUint(r.GetMinPairs(), 10), "decoder")
	}
	if r.HasMaxPairs() {
		m.pv.maxCount = proto.Uint64(r.GetMaxPairs())
		m.doc("map.max_pairs", strconv.FormatUint(r.GetMaxPairs(), 10), "decoder")
	}
	if r.HasKeys() {
		m.mapKeyRules(r.GetKeys())
	}
	if r.HasValues() {
		m.typed(r.GetValues(), "map.values.")
		for _, c := range r.GetValues().GetCel() {
			m.pv.docs = append(m.pv.docs, ruleDoc{Rule: "map.values.cel", ID: c.GetId(), Message: c.GetMessage(), Value: c.GetExpression(), CheckedBy: "protovalidate"})
		}
	}
}

// mapKeyRules maps the length and pattern rules of string map keys onto
// the entry's key schema and the decoder; the other key rules are left to
// the protovalidate step.
func (m *pvMapper) mapKeyRules(r *validate.FieldRules) {
	s := r.GetString()
	if s == nil || m.fm.proto.Message.Fields[0].Desc.Kind() != protoreflect.StringKind {
		rm := r.ProtoReflect()
		if which := rm.WhichOneof(rm.Descriptor().Oneofs().ByName("type")); which != nil {
			m.others(rm.Get(which).Message(), "map.keys."+string(which.Name()), nil)
		}
		return
	}
	k := &m.pv.keys
	if s.HasLen() {
		k.minLen, k.maxLen = proto.Uint64(s.GetLen()), proto.Uint64(s.GetLen())
		m.doc("map.keys.string.len", strconv.FormatUint(s.GetLen(), 10), "decoder")
	}
	if s.HasMinLen() {
		k.minLen = proto.Uint64(s.GetMinLen())
		m.doc("map.keys.string.min_len", strconv.FormatUint(s.GetMinLen(), 10), "decoder")
	}
	if s.HasMaxLen() {
		k.maxLen = proto.Uint64(s.GetMaxLen())
		m.doc("map.keys.string.max_len", strconv.FormatUint(s.GetMaxLen(), 10), "decoder")
	}
	if s.HasPattern() {
		k.pattern = s.GetPattern()
		m.doc("map.keys.string.pattern", strconv.Quote(s.GetPattern()), "decoder")
	}
	m.others(s.ProtoReflect(), "map.keys.string", map[string]bool{"len": true, "min_len": true, "max_len": true, "pattern": true})
}
