package gen

import (
	"fmt"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// The items of a repeated field carry server fills of their own: each item
// is enriched on its own (emit_enrich.go), and an item may carry its own
// idempotency key (agent.item_key), which the decoder keeps unique within
// the call and the item's REQUEST_SCOPED fields derive from.

// itemKeyField records fm, marked agent.item_key, as its message's item
// key: a singular string, one per message.
func (b *builder) itemKeyField(fm *fieldModel) bool {
	f := fm.proto
	if f.Desc.Kind() != protoreflect.StringKind || f.Desc.IsList() || f.Desc.IsMap() {
		b.probs.fieldf(f, "item_key marks a singular string field (the item's idempotency key), not %s; mark a string field instead, e.g. string client_request_id = 99 [(mcpwrite.v1.field).agent = {item_key: true}];", kindName(f))
		return false
	}
	if realOneof(f) {
		b.probs.fieldf(f, "item_key cannot mark a oneof member: every item carries its key in the same field; move the field out of the oneof, or drop item_key")
		return false
	}
	if prev := fm.msg.itemKey; prev != nil {
		b.probs.fieldf(f, "item_key is already field %s of %s; an item has one key", prev.proto.Desc.Name(), fm.msg.proto.Desc.FullName())
		return false
	}
	fm.msg.itemKey = fm
	if fm.desc != "" && fm.desc[len(fm.desc)-1] != '.' {
		fm.desc += "."
	}
	if fm.desc != "" {
		fm.desc += " "
	}
	fm.desc += "Each item's own key: no two items of one call share it."
	return true
}

// checkItemKeys refuses an item_key on a message that no repeated field of
// the file's tools has as its items: the key would be checked nowhere.
func (b *builder) checkItemKeys() {
	for _, mm := range b.file.messages {
		k := mm.itemKey
		switch {
		case k == nil:
		case !mm.asItem:
			b.probs.fieldf(k.proto, "item_key applies to the items of a repeated field, and no repeated field of these tools has %s as its items; drop item_key or use the message as a list's items", mm.proto.Desc.FullName())
		case mm.asMapValue:
			// A map's entries are keyed by the map: the item key would be
			// checked unique nowhere there, and ids would not derive from it.
			b.probs.fieldf(k.proto, "item_key keys a list's items, and %s is also the value type of a map of these tools, where the entry's key keys it; use another message for the map's values", mm.proto.Desc.FullName())
		}
	}
}

// itemKeyOf is the item key of the items of repeated field f, nil when
// they have none.
func itemKeyOf(f *fieldModel) *fieldModel {
	if f.child == nil || !f.proto.Desc.IsList() {
		return nil
	}
	return f.child.itemKey
}

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
