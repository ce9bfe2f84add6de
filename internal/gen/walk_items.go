package gen

import (
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
