package runtime

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A confirmation message template ((mcpwrite.v1.tool).confirmation_message)
// is text with placeholders the runtime fills when it asks the user:
//
//	{po_number}            a scalar or enum field of the enriched request, by
//	                       its proto path (enums by their agent-facing alias)
//	{#items}               how many elements a repeated or map field holds
//	{preview.total_cost}   a value of the domain check's preview
//	                       (runtime.Previews.Check), by its keys
//	{{ and }}              literal braces
//
// The plugin checks request paths when it generates; a preview key the
// domain did not return makes the runtime fall back to its default message.

// renderConfirmation fills tpl from m and the domain preview. It reports an
// error naming the first placeholder it cannot fill.
func (s answerShape) renderConfirmation(tpl string, m proto.Message, preview map[string]any) (string, error) {
	var b strings.Builder
	for i := 0; i < len(tpl); {
		c := tpl[i]
		switch {
		case c == '{' && strings.HasPrefix(tpl[i:], "{{"):
			b.WriteByte('{')
			i += 2
		case c == '}' && strings.HasPrefix(tpl[i:], "}}"):
			b.WriteByte('}')
			i += 2
		case c == '{':
			end := strings.IndexByte(tpl[i:], '}')
			if end < 0 {
				return "", fmt.Errorf("unclosed placeholder at byte %d", i)
			}
			v, err := s.placeholder(tpl[i+1:i+end], m, preview)
			if err != nil {
				return "", err
			}
			b.WriteString(neutralize(v))
			i += end + 1
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), nil
}

// placeholder is the text of one {name}.
func (s answerShape) placeholder(name string, m proto.Message, preview map[string]any) (string, error) {
	if rest, ok := strings.CutPrefix(name, "preview."); ok {
		var v any = preview
		for _, k := range strings.Split(rest, ".") {
			obj, ok := v.(map[string]any)
			if !ok {
				return "", fmt.Errorf("{%s}: the domain preview has no %q", name, rest)
			}
			if v, ok = obj[k]; !ok {
				return "", fmt.Errorf("{%s}: the domain preview has no %q", name, rest)
			}
		}
		return previewText(v), nil
	}
	count := strings.HasPrefix(name, "#")
	path := strings.Split(strings.TrimPrefix(name, "#"), ".")
	if m == nil {
		return "", fmt.Errorf("{%s}: no request", name)
	}
	msg := m.ProtoReflect()
	for i, seg := range path {
		fd := msg.Descriptor().Fields().ByName(protoreflect.Name(seg))
		if fd == nil {
			return "", fmt.Errorf("{%s}: %s has no field %q", name, msg.Descriptor().FullName(), seg)
		}
		last := i == len(path)-1
		switch {
		case last && count:
			switch {
			case fd.IsList():
				return strconv.Itoa(msg.Get(fd).List().Len()), nil
			case fd.IsMap():
				return strconv.Itoa(msg.Get(fd).Map().Len()), nil
			}
			return "", fmt.Errorf("{%s}: %s is not a list or map", name, seg)
		case last:
			return s.scalarText(fd, msg.Get(fd))
		case fd.Message() == nil || fd.IsList() || fd.IsMap():
			return "", fmt.Errorf("{%s}: %s is not a message to descend into", name, seg)
		}
		msg = msg.Get(fd).Message()
	}
	return "", fmt.Errorf("{%s}: empty path", name)
}

// scalarText renders a singular scalar or enum value for people.
func (s answerShape) scalarText(fd protoreflect.FieldDescriptor, v protoreflect.Value) (string, error) {
	if fd.IsList() || fd.IsMap() || fd.Message() != nil {
		return "", fmt.Errorf("{%s}: not a scalar or enum field", fd.Name())
	}
	switch fd.Kind() {
	case protoreflect.EnumKind:
		n := int32(v.Enum())
		if t := s.enums[string(fd.Enum().FullName())]; t != nil {
			if a := t.Alias(n); a != "" {
				return a, nil
			}
		}
		if ev := fd.Enum().Values().ByNumber(protoreflect.EnumNumber(n)); ev != nil {
			return string(ev.Name()), nil
		}
		return strconv.Itoa(int(n)), nil
	case protoreflect.BytesKind:
		return fmt.Sprintf("%d bytes", len(v.Bytes())), nil
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return strconv.FormatFloat(v.Float(), 'f', -1, 64), nil
	}
	return v.String(), nil
}

// previewText renders a preview value: strings as they are, the rest as JSON.
func previewText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
