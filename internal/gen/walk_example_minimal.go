package gen

// The minimal example getWriteSchema shows for a tool without examples of
// its own, made from its required fields' examples; resolveDocs checks it
// as a tool example is checked.

import (
	"google.golang.org/protobuf/compiler/protogen"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// examples are the tool's documented examples, or one minimal example made
// from field examples when every required field has one.
func examples(t *toolModel) []schemadoc.Example {
	out := t.examples
	if len(out) > 0 {
		return out
	}
	obj := map[string]any{}
	for _, f := range t.input.agentFields() {
		if !f.required || f.overridable {
			continue
		}
		v, ok := exampleValue(f)
		if !ok {
			return nil
		}
		obj[f.agentName] = v
	}
	if len(obj) == 0 {
		return nil
	}
	pairUp(t, obj)
	return []schemadoc.Example{{Description: "Minimal valid input", Input: mustJSON(obj)}}
}

func exampleValue(f *fieldModel) (any, bool) {
	if f.proto.Desc.IsList() || f.proto.Desc.IsMap() {
		return nil, false
	}
	if f.enumTable != nil {
		if len(f.enumTable.values) == 0 {
			return nil, false
		}
		return f.enumTable.values[0].alias, true
	}
	if v := f.value; v != nil && len(v.examples) > 0 {
		return v.examples[0], true
	}
	return nil, false
}

// pairUp sets the ends of t's pair_check the minimal example sends to a
// pair the check allows: the first declared pair that agrees with the
// ends the server fills by a constant.
func pairUp(t *toolModel, obj map[string]any) {
	pc := t.pairCheck
	if pc == nil {
		return
	}
	ends := []*protogen.Field{pc.typ, pc.source, pc.target}
	for _, p := range pc.rule.pairs {
		vals := []*protogen.EnumValue{p.typ, p.source, p.target}
		fits := true
		for i, f := range ends {
			fm := t.input.fieldFor(f)
			if n, ok := pairEnd(t.input, f, obj); ok && fm.fill != nil && n != int32(vals[i].Desc.Number()) {
				fits = false
			}
		}
		if !fits {
			continue
		}
		for i, f := range ends {
			fm := t.input.fieldFor(f)
			if fm == nil || fm.fill != nil || fm.enumTable == nil {
				continue
			}
			if _, sent := obj[fm.agentName]; sent {
				obj[fm.agentName] = aliasOf(fm.enumTable, int32(vals[i].Desc.Number()))
			}
		}
		return
	}
}
