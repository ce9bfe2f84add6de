package runtime

// What a person is shown of a write: confirmation prompts, proposals and
// previews carry the request as the agent wrote it and what the server
// worked out about the change, never the server's own metadata (tenant,
// principal, correlation and client request ids, timestamps, project
// roots). See shownFill.

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

const (
	// personValueLen bounds one value of a person's view, in bytes.
	personValueLen = 200
	// personTextLen bounds the whole request in a confirmation prompt.
	personTextLen = 2000
)

// personRequest is the enriched request m as a person is shown it: the
// agent's field names and enum aliases, the server's own metadata removed
// (shownFill) unless the agent sent the field, and each reference as the
// agent wrote it (a name stays a name). body holds the agent's arguments.
func (s answerShape) personRequest(d *schemadoc.Tool, m proto.Message, body *impl.Object) (json.RawMessage, error) {
	raw, err := s.agentJSON(m)
	if err != nil || m == nil {
		return raw, err
	}
	obj, errs := impl.Parse(raw, ownOutputLimits(raw))
	if len(errs) > 0 || obj == nil {
		return raw, nil
	}
	for _, f := range d.ServerFills {
		if shownFill(d, f) || pathValue(body, f.Field) != nil {
			continue // what the server worked out, or the agent's own value
		}
		dropPath(obj, strings.Split(f.Field, "."))
	}
	if pu := d.PreviewUnless; pu != nil {
		dropPath(obj, []string{pu.Argument}) // asking for the write is not part of it
	}
	for _, ref := range d.References {
		if v := pathValue(body, ref.Field); v != nil {
			setPath(obj, strings.Split(ref.Field, "."), v)
		}
	}
	var buf bytes.Buffer
	writeObject(&buf, obj)
	return buf.Bytes(), nil
}

// shownFill reports a server-filled field a person is shown: what the
// server worked out about this very change (a resolver the agent cannot
// override, such as a current version or how many observations move; a
// value derived from the agent's enum) and the generated id of a create,
// which names what it makes. Hidden are the request context (tenant,
// principal, correlation), generated ids and timestamps, constants, and
// session defaults the agent may override (the project root, the active
// model).
func shownFill(d *schemadoc.Tool, f schemadoc.ServerFill) bool {
	switch f.Source {
	case "resolver":
		return !f.Overridable
	case "derived", "from_enum", "enum_alias":
		return true
	case "generated":
		return f.Field == "id" && d.Kind == "CREATE"
	}
	return false
}

// pathValue is the value at a dotted path of o (no list segments), or nil.
func pathValue(o *impl.Object, path string) *impl.Value {
	if o == nil || strings.Contains(path, "[]") {
		return nil
	}
	var v *impl.Value
	for _, seg := range strings.Split(path, ".") {
		if o == nil {
			return nil
		}
		if v = valueOf(o, seg); v == nil {
			return nil
		}
		o = v.Obj
	}
	return v
}

// valueOf is the value of key k in o, or nil.
func valueOf(o *impl.Object, k string) *impl.Value {
	for i, key := range o.Keys {
		if key == k {
			return o.Vals[i]
		}
	}
	return nil
}

// dropPath removes the field at path from o, descending through lists (at
// "name[]" segments, and at plain segments naming a list, as ServerFill
// paths name the fields of repeated messages' items), and removes the
// objects the removal leaves empty.
func dropPath(o *impl.Object, path []string) {
	seg, list := strings.CutSuffix(path[0], "[]")
	for i := 0; i < len(o.Keys); i++ {
		if o.Keys[i] != seg {
			continue
		}
		v := o.Vals[i]
		if len(path) > 1 {
			var kids []*impl.Value
			switch {
			case v.Kind == impl.KindArray: // "name[]", or a dotted path through a repeated field
				kids = v.Arr
			case !list && v.Kind == impl.KindObject:
				kids = []*impl.Value{v}
			}
			for _, k := range kids {
				if k.Kind == impl.KindObject {
					dropPath(k.Obj, path[1:])
				}
			}
			if v.Kind != impl.KindObject || len(v.Obj.Keys) > 0 {
				return
			}
		}
		o.Keys = append(o.Keys[:i], o.Keys[i+1:]...)
		o.Vals = append(o.Vals[:i], o.Vals[i+1:]...)
		return
	}
}

// setPath sets the value at a dotted path of o when the path exists.
func setPath(o *impl.Object, path []string, v *impl.Value) {
	for i, k := range o.Keys {
		if k != path[0] {
			continue
		}
		if len(path) == 1 {
			o.Vals[i] = v
		} else if o.Vals[i].Kind == impl.KindObject {
			setPath(o.Vals[i].Obj, path[1:], v)
		}
		return
	}
}

// personLines renders a person's view of a request as one "field: value"
// line per value: nested fields by dotted path, list elements by index
// (items[0].sku), strings as they are, made safe to show and shortened.
func personLines(raw json.RawMessage) string {
	obj, errs := impl.Parse(raw, ownOutputLimits(raw))
	if len(errs) > 0 || obj == nil {
		return ""
	}
	var lines []string
	var walk func(prefix string, v *impl.Value)
	walk = func(prefix string, v *impl.Value) {
		switch v.Kind {
		case impl.KindObject:
			if len(v.Obj.Keys) == 0 {
				lines = append(lines, prefix+": {}")
			}
			for i, k := range v.Obj.Keys {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				walk(p, v.Obj.Vals[i])
			}
		case impl.KindArray:
			if scalars(v.Arr) {
				parts := make([]string, len(v.Arr))
				for i, e := range v.Arr {
					parts[i] = scalarLine(e)
				}
				lines = append(lines, prefix+": "+truncateText(strings.Join(parts, ", "), personValueLen))
				return
			}
			for i, e := range v.Arr {
				walk(prefix+"["+strconv.Itoa(i)+"]", e)
			}
		default:
			lines = append(lines, prefix+": "+truncateText(scalarLine(v), personValueLen))
		}
	}
	walk("", &impl.Value{Kind: impl.KindObject, Obj: obj})
	return truncateText(strings.Join(lines, "\n"), personTextLen)
}

// scalars reports a list of scalars only (an empty list included).
func scalars(vs []*impl.Value) bool {
	for _, v := range vs {
		if v.Kind == impl.KindObject || v.Kind == impl.KindArray {
			return false
		}
	}
	return true
}

// scalarLine is one scalar for people: text without quotes, safe to show on
// one line.
func scalarLine(v *impl.Value) string {
	switch v.Kind {
	case impl.KindString:
		return neutralize(v.Str)
	case impl.KindBool:
		if v.Bool {
			return "true"
		}
		return "false"
	case impl.KindNull:
		return "null"
	}
	return v.Str
}
