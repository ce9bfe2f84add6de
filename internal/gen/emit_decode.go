package gen

import (
	"strconv"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// decodeFunc emits the strict, typed decoder of one agent-facing message: it
// reads every exposed field, checks constraints and reports every problem.
func (e *emitter) decodeFunc(m *messageModel) {
	g := e.g
	fieldsVar := fieldsVarName(m.proto)
	var names []string
	for _, f := range m.agentFields() {
		names = append(names, strconv.Quote(f.agentName))
	}
	g.P("var ", fieldsVar, " = []string{", strings.Join(names, ", "), "}")
	g.P()
	g.P("func ", decodeName(m.proto), "(d *", rt("Decoder"), ", obj *", rt("Object"), ", m *", m.proto.GoIdent, ") {")
	g.P("d.Known(obj, ", fieldsVar, ")")
	for _, f := range m.agentFields() {
		e.decodeField(f)
	}
	e.oneofChecks(m)
	e.requiredWhenChecks(m)
	g.P("}")
	g.P()
}

func (e *emitter) decodeField(f *fieldModel) {
	g := e.g
	key := strconv.Quote(f.agentName)
	g.P("if v := obj.Get(", key, "); v != nil && v.Kind != ", rt("KindNull"), " {")
	pf := f.proto
	switch {
	case pf.Desc.IsList():
		g.P("if arr, ok := d.Array(v, ", key, "); ok {")
		if r := f.value; r != nil {
			if r.minItems != nil {
				g.P("d.MinItems(", key, ", len(arr), ", *r.minItems, ")")
			}
			if r.maxItems != nil {
				g.P("d.MaxItems(", key, ", len(arr), ", *r.maxItems, ")")
			}
		}
		e.counts(f, key, "len(arr)")
		g.P("d.Enter(", key, ")")
		g.P("for i, ev := range arr {")
		g.P("d.EnterIndex(i)")
		e.readValue(f, pf, "ev", `""`, func(x string) { g.P("m.", pf.GoName, " = append(m.", pf.GoName, ", ", x, ")") })
		g.P("d.Leave()")
		g.P("}")
		g.P("d.Leave()")
		if f.pv != nil && f.pv.unique {
			g.P(rt("UniqueItems"), "(d, ", key, ", m.", pf.GoName, ")")
		}
		g.P("}")
	case pf.Desc.IsMap():
		kf, vf := pf.Message.Fields[0], pf.Message.Fields[1]
		g.P("if ks, vs, ok := d.MapEntries(v, ", key, "); ok {")
		e.counts(f, key, "len(ks)")
		g.P("m.", pf.GoName, " = make(", e.goType(pf), ", len(ks))")
		g.P("d.Enter(", key, ")")
		g.P("for i, k := range ks {")
		if kf.Desc.Kind() == protoreflect.StringKind {
			g.P("mk := k")
			e.keyConstraints(f)
		} else {
			g.P("mk, ok := d.", mapKeyReader(kf.Desc.Kind()), "(k)")
			g.P("if !ok {")
			g.P("continue")
			g.P("}")
		}
		e.readValue(f, vf, "vs[i]", "k", func(x string) { g.P("m.", pf.GoName, "[mk] = ", x) })
		g.P("}")
		g.P("d.Leave()")
		g.P("}")
	default:
		e.readValue(f, pf, "v", key, func(x string) { g.P(e.set(pf, x)) })
	}
	g.P("}", e.absent(f))
}

// absent renders the else branch for an omitted field: required, default or nothing.
func (e *emitter) absent(f *fieldModel) string {
	key := strconv.Quote(f.agentName)
	switch {
	case f.required && !f.overridable:
		return " else {\nd.Missing(" + key + ")\n}"
	case f.value != nil && f.value.deflt != nil:
		return " else {\n" + e.set(f.proto, e.literal(*f.value.deflt)) + "\n}"
	case f.enumDefault != nil:
		return " else {\n" + e.set(f.proto, e.g.QualifiedGoIdent(f.enumDefault.value.GoIdent)) + "\n}"
	}
	return ""
}

func mapKeyReader(k protoreflect.Kind) string {
	switch k {
	case protoreflect.BoolKind:
		return "KeyBool"
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return "KeyInt32"
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return "KeyUint32"
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return "KeyUint64"
	}
	return "KeyInt64"
}

var wrapperCtor = map[protoreflect.FullName][2]string{
	"google.protobuf.DoubleValue": {"Float64", "Double"},
	"google.protobuf.FloatValue":  {"Float32", "Float"},
	"google.protobuf.Int64Value":  {"Int64", "Int64"},
	"google.protobuf.UInt64Value": {"Uint64", "UInt64"},
	"google.protobuf.Int32Value":  {"Int32", "Int32"},
	"google.protobuf.UInt32Value": {"Uint32", "UInt32"},
	"google.protobuf.BoolValue":   {"Bool", "Bool"},
	"google.protobuf.StringValue": {"String", "String"},
	"google.protobuf.BytesValue":  {"Bytes", "Bytes"},
}

var wktReader = map[protoreflect.FullName]string{
	"google.protobuf.Timestamp": "Timestamp",
	"google.protobuf.Duration":  "Duration",
	"google.protobuf.FieldMask": "FieldMask",
	"google.protobuf.Struct":    "Struct",
	"google.protobuf.Value":     "StructValue",
	"google.protobuf.ListValue": "ListValue",
}

func scalarReader(k protoreflect.Kind) string {
	switch k {
	case protoreflect.BoolKind:
		return "Bool"
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return "Int32"
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return "Uint32"
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return "Int64"
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return "Uint64"
	case protoreflect.FloatKind:
		return "Float32"
	case protoreflect.DoubleKind:
		return "Float64"
	case protoreflect.BytesKind:
		return "Bytes"
	}
	return "String"
}

// readValue emits the read of one JSON value src of type vf into x and
// calls assign with the expression to store.
func (e *emitter) readValue(f *fieldModel, vf *protogen.Field, src, key string, assign func(x string)) {
	g := e.g
	switch {
	case vf.Enum != nil:
		g.P("if x, ok := d.Enum(", src, ", ", key, ", ", f.enumTable.varName, "); ok {")
		if f.pv != nil && len(f.pv.enumAllowed) > 0 {
			g.P("d.EnumIn(", key, ", x, ", f.enumTable.varName, ", ", int32Args(f.pv.enumAllowed), ")")
		}
		assign(e.g.QualifiedGoIdent(vf.Enum.GoIdent) + "(x)")
		g.P("}")
	case vf.Message != nil && wrapperCtor[vf.Message.Desc.FullName()][0] != "":
		w := wrapperCtor[vf.Message.Desc.FullName()]
		g.P("if x, ok := d.", w[0], "(", src, ", ", key, "); ok {")
		assign(g.QualifiedGoIdent(wrappersPkg.Ident(w[1])) + "(x)")
		g.P("}")
	case vf.Message != nil && wktReader[vf.Message.Desc.FullName()] != "":
		g.P("if x, ok := d.", wktReader[vf.Message.Desc.FullName()], "(", src, ", ", key, "); ok {")
		assign("x")
		g.P("}")
	case vf.Message != nil:
		g.P("if o, ok := d.Object(", src, ", ", key, "); ok {")
		g.P("x := new(", vf.Message.GoIdent, ")")
		if key != `""` {
			g.P("d.Enter(", key, ")")
		}
		g.P(decodeName(vf.Message), "(d, o, x)")
		if key != `""` {
			g.P("d.Leave()")
		}
		assign("x")
		g.P("}")
	default:
		if f.vocab != nil {
			// A live vocabulary's value, canonical once read.
			g.P("if x, ok := d.Vocabulary(", src, ", ", key, ", ", strconv.Quote(f.vocab.name), "); ok {")
		} else {
			g.P("if x, ok := d.", scalarReader(vf.Desc.Kind()), "(", src, ", ", key, "); ok {")
		}
		e.constraints(f, vf, key)
		assign("x")
		g.P("}")
	}
}

// counts emits the item or pair counts of a list or map of n entries that
// the buf.validate rules set beyond AgentSupplied (map pairs, enum_alias
// lists).
func (e *emitter) counts(f *fieldModel, key, n string) {
	if f.pv == nil {
		return
	}
	if f.pv.minCount != nil {
		e.g.P("d.MinItems(", key, ", ", n, ", ", *f.pv.minCount, ")")
	}
	if f.pv.maxCount != nil {
		e.g.P("d.MaxItems(", key, ", ", n, ", ", *f.pv.maxCount, ")")
	}
}

func int32Args(xs []int32) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(int(x))
	}
	return strings.Join(parts, ", ")
}

func floatArgs(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strings.Join(parts, ", ")
}

// pvConstraints emits the buf.validate rules without an mcpwrite
// counterpart that apply to one scalar value.
func (e *emitter) pvConstraints(f *fieldModel, key string) {
	pv := f.pv
	if pv == nil || f.mode != modeAgent {
		return
	}
	g := e.g
	if pv.exclusiveMin != nil {
		g.P("d.ExclusiveMinimum(", key, ", float64(x), ", strconv.FormatFloat(*pv.exclusiveMin, 'g', -1, 64), ")")
	}
	if pv.exclusiveMax != nil {
		g.P("d.ExclusiveMaximum(", key, ", float64(x), ", strconv.FormatFloat(*pv.exclusiveMax, 'g', -1, 64), ")")
	}
	if len(pv.strIn) > 0 {
		g.P("d.StringIn(", key, ", x, ", quoteAll(pv.strIn), ")")
	}
	if len(pv.strNotIn) > 0 {
		g.P("d.StringNotIn(", key, ", x, ", quoteAll(pv.strNotIn), ")")
	}
	if len(pv.numIn) > 0 {
		g.P("d.NumberIn(", key, ", float64(x), ", floatArgs(pv.numIn), ")")
	}
	if len(pv.numNotIn) > 0 {
		g.P("d.NumberNotIn(", key, ", float64(x), ", floatArgs(pv.numNotIn), ")")
	}
	if pv.format != "" {
		g.P("d.Format(", key, ", x, ", strconv.Quote(pv.format), ")")
	}
	for _, a := range pv.affixes {
		g.P("d.", affixCheck[a.rule][0], "(", key, ", x, ", strconv.Quote(a.value), ")")
	}
}

// keyConstraints emits the buf.validate rules of a map's string keys; a
// broken rule is reported at the entry's path.
func (e *emitter) keyConstraints(f *fieldModel) {
	if f.pv == nil || f.mode != modeAgent {
		return
	}
	k, g := f.pv.keys, e.g
	if k.minLen != nil {
		g.P("d.MinLength(k, mk, ", *k.minLen, ")")
	}
	if k.maxLen != nil {
		g.P("d.MaxLength(k, mk, ", *k.maxLen, ")")
	}
	if k.pattern != "" {
		name := patternVarName(f.msg.proto, f.proto, true)
		e.patterns[name] = k.pattern
		g.P("d.Pattern(k, mk, ", name, ")")
	}
}

// constraints emits the agent rules that apply to one scalar value.
func (e *emitter) constraints(f *fieldModel, vf *protogen.Field, key string) {
	e.pvConstraints(f, key)
	r := f.value
	if r == nil {
		return
	}
	g := e.g
	if r.minLength != nil {
		g.P("d.MinLength(", key, ", x, ", *r.minLength, ")")
	}
	if r.maxLength != nil {
		g.P("d.MaxLength(", key, ", x, ", *r.maxLength, ")")
	}
	if r.pattern != nil {
		name := patternVarName(f.msg.proto, f.proto, false)
		e.patterns[name] = *r.pattern
		g.P("d.Pattern(", key, ", x, ", name, ")")
	}
	if r.minimum != nil {
		g.P("d.Minimum(", key, ", float64(x), ", strconv.FormatFloat(*r.minimum, 'g', -1, 64), ")")
	}
	if r.maximum != nil {
		g.P("d.Maximum(", key, ", float64(x), ", strconv.FormatFloat(*r.maximum, 'g', -1, 64), ")")
	}
}

// oneofChecks reports agents that set two members of one oneof (or of a
// (buf.validate.message).oneof rule), and none of a required one.
func (e *emitter) oneofChecks(m *messageModel) {
	for _, od := range m.proto.Oneofs {
		if od.Desc.IsSynthetic() {
			continue
		}
		var keys []string
		for _, f := range m.agentFields() {
			if f.proto.Oneof == od {
				keys = append(keys, f.agentName)
			}
		}
		required := m.requiredOneofs[od]
		if len(keys) == 0 || len(keys) < 2 && !required {
			continue
		}
		e.exactlyOne(keys, required)
	}
	for _, mo := range m.msgOneofs {
		if mo.agentKeys != nil {
			e.exactlyOne(mo.agentKeys, mo.required)
		}
	}
}

// exactlyOne emits the check that at most one of keys is sent, and at
// least one when required.
func (e *emitter) exactlyOne(keys []string, required bool) {
	e.g.P("d.OneOf(obj, ", strconv.FormatBool(required), ", ", quoteAll(keys), ")")
}

func quoteAll(ss []string) string {
	qs := make([]string, len(ss))
	for i, s := range ss {
		qs[i] = strconv.Quote(s)
	}
	return strings.Join(qs, ", ")
}
