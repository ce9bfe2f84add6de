package runtime

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// filledPaths is where the server filled f in request m, item by item, as
// a dry run lists them: "notes.id" in a request with three notes is
// notes[0].id, notes[1].id and notes[2].id, a map value's field is named
// by its key (tags.red.id), and a list or map without items, or a message
// the request does not hold, fills nothing.
// A path through singular messages only is f.Field itself.
func filledPaths(m proto.Message, f schemadoc.ServerFill) []string {
	agent := strings.Split(f.Field, ".")
	names := agent
	if f.ProtoField != "" {
		names = strings.Split(f.ProtoField, ".")
	}
	if m == nil || len(names) != len(agent) {
		return []string{f.Field}
	}
	var out []string
	var walk func(msg protoreflect.Message, i int, at string)
	walk = func(msg protoreflect.Message, i int, at string) {
		at = joinPath(at, agent[i])
		fd := msg.Descriptor().Fields().ByName(protoreflect.Name(names[i]))
		if i == len(agent)-1 || fd == nil || fd.Message() == nil {
			out = append(out, strings.Join(append([]string{at}, agent[i+1:]...), "."))
			return
		}
		switch {
		case fd.IsList():
			l := msg.Get(fd).List()
			for j := range l.Len() {
				walk(l.Get(j).Message(), i+1, fmt.Sprintf("%s[%d]", at, j))
			}
		case fd.IsMap():
			values := map[string]protoreflect.Message{}
			var keys []string
			msg.Get(fd).Map().Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
				keys = append(keys, k.String())
				values[k.String()] = v.Message()
				return true
			})
			sort.Strings(keys)
			for _, k := range keys {
				walk(values[k], i+1, at+mapKeySeg(k))
			}
		default:
			if !msg.Has(fd) {
				return // a message the request does not hold: nothing filled inside
			}
			walk(msg.Get(fd).Message(), i+1, at)
		}
	}
	walk(m.ProtoReflect(), 0, "")
	return out
}

// joinPath appends the field name to a path.
func joinPath(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}

// mapKeySeg is a map key as a path names it: .key, or ["key"] when the key
// would be ambiguous dotted.
func mapKeySeg(k string) string {
	if k != "" && !strings.ContainsAny(k, ".[]\"") {
		return "." + k
	}
	return "[" + strconv.Quote(k) + "]"
}

// fillShapes is, for each fill, where it can appear in the arguments of a
// request like req: a segment per field with the names agents see, and "*"
// after a map field for the value's key ("tags.*.id"); a list's items add
// no segment (their indices are dropped from a path, see pathShape).
func fillShapes(req proto.Message, fills []schemadoc.ServerFill) [][]string {
	out := make([][]string, len(fills))
	for i, f := range fills {
		agent := strings.Split(f.Field, ".")
		names := strings.Split(f.ProtoPath(), ".")
		if req == nil || len(names) != len(agent) {
			out[i] = agent
			continue
		}
		md := req.ProtoReflect().Descriptor()
		for j, name := range agent {
			out[i] = append(out[i], name)
			var fd protoreflect.FieldDescriptor
			if md != nil {
				fd = md.Fields().ByName(protoreflect.Name(names[j]))
			}
			md = nil
			switch {
			case fd == nil:
			case fd.IsMap():
				out[i] = append(out[i], "*")
				md = fd.MapValue().Message()
			default:
				md = fd.Message()
			}
		}
	}
	return out
}
