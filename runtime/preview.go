package runtime

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// boolField reports whether the top-level bool field name of m is true.
func boolField(m proto.Message, name string) bool {
	if m == nil {
		return false
	}
	r := m.ProtoReflect()
	fd := r.Descriptor().Fields().ByName(protoreflect.Name(name))
	return fd != nil && fd.Kind() == protoreflect.BoolKind && !fd.IsList() && r.Get(fd).Bool()
}

// liftAnswerFields splits a domain preview by the tool's output schema: the
// members named like a field of the answer (other than success, is_preview
// and warnings), in the answer's field order; a "warnings" member, when the
// answer has that field, as the answer's warnings; and the rest (nil when
// nothing is left, or when there was no preview).
func liftAnswerFields(d *schemadoc.Tool, dp map[string]any) (object, []impl.Warning, map[string]any) {
	if dp == nil {
		return nil, nil, nil
	}
	rest := make(map[string]any, len(dp))
	for k, v := range dp {
		rest[k] = v
	}
	var lifted object
	var ws []impl.Warning
	for _, k := range answerFields(d) {
		v, ok := rest[k]
		if !ok {
			continue
		}
		delete(rest, k)
		if k == "warnings" {
			ws = domainWarnings(v)
			continue
		}
		lifted = append(lifted, member{k, v})
	}
	if len(rest) == 0 {
		rest = nil
	}
	return lifted, ws, rest
}

// answerFields are the top-level properties of a tool's output schema, in
// order, without success and is_preview.
func answerFields(d *schemadoc.Tool) []string {
	obj, errs := impl.Parse(d.OutputSchema, ownOutputLimits(d.OutputSchema))
	if len(errs) > 0 || obj == nil {
		return nil
	}
	props := valueOf(obj, "properties")
	if props == nil || props.Obj == nil {
		return nil
	}
	var out []string
	for _, k := range props.Obj.Keys {
		if k != "success" && k != "is_preview" {
			out = append(out, k)
		}
	}
	return out
}
