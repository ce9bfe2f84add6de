package runtime

import (
	"bytes"
	"encoding/json"
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// agentJSON renders a request or response as agents see it: protojson with
// the service's field names and enum values by their aliases.
func (s answerShape) agentJSON(m proto.Message) (json.RawMessage, error) {
	raw, err := messageJSON(m, s.jsonNames)
	if err != nil || m == nil {
		return raw, err
	}
	return aliasEnums(raw, m.ProtoReflect().Descriptor(), s.enums), nil
}

// aliasEnums rewrites the enum values of a protojson rendering of a message
// of type md to the agent-facing aliases of tables (by enum full name), so
// agents read back the names they write ("ApplicationComponent", not
// "ELEMENT_TYPE_APPLICATION_COMPONENT"). Values without an alias keep their
// protojson form. Key order and every other value are preserved.
func aliasEnums(raw json.RawMessage, md protoreflect.MessageDescriptor, tables map[string]*impl.EnumTable) json.RawMessage {
	if len(tables) == 0 || md == nil {
		return raw
	}
	obj, errs := impl.Parse(raw, ownOutputLimits(raw))
	if len(errs) > 0 || obj == nil {
		return raw
	}
	if !aliasObject(obj, md, tables) {
		return raw
	}
	var buf bytes.Buffer
	writeObject(&buf, obj)
	return buf.Bytes()
}

// aliasObject rewrites in place and reports whether anything changed.
func aliasObject(o *impl.Object, md protoreflect.MessageDescriptor, tables map[string]*impl.EnumTable) bool {
	if wellKnownJSON(md.FullName()) {
		return false
	}
	changed := false
	fields := md.Fields()
	for i, k := range o.Keys {
		fd := fields.ByName(protoreflect.Name(k))
		if fd == nil {
			fd = fields.ByJSONName(k)
		}
		if fd == nil {
			continue
		}
		v := o.Vals[i]
		switch {
		case fd.IsMap():
			if v.Kind == impl.KindObject {
				for _, mv := range v.Obj.Vals {
					changed = aliasValue(mv, fd.MapValue(), tables) || changed
				}
			}
		case fd.IsList():
			if v.Kind == impl.KindArray {
				for _, ev := range v.Arr {
					changed = aliasValue(ev, fd, tables) || changed
				}
			}
		default:
			changed = aliasValue(v, fd, tables) || changed
		}
	}
	return changed
}

func aliasValue(v *impl.Value, fd protoreflect.FieldDescriptor, tables map[string]*impl.EnumTable) bool {
	switch fd.Kind() {
	case protoreflect.EnumKind:
		t := tables[string(fd.Enum().FullName())]
		if t == nil || v.Kind != impl.KindString {
			return false
		}
		ev := fd.Enum().Values().ByName(protoreflect.Name(v.Str))
		if ev == nil {
			return false
		}
		if a := t.Alias(int32(ev.Number())); a != "" {
			v.Str = a
			return true
		}
	case protoreflect.MessageKind, protoreflect.GroupKind:
		if v.Kind == impl.KindObject {
			return aliasObject(v.Obj, fd.Message(), tables)
		}
	}
	return false
}

// wellKnownJSON lists messages protojson renders specially; they hold no
// enums worth aliasing.
func wellKnownJSON(n protoreflect.FullName) bool {
	return len(n) > 16 && n[:16] == "google.protobuf."
}

func writeObject(buf *bytes.Buffer, o *impl.Object) {
	buf.WriteByte('{')
	for i, k := range o.Keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeString(buf, k)
		buf.WriteByte(':')
		writeValue(buf, o.Vals[i])
	}
	buf.WriteByte('}')
}

func writeValue(buf *bytes.Buffer, v *impl.Value) {
	switch v.Kind {
	case impl.KindNull:
		buf.WriteString("null")
	case impl.KindBool:
		buf.WriteString(strconv.FormatBool(v.Bool))
	case impl.KindNumber:
		buf.WriteString(v.Str)
	case impl.KindString:
		writeString(buf, v.Str)
	case impl.KindArray:
		buf.WriteByte('[')
		for i, e := range v.Arr {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeValue(buf, e)
		}
		buf.WriteByte(']')
	case impl.KindObject:
		writeObject(buf, v.Obj)
	}
}

// writeString writes s as protojson does: only '"', '\\' and control
// characters escaped, everything else literal UTF-8.
func writeString(buf *bytes.Buffer, s string) {
	buf.Write(idempotency.AppendCanonicalString(buf.AvailableBuffer(), s))
}
