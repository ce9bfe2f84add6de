package gen

// The walk step that folds a field's buf.validate rules into its model
// (walk_validate_mapper.go does the mapping) and lists them for getWriteSchema.

import (
	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/protobuf/proto"

	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
)

// bufValidate folds the buf.validate rules of an agent-supplied field into
// its model. A rule the mcpwrite annotation also states must agree.
func (b *builder) bufValidate(fm *fieldModel) bool {
	pv, a, ok := b.pvMap(fm, false)
	if !ok {
		return false
	}
	if pv != nil {
		if a != nil {
			b.ann(fm).agent = a
		}
		fm.pv = pv
	}
	return true
}

// fieldRuleDocs lists the buf.validate rules of any request field for
// getWriteSchema: an agent field's as mapped, a server field's as the
// protovalidate step checks them.
func (b *builder) fieldRuleDocs(fm *fieldModel) []ruleDoc {
	if fm.pv != nil {
		return fm.pv.docs
	}
	if fm.mode == modeAgent || fm.mode == modeEnumAlias {
		return nil // no rules
	}
	pv, _, _ := b.pvMap(fm, true)
	if pv == nil {
		return nil
	}
	return pv.docs
}

// pvMap reads the buf.validate rules of fm: the rules without an mcpwrite
// counterpart, and the field's AgentSupplied with the others merged in.
// server: the field is filled by the server, and only documented.
func (b *builder) pvMap(fm *fieldModel, server bool) (*pvRules, *mcpwritev1.AgentSupplied, bool) {
	r := fieldValidate(fm.proto)
	if r == nil || r.GetIgnore() == validate.Ignore_IGNORE_ALWAYS {
		return nil, nil, true
	}
	m := &pvMapper{b: b, fm: fm, pv: &pvRules{}, ok: true, server: server}
	if fm.mode == modeAgent && !server {
		m.a = proto.Clone(b.ann(fm).agent).(*mcpwritev1.AgentSupplied)
		m.given = b.ann(fm).agent
	}
	if r.GetRequired() {
		if !server {
			fm.required = true
		}
		m.doc("required", "true", "decoder")
	}
	for _, c := range r.GetCel() {
		m.pv.docs = append(m.pv.docs, ruleDoc{Rule: "cel", ID: c.GetId(), Message: c.GetMessage(), Value: c.GetExpression(), CheckedBy: "protovalidate"})
	}
	m.typed(r, "")
	return m.pv, m.a, m.ok
}

// overrideRules maps the numeric rules of the overridable field fm as an
// agent field's (pvMapper.numberRules) into fm.override: its schema states
// them as an agent field's schema does. The request check applies them to
// the agent's value. Rules of another kind are reported where the field's
// rules are listed (fieldRuleDocs).
func (b *builder) overrideRules(fm *fieldModel) {
	if !fm.overridable || fm.proto.Desc.IsMap() {
		return
	}
	r, prefix := oneValueRules(fm)
	if r == nil {
		return
	}
	rm := r.ProtoReflect()
	which := rm.WhichOneof(rm.Descriptor().Oneofs().ByName("type"))
	if which == nil || !isNumberRules(string(which.Name())) || ruleKindFor(fm.proto.Desc, prefix) != string(which.Name()) {
		return
	}
	m := &pvMapper{b: b, fm: fm, a: &mcpwritev1.AgentSupplied{}, given: &mcpwritev1.AgentSupplied{}, pv: &pvRules{}, ok: true}
	m.numberRules(rm.Get(which).Message(), string(which.Name()))
	m.pv.minimum, m.pv.maximum = m.a.Minimum, m.a.Maximum
	fm.override = m.pv
}

// oneValueRules are the buf.validate rules of one value of f: the field's own,
// a list's items' or a map's values'; nil when none or IGNORE_ALWAYS.
func oneValueRules(f *fieldModel) (*validate.FieldRules, string) {
	r := fieldValidate(f.proto)
	if r == nil || r.GetIgnore() == validate.Ignore_IGNORE_ALWAYS {
		return nil, ""
	}
	switch {
	case f.proto.Desc.IsMap():
		return r.GetMap().GetValues(), "map.values."
	case f.proto.Desc.IsList():
		return r.GetRepeated().GetItems(), "repeated.items."
	}
	return r, ""
}
