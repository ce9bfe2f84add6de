package gen

import (
	"sort"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"

	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
)

// Answers leave a field at its zero value out, as protojson does, unless
// the API the service mirrors always returns it: the service's
// emit_zero_values writes every response field without presence, a
// field's emit_zero_value that one. The runtime reads the list from the
// document; output schemas state the fields as required.

// zeroValueFields collects the response fields of sm's tools that answers
// write at their zero value, and reports emit_zero_value on a field with
// presence (a message, an optional scalar, a oneof member), which has no
// zero value to write.
func (b *builder) zeroValueFields(sm *serviceModel) {
	all := serviceRules(sm).GetEmitZeroValues()
	seen := map[protoreflect.FullName]bool{}
	var walk func(m *protogen.Message)
	walk = func(m *protogen.Message) {
		if seen[m.Desc.FullName()] || strings.HasPrefix(string(m.Desc.FullName()), "google.protobuf.") {
			return
		}
		seen[m.Desc.FullName()] = true
		for _, f := range m.Fields {
			flagged := ext[*mcpwritev1.FieldRules](f.Desc.Options(), mcpwritev1.E_Field).GetEmitZeroValue()
			hasZero := !f.Desc.HasPresence() && f.Desc.ContainingOneof() == nil
			if flagged && !hasZero {
				b.probs.fieldf(f, "emit_zero_value applies to fields without presence (a scalar that is not optional, a list, a map); this field is written whenever it is set, so drop the option")
			}
			if hasZero && (all || flagged) {
				if sm.zeroFields == nil {
					sm.zeroFields = map[protoreflect.FullName]bool{}
				}
				sm.zeroFields[f.Desc.FullName()] = true
			}
			if f.Desc.IsMap() {
				f = f.Message.Fields[1]
			}
			if f.Message != nil {
				walk(f.Message)
			}
		}
	}
	for _, t := range sm.tools {
		walk(t.method.Output)
	}
}

// zeroFieldNames lists sm's zero-value fields for the document, sorted.
func (sm *serviceModel) zeroFieldNames() []string {
	if sm.emitZeroValues || len(sm.zeroFields) == 0 {
		return nil // the whole service: one switch, no list
	}
	out := make([]string, 0, len(sm.zeroFields))
	for n := range sm.zeroFields {
		out = append(out, string(n))
	}
	sort.Strings(out)
	return out
}
