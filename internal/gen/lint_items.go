package gen

import "fmt"

// lintItemBounds warns, once per field, when a repeated field of a tool's
// input has items the server fills each on its own (or keys per item) and
// no max_items: every item costs the server its fills, so the list is
// bounded where it is declared, not only by the decoder's array limit.
func lintItemBounds(fm *fileModel) []string {
	var out []string
	for _, s := range fm.services {
		for _, t := range s.tools {
			for _, f := range unboundedItems(t.input, "", map[*messageModel]bool{}) {
				out = append(out, fmt.Sprintf("%s: tool %s: the server fills every item of %s on its own and the list has no max_items; bound it so one call's work is bounded: [(mcpwrite.v1.field).agent = {max_items: 100}] or [(buf.validate.field).repeated.max_items = 100]", where(f.field.proto.Desc), t.name, f.path))
			}
		}
	}
	return out
}

// unboundedItems lists the agent-facing paths of m's repeated fields whose
// items carry server fills or an item key and that have no max_items,
// descending into nested messages once each.
func unboundedItems(m *messageModel, prefix string, seen map[*messageModel]bool) []identityField {
	if m == nil || seen[m] {
		return nil
	}
	seen[m] = true
	defer delete(seen, m)
	var out []identityField
	for _, f := range m.fields {
		name := prefix + f.agentName
		if f.proto.Desc.IsList() || f.proto.Desc.IsMap() {
			name += "[]"
		}
		filled := f.child != nil && (f.child.serverFilled || f.child.itemKey != nil)
		if f.proto.Desc.IsList() && f.exposed() && filled && (f.value == nil || f.value.maxItems == nil) {
			out = append(out, identityField{f, name})
		}
		out = append(out, unboundedItems(f.child, name+".", seen)...)
	}
	return out
}
