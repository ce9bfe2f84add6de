package gen

// The minimal example getWriteSchema shows for a tool without examples of
// its own, made from its required fields' examples; resolveDocs checks it
// as a tool example is checked.

import "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"

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
