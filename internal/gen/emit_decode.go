package gen

import (
	"fmt"
	"strconv"

	"github.com/dave/jennifer/jen"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// decodeFunc emits the strict, typed decoder of one agent-facing message: it
// reads every exposed field, checks constraints and reports every problem.
func (e *emitter) decodeFunc(m *messageModel) {
	fieldsVar := fieldsVarName(m)
	var names []jen.Code
	for _, f := range m.agentFields() {
		names = append(names, jen.Lit(f.agentName))
	}
	e.decl(jen.Var().Id(fieldsVar).Op("=").Index().String().Values(names...))
	params := jen.Params(jen.Id("d").Op("*").Add(e.rt("Decoder")), jen.Id("obj").Op("*").Add(e.rt("Object")), jen.Id("m").Op("*").Add(e.q(m.proto.GoIdent)))
	e.decl(jen.Func().Id(decodeName(m)).Add(params).BlockFunc(func(g *jen.Group) {
		e.knownCall(g, m, fieldsVar)
		for _, f := range m.agentFields() {
			e.decodeField(g, f)
		}
		e.oneofChecks(g, m)
		e.updateMaskCheck(g, m)
		e.requiredWhenChecks(g, m)
	}))
}

// d is a call of a decoder method: d.Name(args...).
func d(name string, args ...jen.Code) *jen.Statement { return jen.Id("d").Dot(name).Call(args...) }

// code is a value as Go source, as fmt prints it.
func code(x any) *jen.Statement { return jen.Id(fmt.Sprint(x)) }

// float is a float64 constant as the shortest Go literal.
func float(x float64) *jen.Statement { return jen.Id(strconv.FormatFloat(x, 'g', -1, 64)) }

func (e *emitter) decodeField(g *jen.Group, f *fieldModel) {
	key := jen.Lit(f.agentName)
	pf := f.proto
	body := func(b *jen.Group) {
		switch {
		case pf.Desc.IsList():
			b.If(jen.List(jen.Id("arr"), jen.Id("ok")).Op(":=").Add(d("Array", jen.Id("v"), key)), jen.Id("ok")).BlockFunc(func(b *jen.Group) {
				if r := f.value; r != nil {
					if r.minItems != nil {
						b.Add(d("MinItems", key, jen.Len(jen.Id("arr")), code(*r.minItems)))
					}
					if r.maxItems != nil {
						b.Add(d("MaxItems", key, jen.Len(jen.Id("arr")), code(*r.maxItems)))
					}
				}
				e.counts(b, f, key, jen.Len(jen.Id("arr")))
				b.Add(d("Enter", key))
				b.For(jen.List(jen.Id("i"), jen.Id("ev")).Op(":=").Range().Id("arr")).BlockFunc(func(b *jen.Group) {
					b.Add(d("EnterIndex", jen.Id("i")))
					e.readValue(b, f, pf, "ev", `""`, false, func(x jen.Code) jen.Code {
						return jen.Id("m").Dot(pf.GoName).Op("=").Append(jen.Id("m").Dot(pf.GoName), x)
					})
					b.Add(d("Leave"))
				})
				b.Add(d("Leave"))
				if f.pv != nil && f.pv.unique {
					b.Add(e.rt("UniqueItems").Call(jen.Id("d"), key, jen.Id("m").Dot(pf.GoName)))
				}
				if k := itemKeyOf(f); k != nil {
					// Items that did not decode are missing from the list:
					// its indices are the agent's only when all did.
					b.If(jen.Len(jen.Id("m").Dot(pf.GoName)).Op("==").Len(jen.Id("arr"))).Block(
						e.rt("UniqueItemKeys").Call(jen.Id("d"), key, jen.Lit(k.agentName), jen.Id("m").Dot(pf.GoName),
							jen.Parens(jen.Op("*").Add(e.q(f.child.proto.GoIdent))).Dot(getterName(k.proto))),
					)
				}
			})
		case pf.Desc.IsMap():
			kf, vf := pf.Message.Fields[0], pf.Message.Fields[1]
			b.If(jen.List(jen.Id("ks"), jen.Id("vs"), jen.Id("ok")).Op(":=").Add(d("MapEntries", jen.Id("v"), key)), jen.Id("ok")).BlockFunc(func(b *jen.Group) {
				e.counts(b, f, key, jen.Len(jen.Id("ks")))
				b.Id("m").Dot(pf.GoName).Op("=").Make(e.goType(pf), jen.Len(jen.Id("ks")))
				b.Add(d("Enter", key))
				b.For(jen.List(jen.Id("i"), jen.Id("k")).Op(":=").Range().Id("ks")).BlockFunc(func(b *jen.Group) {
					if kf.Desc.Kind() == protoreflect.StringKind {
						b.Id("mk").Op(":=").Id("k")
						e.keyConstraints(b, f)
					} else {
						b.List(jen.Id("mk"), jen.Id("ok")).Op(":=").Add(d(mapKeyReader(kf.Desc.Kind()), jen.Id("k")))
						b.If(jen.Op("!").Id("ok")).Block(jen.Continue())
					}
					e.readValue(b, f, vf, "vs[i]", "k", true, func(x jen.Code) jen.Code {
						return jen.Id("m").Dot(pf.GoName).Index(jen.Id("mk")).Op("=").Add(x)
					})
				})
				b.Add(d("Leave"))
			})
		default:
			e.readValue(b, f, pf, "v", strconv.Quote(f.agentName), true, func(x jen.Code) jen.Code { return e.set(pf, x) })
			e.listValueCounts(b, f, key)
		}
	}
	absent := e.absent(f)
	if absent == nil && readsAbsentAsNothing(f) {
		// Nothing to do when the agent leaves the field out, and the read
		// answers nothing for an absent or null value: no presence test.
		src := "obj.Get(" + strconv.Quote(f.agentName) + ")"
		e.readValue(g, f, pf, src, strconv.Quote(f.agentName), true, func(x jen.Code) jen.Code { return e.set(pf, x) })
		return
	}
	stmt := g.Add(readField(f, "")).BlockFunc(body)
	if absent != nil {
		stmt.Else().Block(absent)
	}
}

// readsAbsentAsNothing reports whether f's value is read by one if
// statement whose decoder read answers (zero, false), reporting nothing,
// for an absent or null value: a scalar, an enum, a nested message, a
// Timestamp, Duration or FieldMask. Not lists, maps, wrappers, Any, or
// Struct, Value and ListValue (null is a Value).
func readsAbsentAsNothing(f *fieldModel) bool {
	pf := f.proto
	switch {
	case pf.Desc.IsList() || pf.Desc.IsMap() || isAny(pf):
		return false
	case pf.Message == nil:
		return true
	case wrapperCtor[pf.Message.Desc.FullName()][0] != "":
		return false
	}
	switch pf.Message.Desc.FullName() {
	case "google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue":
		return false
	}
	return true
}

// readField is the head of the if statement on f's value v in obj, when
// present (not "" for neg "!": when absent): one token of source text, as
// jennifer would render it, since this head starts the code of every
// field the decoder reads.
func readField(f *fieldModel, neg string) *jen.Statement {
	return jen.Id("if v := obj.Get(" + strconv.Quote(f.agentName) + "); " + neg + "v.Present()")
}

// absent is what an omitted field gets: reported missing, its default, or
// nothing (nil).
func (e *emitter) absent(f *fieldModel) jen.Code {
	switch {
	case f.required && !f.overridable:
		return d("Missing", jen.Lit(f.agentName))
	case f.value != nil && f.value.deflt != nil:
		return e.set(f.proto, e.literal(*f.value.deflt))
	case f.enumDefault != nil:
		return e.set(f.proto, e.q(f.enumDefault.value.GoIdent))
	}
	return nil
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

// readValue emits the read of one JSON value of type vf, the Go
// expression srcText, and the statement assign makes of the expression to
// store; keyText is the Go expression of the value's key, and a nested
// message value is entered at it unless it is a list item (nested false).
// The head of each read's if statement is one token of source text (as
// readField's).
func (e *emitter) readValue(g *jen.Group, f *fieldModel, vf *protogen.Field, srcText, keyText string, nested bool, assign func(x jen.Code) jen.Code) {
	src, key := jen.Id(srcText), jen.Id(keyText)
	// head is "if <vars>, ok := d.<method>(src, key<, more>); ok".
	head := func(vars, method, more string) *jen.Statement {
		return jen.Id("if " + vars + ", ok := d." + method + "(" + srcText + ", " + keyText + more + "); ok")
	}
	switch {
	case vf.Enum != nil:
		g.Add(head("x", "Enum", ", "+f.enumTable.varName)).BlockFunc(func(b *jen.Group) {
			if f.pv != nil && len(f.pv.enumAllowed) > 0 {
				args := []jen.Code{key, jen.Id("x"), jen.Id(f.enumTable.varName)}
				for _, n := range f.pv.enumAllowed {
					args = append(args, jen.Lit(int(n)))
				}
				b.Add(d("EnumIn", args...))
			}
			b.Add(assign(e.q(vf.Enum.GoIdent).Call(jen.Id("x"))))
		})
	case vf.Message != nil && wrapperCtor[vf.Message.Desc.FullName()][0] != "":
		w := wrapperCtor[vf.Message.Desc.FullName()]
		g.Add(head("x", w[0], "")).BlockFunc(func(b *jen.Group) {
			e.constraints(b, f, key) // the wrapped value's rules
			b.Add(assign(e.q(wrappersPkg.Ident(w[1])).Call(jen.Id("x"))))
		})
	case isAny(vf):
		e.readAny(g, f, src, key, nested, assign)
	case vf.Message != nil && wktReader[vf.Message.Desc.FullName()] != "":
		g.Add(head("x", wktReader[vf.Message.Desc.FullName()], "")).Block(
			assign(jen.Id("x")),
		)
	case vf.Message != nil:
		// A recursive message also comes as JSON text of the object, at
		// every level (walk_recursion.go, schema_recursion.go).
		read := "Object"
		if f.child != nil && f.child.recursive || f.textOK {
			read = "Subtree" // also a level the schema budget gives as JSON text
		}
		g.Add(head("o", read, "")).BlockFunc(func(b *jen.Group) {
			b.Id("x").Op(":=").New(e.q(vf.Message.GoIdent))
			if nested {
				b.Add(d("Enter", key))
			}
			b.Id(decodeName(f.child)).Call(jen.Id("d"), jen.Id("o"), jen.Id("x"))
			if nested {
				b.Add(d("Leave"))
			}
			b.Add(assign(jen.Id("x")))
		})
	default:
		read := head("x", scalarReader(vf.Desc.Kind()), "")
		if f.vocab != nil {
			// A live vocabulary's value, canonical once read.
			read = head("x", "Vocabulary", ", "+strconv.Quote(f.vocab.name))
		}
		g.Add(read).BlockFunc(func(b *jen.Group) {
			e.constraints(b, f, key)
			b.Add(assign(jen.Id("x")))
		})
	}
}

// counts emits the item or pair counts of a list or map of n entries that
// the buf.validate rules set beyond AgentSupplied (map pairs, enum_alias
// lists).
func (e *emitter) counts(g *jen.Group, f *fieldModel, key, n jen.Code) {
	if f.pv == nil {
		return
	}
	if f.pv.minCount != nil {
		g.Add(d("MinItems", key, n, code(*f.pv.minCount)))
	}
	if f.pv.maxCount != nil {
		g.Add(d("MaxItems", key, n, code(*f.pv.maxCount)))
	}
}

// pvConstraints emits the buf.validate rules without an mcpwrite
// counterpart that apply to one scalar value.
func (e *emitter) pvConstraints(g *jen.Group, f *fieldModel, key jen.Code) {
	pv := f.pv
	if pv == nil || f.mode != modeAgent {
		return
	}
	x, fx := jen.Id("x"), jen.Float64().Call(jen.Id("x"))
	if pv.exclusiveMin != nil {
		g.Add(d("ExclusiveMinimum", key, fx, float(*pv.exclusiveMin)))
	}
	if pv.exclusiveMax != nil {
		g.Add(d("ExclusiveMaximum", key, fx, float(*pv.exclusiveMax)))
	}
	strs := func(name string, ss []string) {
		args := []jen.Code{key, x}
		for _, s := range ss {
			args = append(args, jen.Lit(s))
		}
		g.Add(d(name, args...))
	}
	nums := func(name string, xs []float64) {
		args := []jen.Code{key, fx}
		for _, n := range xs {
			args = append(args, float(n))
		}
		g.Add(d(name, args...))
	}
	if len(pv.strIn) > 0 {
		strs("StringIn", pv.strIn)
	}
	if len(pv.strNotIn) > 0 {
		strs("StringNotIn", pv.strNotIn)
	}
	if len(pv.numIn) > 0 {
		nums("NumberIn", pv.numIn)
	}
	if len(pv.numNotIn) > 0 {
		nums("NumberNotIn", pv.numNotIn)
	}
	if pv.format != "" {
		g.Add(d("Format", key, x, jen.Lit(pv.format)))
	}
	for _, a := range pv.affixes {
		g.Add(d(affixCheck[a.rule][0], key, x, jen.Lit(a.value)))
	}
}

// keyConstraints emits the buf.validate rules of a map's string keys; a
// broken rule is reported at the entry's path.
func (e *emitter) keyConstraints(g *jen.Group, f *fieldModel) {
	if f.pv == nil || f.mode != modeAgent {
		return
	}
	k, mk := f.pv.keys, jen.Id("mk")
	if k.minLen != nil {
		g.Add(d("MinLength", jen.Id("k"), mk, code(*k.minLen)))
	}
	if k.maxLen != nil {
		g.Add(d("MaxLength", jen.Id("k"), mk, code(*k.maxLen)))
	}
	if k.pattern != "" {
		name := patternVarName(f.msg, f.proto, true)
		e.patterns[name] = k.pattern
		g.Add(d("Pattern", jen.Id("k"), mk, jen.Id(name)))
	}
}

// constraints emits the agent rules that apply to one scalar value.
func (e *emitter) constraints(g *jen.Group, f *fieldModel, key jen.Code) {
	e.pvConstraints(g, f, key)
	r := f.value
	if r == nil {
		return
	}
	x, fx := jen.Id("x"), jen.Float64().Call(jen.Id("x"))
	if r.minLength != nil {
		g.Add(d("MinLength", key, x, code(*r.minLength)))
	}
	if r.maxLength != nil {
		g.Add(d("MaxLength", key, x, code(*r.maxLength)))
	}
	if r.pattern != nil {
		name := patternVarName(f.msg, f.proto, false)
		e.patterns[name] = *r.pattern
		g.Add(d("Pattern", key, x, jen.Id(name)))
	}
	if r.minimum != nil {
		g.Add(d("Minimum", key, fx, float(*r.minimum)))
	}
	if r.maximum != nil {
		g.Add(d("Maximum", key, fx, float(*r.maximum)))
	}
}

// oneofChecks reports agents that set two members of one oneof (or of a
// (buf.validate.message).oneof rule), and none of a required one.
func (e *emitter) oneofChecks(g *jen.Group, m *messageModel) {
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
		exactlyOne(g, keys, required)
	}
	for _, mo := range m.msgOneofs {
		if mo.agentKeys != nil {
			exactlyOne(g, mo.agentKeys, mo.required)
		}
	}
}

// exactlyOne emits the check that at most one of keys is sent, and at
// least one when required.
func exactlyOne(g *jen.Group, keys []string, required bool) {
	args := []jen.Code{jen.Id("obj"), jen.Lit(required)}
	for _, k := range keys {
		args = append(args, jen.Lit(k))
	}
	g.Add(d("OneOf", args...))
}

// requiredWhenChecks reports each conditionally required field the agent
// omitted while its condition holds, naming the value that holds.
func (e *emitter) requiredWhenChecks(g *jen.Group, m *messageModel) {
	for _, f := range m.agentFields() {
		rw := f.requiredWhen
		if rw == nil {
			continue
		}
		key := jen.Lit(f.agentName)
		g.Add(readField(f, "!")).Block(
			jen.Switch(jen.Id("m").Dot(getterName(rw.when.proto)).Call()).BlockFunc(func(s *jen.Group) {
				for _, v := range rw.values {
					msg := f.agentName + " is required when " + rw.when.agentName + " is " + v.quoted()
					hint := "send " + f.agentName + ", or set " + rw.when.agentName + " to another value"
					s.Case(e.literal(v.lit)).Block(
						d("Add", jen.Op("&").Add(e.rt("ErrorEntry")).Values(
							jen.Id("Code").Op(":").Add(e.rt("CodeMissingRequired")),
							jen.Id("Field").Op(":").Add(key),
							jen.Id("Message").Op(":").Lit(msg),
							jen.Id("Suggestions").Op(":").Op("&").Add(e.rt("Suggestions")).Values(jen.Id("Hint").Op(":").Lit(hint)),
						)),
					)
				}
			}),
		)
	}
}

// listValueCounts emits the min_items and max_items of a
// google.protobuf.ListValue field: the counts of the array it decoded to.
func (e *emitter) listValueCounts(g *jen.Group, f *fieldModel, key jen.Code) {
	r := f.value
	if r == nil || !isListValue(f.proto) || (r.minItems == nil && r.maxItems == nil) {
		return
	}
	n := jen.Len(jen.Id("l").Dot("GetValues").Call())
	g.If(jen.Id("l").Op(":=").Id("m").Dot(getterName(f.proto)).Call(), jen.Id("l").Op("!=").Nil()).BlockFunc(func(b *jen.Group) {
		if r.minItems != nil {
			b.Add(d("MinItems", key, n, code(*r.minItems)))
		}
		if r.maxItems != nil {
			b.Add(d("MaxItems", key, n, code(*r.maxItems)))
		}
	})
}
