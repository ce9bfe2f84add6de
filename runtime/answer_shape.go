package runtime

import (
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// shapeOf is the answer shape of a service's document entry.
func shapeOf(svc *schemadoc.Service) answerShape {
	s := answerShape{jsonNames: svc.FieldNaming == "JSON_NAME", zeroValues: svc.ZeroValues, lowerEnums: svc.EnumOutput == "LOWER_SNAKE"}
	for _, n := range svc.ZeroValueFields {
		if s.zeroFields == nil {
			s.zeroFields = map[protoreflect.FullName]bool{}
		}
		s.zeroFields[protoreflect.FullName(n)] = true
	}
	return s
}

// classification is how answers spell c, a tool's canonical classification
// (SAFE_CREATE, DESTRUCTIVE_DELETE): in lower case when the service spells
// enum values in lower snake case, as the canonical name otherwise (the
// classification is its own alias, upper snake and proto name). Decisions
// read the canonical value; only what an answer writes is spelled.
func (s answerShape) classification(c string) string {
	if s.lowerEnums {
		return strings.ToLower(c)
	}
	return c
}

// writesZero reports whether fd is written at its zero value when unset.
func (s answerShape) writesZero(fd protoreflect.FieldDescriptor) bool {
	return (s.zeroValues || s.zeroFields[fd.FullName()]) && !fd.HasPresence() && fd.ContainingOneof() == nil
}

// protojson is the reference rendering of the shape: EmitDefaultValues
// writes the fields without presence at their zero value (prune then drops
// the ones a field list leaves out).
func (s answerShape) protojson() protojson.MarshalOptions {
	o := jsonOptions(s.jsonNames)
	o.EmitDefaultValues = s.zeroValues || len(s.zeroFields) > 0
	return o
}

// prune removes from obj, the protojson rendering of m under s.protojson(),
// the members of unset fields s does not write at their zero value.
func (s answerShape) prune(obj *impl.Object, m protoreflect.Message) {
	if s.zeroValues || len(s.zeroFields) == 0 || obj == nil || wellKnownJSON(m.Descriptor().FullName()) {
		return
	}
	fields := m.Descriptor().Fields()
	keys, vals := obj.Keys[:0], obj.Vals[:0]
	for i, k := range obj.Keys {
		fd := fields.ByName(protoreflect.Name(k))
		if fd == nil {
			fd = fields.ByJSONName(k)
		}
		if fd != nil && !m.Has(fd) && !s.writesZero(fd) {
			continue
		}
		if fd != nil && m.Has(fd) {
			s.pruneValue(obj.Vals[i], m.Get(fd), fd)
		}
		keys, vals = append(keys, k), append(vals, obj.Vals[i])
	}
	obj.Keys, obj.Vals = keys, vals
}

// pruneValue prunes the messages inside one field's value.
func (s answerShape) pruneValue(v *impl.Value, pv protoreflect.Value, fd protoreflect.FieldDescriptor) {
	switch {
	case fd.IsList() && fd.Message() != nil && v.Kind == impl.KindArray:
		l := pv.List()
		for i, e := range v.Arr {
			if i < l.Len() && e.Kind == impl.KindObject {
				s.prune(e.Obj, l.Get(i).Message())
			}
		}
	case fd.IsMap() && fd.MapValue().Message() != nil && v.Kind == impl.KindObject:
		mm := pv.Map()
		mm.Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
			if e := v.Obj.Get(k.String()); e != nil && e.Kind == impl.KindObject {
				s.prune(e.Obj, mv.Message())
			}
			return true
		})
	case !fd.IsList() && !fd.IsMap() && fd.Message() != nil && v.Kind == impl.KindObject:
		s.prune(v.Obj, pv.Message())
	}
}
