package gen

import mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"

// A field refused for a mistake of its own is reported once, where it is
// declared, and left out of its message's model. The checks that name
// fields (examples, preview_unless, from_enum, CONTENT_HASH, message oneof
// rules) consult refused before calling a name unknown, so one mistake never
// shows up again as a false "is not a field" elsewhere.

// refused reports whether name is a field of mm's message (by proto name)
// that is not in the model because its own problem was reported.
func refused(mm *messageModel, name string) bool {
	for _, f := range mm.proto.Fields {
		if string(f.Desc.Name()) == name {
			return mm.fieldFor(f) == nil
		}
	}
	return false
}

// refusedKey is refused for an agent-facing key: the proto name, the JSON
// name or the agent.name the refused field would have had.
func refusedKey(mm *messageModel, key string) bool {
	for _, f := range mm.proto.Fields {
		if mm.fieldFor(f) != nil {
			continue
		}
		rules := ext[*mcpwritev1.FieldRules](f.Desc.Options(), mcpwritev1.E_Field)
		if string(f.Desc.Name()) == key || f.Desc.JSONName() == key || rules.GetAgent().GetName() == key && key != "" {
			return true
		}
	}
	return false
}
