package gen

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"

	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
)

// message builds (once) the model of a message reached from agent input.
// A message that contains itself gets one model, marked recursive
// (walk_recursion.go); the schema spells out a bounded number of its levels.
func (b *builder) message(m *protogen.Message, via *protogen.Field) *messageModel {
	return b.messageAs(m, via, b.variantOf(via))
}

// messageAs builds (once) the model of m in one variant (walk_aip_identity.go).
func (b *builder) messageAs(m *protogen.Message, via *protogen.Field, variant string) *messageModel {
	name := m.Desc.FullName() + protoreflect.FullName(variant)
	if mm, ok := b.messages[name]; ok {
		return mm
	}
	if mm := b.inProgress(name); mm != nil {
		return b.recur(mm)
	}
	mm := &messageModel{proto: m, variant: variant, jsonNames: b.jsonNames}
	b.stack = append(b.stack, mm)
	defer b.pop()
	for _, f := range m.Fields {
		if fm := b.field(mm, f); fm != nil {
			mm.fields = append(mm.fields, fm)
		}
	}
	seen := map[string]*fieldModel{}
	for _, f := range mm.fields {
		if f.exposed() {
			mm.agentFacing = true
			if prev, ok := seen[f.agentName]; ok {
				b.probs.fieldf(f.proto, "agent name %q is already used by field %s; give this field a name of its own, e.g. [(mcpwrite.v1.field).agent = {name: %q}]", f.agentName, prev.proto.Desc.Name(), f.agentName+"_"+string(f.proto.Desc.Name()))
			}
			seen[f.agentName] = f
		}
		if f.mode == modeDerived || f.mode == modeGenerated || f.resolver != nil || (f.child != nil && f.child.serverFilled) {
			mm.serverFilled = true
		}
		if f.resolver != nil || (f.child != nil && f.child.hasResolvers) {
			mm.hasResolvers = true
		}
		if (f.resolver != nil && f.resolver.reference) || (f.child != nil && f.child.hasReferences) {
			mm.hasReferences = true
		}
	}
	ownWholeMessages(mm)
	b.requiredOneofs(mm)
	b.messageOneofs(mm)
	b.requiredWhen(mm)
	b.resolveSiblings(mm)
	b.messages[name] = mm
	b.file.messages = append(b.file.messages, mm)
	return mm
}

// messageOneofs records the (buf.validate.message).oneof rules of mm. A
// rule over fields the agent sets is checked by the decoder and stated in
// the fields' descriptions; one naming a server-filled field is left to the
// protovalidate step.
func (b *builder) messageOneofs(mm *messageModel) {
	for _, r := range ext[*validate.MessageRules](mm.proto.Desc.Options(), validate.E_Message).GetOneof() {
		mo := msgOneof{fields: r.GetFields(), required: r.GetRequired()}
		var keys []string
		for _, name := range mo.fields {
			var fm *fieldModel
			for _, f := range mm.fields {
				if string(f.proto.Desc.Name()) == name {
					fm = f
				}
			}
			if fm == nil {
				if !refused(mm, name) {
					b.probs.messagef(mm.proto, "(buf.validate.message).oneof names %q, which is not a field of %s; name fields of the message (%s)", name, mm.proto.Desc.FullName(), fieldList(mm.proto, nil))
				}
				keys = nil
				break
			}
			if !fm.exposed() || fm.overridable {
				keys = nil
				break
			}
			keys = append(keys, fm.agentName)
		}
		mo.agentKeys = keys
		mm.msgOneofs = append(mm.msgOneofs, mo)
	}
}

// requiredOneofs records the oneofs of mm marked (mcpwrite.v1.oneof) =
// {required: true}. The agent must set exactly one member, so every member
// must be one the agent can set.
func (b *builder) requiredOneofs(mm *messageModel) {
	for _, od := range mm.proto.Oneofs {
		option := "(mcpwrite.v1.oneof).required"
		if !ext[*mcpwritev1.OneofRules](od.Desc.Options(), mcpwritev1.E_Oneof).GetRequired() {
			if !oneofValidateRequired(od) {
				continue
			}
			option = "(buf.validate.oneof).required"
		}
		if od.Desc.IsSynthetic() {
			b.probs.fieldf(od.Fields[0], "(mcpwrite.v1.oneof).required applies to a oneof, not to a proto3 optional field; use (mcpwrite.v1.field).agent.required")
			continue
		}
		ok := true
		for _, f := range od.Fields {
			fm := mm.fieldFor(f)
			switch {
			case fm == nil:
				ok = false // its own problem is reported already
			case !fm.exposed():
				b.probs.fieldf(f, "the agent cannot set this member of oneof %s, which is %s; make every member agent-supplied, or drop required", od.Desc.Name(), option)
				ok = false
			}
		}
		if ok {
			if mm.requiredOneofs == nil {
				mm.requiredOneofs = map[*protogen.Oneof]bool{}
			}
			mm.requiredOneofs[od] = true
		}
	}
}

func (b *builder) field(mm *messageModel, f *protogen.Field) *fieldModel {
	rules := ext[*mcpwritev1.FieldRules](f.Desc.Options(), mcpwritev1.E_Field)
	outputOnly, requiredBehavior := fieldBehaviors(f)
	outputOnly, requiredBehavior, hide := b.identityBehavior(mm, f, outputOnly, requiredBehavior)
	fm := &fieldModel{proto: f, msg: mm, agentName: b.fieldName(f), required: requiredBehavior}
	if hide {
		fm.mode = modeHidden
		return fm
	}
	fm.desc = cleanComment(f.Comments.Leading.String())
	if fm.desc == "" {
		fm.desc = cleanComment(f.Comments.Trailing.String())
	}
	fm.desc = b.agentDesc(f, fm.desc)
	vf := valueField(f)
	if mm.variant == variantUpdate && isIdentity(mm.proto, f) {
		switch rules.GetKind().(type) {
		case *mcpwritev1.FieldRules_Derived, *mcpwritev1.FieldRules_Generated, *mcpwritev1.FieldRules_Hidden:
			rules = nil // the server fills it on create; on update the agent names the resource by it
		}
	}
	switch k := rules.GetKind().(type) {
	case nil:
		if outputOnly {
			fm.mode = modeHidden
			return fm
		}
		fm.mode = modeAgent
		b.ann(fm).agent = &mcpwritev1.AgentSupplied{}
		fm.implicitAgent = true
	case *mcpwritev1.FieldRules_Hidden:
		if k.Hidden || outputOnly {
			fm.mode = modeHidden
			return fm
		}
		// hidden = false: the field is agent-supplied, as if unannotated.
		fm.mode = modeAgent
		b.ann(fm).agent = &mcpwritev1.AgentSupplied{}
		fm.implicitAgent = true
		rules = nil
	case *mcpwritev1.FieldRules_Agent:
		fm.mode = modeAgent
		b.ann(fm).agent = k.Agent
	case *mcpwritev1.FieldRules_EnumAlias:
		fm.mode = modeEnumAlias
		b.ann(fm).alias = k.EnumAlias
		if vf.Enum == nil {
			b.probs.fieldf(f, "enum_alias needs an enum field, got %s; annotate this field with [(mcpwrite.v1.field).agent = {}] instead", kindName(vf))
			return nil
		}
	case *mcpwritev1.FieldRules_Derived:
		fm.mode = modeDerived
		b.ann(fm).derived = k.Derived
		fm.overridable = k.Derived.GetOverridable()
	case *mcpwritev1.FieldRules_Generated:
		fm.mode = modeGenerated
		b.ann(fm).generated = k.Generated
		fm.overridable = k.Generated.GetOverridable()
	}
	if outputOnly && rules != nil {
		b.probs.fieldf(f, "field is google.api.field_behavior OUTPUT_ONLY but annotated for input; drop one of them")
		return nil
	}
	if realOneof(f) && (fm.mode == modeDerived || fm.mode == modeGenerated) {
		b.probs.fieldf(f, "oneof members are chosen by the agent; %s cannot fill one", map[fieldMode]string{modeDerived: "derived", modeGenerated: "generated"}[fm.mode])
		return nil
	}
	switch fm.mode {
	case modeAgent, modeEnumAlias:
		if !b.agentField(fm) {
			return nil
		}
	case modeDerived:
		if !b.derivedField(fm) {
			return nil
		}
	case modeGenerated:
		if !b.generatedField(fm) {
			return nil
		}
	}
	if fm.overridable && vf.Enum != nil {
		fm.enumTable = b.table(vf.Enum, nil, f)
	}
	b.overrideRules(fm)
	b.resolveField(fm)
	return fm
}

// agentField validates agent rules and links child messages and enum tables.
func (b *builder) agentField(fm *fieldModel) bool {
	f := fm.proto
	vf := valueField(f)
	a := b.ann(fm).agent
	if b.ann(fm).alias != nil {
		a = nil
		fm.required = fm.required || b.ann(fm).alias.GetRequired()
		if d := b.ann(fm).alias.GetDescription(); d != "" {
			fm.desc = d
		}
		if n := b.ann(fm).alias.GetName(); n != "" {
			if !isToolName(n) {
				b.probs.fieldf(f, "agent name %q must match ^[a-zA-Z0-9_-]{1,64}$; e.g. [(mcpwrite.v1.field).agent = {name: %q}]", n, acceptedName(n))
				return false
			}
			fm.agentName = n
		}
	}
	if a != nil {
		fm.required = fm.required || a.GetRequired()
		if d := a.GetDescription(); d != "" {
			fm.desc = d
		}
		if n := a.GetName(); n != "" {
			if !isToolName(n) {
				b.probs.fieldf(f, "agent name %q must match ^[a-zA-Z0-9_-]{1,64}$; e.g. [(mcpwrite.v1.field).agent = {name: %q}]", n, acceptedName(n))
				return false
			}
			fm.agentName = n
		}
	}
	if vf.Message != nil {
		switch {
		case isAny(vf):
			if !b.anyField(fm) {
				return false
			}
		case isWKT(vf):
		default:
			b.aip.path = append(b.aip.path, f)
			fm.child = b.message(vf.Message, f)
			b.aip.path = b.aip.path[:len(b.aip.path)-1]
			if fm.child == nil {
				return false
			}
			fm.child.asItem = fm.child.asItem || f.Desc.IsList()
			fm.child.asMapValue = fm.child.asMapValue || f.Desc.IsMap()
		}
	}
	if !b.checkRecursionDepth(fm) {
		return false
	}
	if vf.Enum != nil {
		fm.enumTable = b.table(vf.Enum, b.ann(fm).alias, f)
	}
	if !b.bufValidate(fm) || !b.zeroValueRequired(fm) {
		return false
	}
	a = b.ann(fm).agent
	if b.ann(fm).alias != nil {
		a = nil
	}
	if a != nil && !b.checkAgentRules(fm, a) {
		return false
	}
	if a.GetItemKey() && !b.itemKeyField(fm) {
		return false
	}
	if a.GetReference() != nil && !b.referenceField(fm, a.GetReference()) {
		return false
	}
	if a.GetVocabulary() != nil && !b.vocabularyField(fm, a.GetVocabulary()) {
		return false
	}
	if b.ann(fm).alias != nil && b.ann(fm).alias.Default != nil {
		if _, ok := fm.enumTable.lookup(b.ann(fm).alias.GetDefault()); !ok {
			b.probs.fieldf(f, "default %q is not an alias of %s (valid: %s); e.g. [(mcpwrite.v1.field).enum_alias = {default: %q}]", b.ann(fm).alias.GetDefault(), vf.Enum.Desc.FullName(), strings.Join(fm.enumTable.aliases(), ", "), firstAlias(fm))
			return false
		}
	}
	return true
}

func (b *builder) checkAgentRules(fm *fieldModel, a *mcpwritev1.AgentSupplied) bool {
	f := fm.proto
	vf := valueField(f)
	ok := true
	kind := vf.Desc.Kind()
	if w := wrappedField(vf); w != nil {
		kind = w.Kind() // a wrapper (google.protobuf.StringValue, ...) takes its value's rules
	}
	isString := kind == protoreflect.StringKind
	isNumber := isNumeric(kind)
	if (a.MinLength != nil || a.MaxLength != nil || a.Pattern != nil) && !isString {
		b.probs.fieldf(f, "min_length, max_length and pattern apply to string fields, not %s; remove them, or use minimum and maximum on a number", kindName(f))
		ok = false
	}
	if (a.Minimum != nil || a.Maximum != nil) && !isNumber {
		b.probs.fieldf(f, "minimum and maximum apply to numeric fields, not %s; remove them, or use min_length and max_length on a string", kindName(f))
		ok = false
	}
	if (a.MinItems != nil || a.MaxItems != nil) && !f.Desc.IsList() && !isListValue(f) {
		b.probs.fieldf(f, "min_items and max_items apply to repeated and google.protobuf.ListValue fields, not %s; remove them", kindName(f))
		ok = false
	}
	if a.MinLength != nil && a.MaxLength != nil && a.GetMinLength() > a.GetMaxLength() {
		b.probs.fieldf(f, "min_length %d is greater than max_length %d; lower min_length or raise max_length", a.GetMinLength(), a.GetMaxLength())
		ok = false
	}
	if a.Minimum != nil && a.Maximum != nil && a.GetMinimum() > a.GetMaximum() {
		b.probs.fieldf(f, "minimum %v is greater than maximum %v; lower minimum or raise maximum", a.GetMinimum(), a.GetMaximum())
		ok = false
	}
	if a.MinItems != nil && a.MaxItems != nil && a.GetMinItems() > a.GetMaxItems() {
		b.probs.fieldf(f, "min_items %d is greater than max_items %d; lower min_items or raise max_items", a.GetMinItems(), a.GetMaxItems())
		ok = false
	}
	if a.Pattern != nil {
		if _, err := regexp.Compile(a.GetPattern()); err != nil {
			b.probs.fieldf(f, "pattern %q is not a valid RE2 expression: %v; correct it, e.g. [(mcpwrite.v1.field).agent = {pattern: \"^[a-z0-9-]+$\"}]", a.GetPattern(), err)
			ok = false
		}
	}
	if a.Default != nil {
		if realOneof(f) {
			b.probs.fieldf(f, "oneof members cannot have a default; remove default (the agent chooses a member)")
			ok = false
		} else if a.GetRequired() || fm.required {
			b.probs.fieldf(f, "a required field cannot have a default; remove default or required")
			ok = false
		} else if _, err := goLiteral(fm, a.GetDefault()); err != nil {
			b.probs.fieldf(f, "default %s: %v; write it as protojson writes the field, e.g. [(mcpwrite.v1.field).agent = {default: %s}]", a.GetDefault(), err, literalExample(f))
			ok = false
		}
	}
	for _, ex := range a.GetExamples() {
		if !json.Valid([]byte(ex)) {
			b.probs.fieldf(f, "example %s is not a JSON literal; for a string write example: %q", ex, strconv.Quote(ex))
			ok = false
		}
	}
	return ok
}

// anyField links an agent-supplied Any field to the models of its
// candidates; it refuses the field when it has none the agent can send.
func (b *builder) anyField(fm *fieldModel) bool {
	f := fm.proto
	cands, why := b.anyCandidates(f)
	if len(cands) == 0 {
		b.refuse(f, "google.protobuf.Any cannot be agent-supplied without a candidate type ("+why+")",
			"name the types the field takes in its comment (e.g. type.googleapis.com/"+string(f.Parent.Desc.ParentFile().Package())+".Message), or mark the field hidden or derived with a resolver")
		return false
	}
	for _, c := range cands {
		b.aip.path = append(b.aip.path, f)
		mm := b.message(c, f)
		b.aip.path = b.aip.path[:len(b.aip.path)-1]
		switch {
		case mm == nil:
			return false
		case mm.serverFilled || mm.hasResolvers || mm.hasReferences:
			b.refuse(f, fmt.Sprintf("google.protobuf.Any candidate %s has fields the server fills, which a packed message cannot carry", c.Desc.FullName()),
				"name the types the field takes in its comment, or mark the field hidden or derived with a resolver")
			return false
		case !mm.agentFacing:
			continue // no field the agent sets
		}
		fm.anyTypes = append(fm.anyTypes, anyType{url: anyTypePrefix + string(c.Desc.FullName()), model: mm})
	}
	if len(fm.anyTypes) == 0 {
		b.refuse(f, "google.protobuf.Any cannot be agent-supplied without a candidate type (its candidates have no field an agent sets)",
			"name the types the field takes in its comment, or mark the field hidden or derived with a resolver")
		return false
	}
	return true
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

// wrappedField is the value field of a wrapper message field
// (google.protobuf.StringValue's value), nil for any other field.
func wrappedField(f *protogen.Field) protoreflect.FieldDescriptor {
	if f.Message == nil || wrapperCtor[f.Message.Desc.FullName()][0] == "" {
		return nil
	}
	return f.Message.Desc.Fields().ByName("value")
}
