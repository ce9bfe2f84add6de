package gen

import (
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
)

// Refusals that name the user's tool. A field that cannot be agent-supplied
// may sit deep in a dependency the user cannot edit (google.rpc.Status's
// details, reached through a resource's last attempt). The refusal then
// names the tool, the agent path that reached the field, where the field
// is declared, and the fix in the user's own files: an option on the
// deepest field of the path declared in the service's own proto package.

// refuse reports that f cannot be agent-supplied (what), naming the tool
// and the path when a tool's request is being built; fix is what to do
// when f is the user's own field.
func (b *builder) refuse(f *protogen.Field, what, fix string) {
	st := b.aip
	if st.tool == "" {
		b.probs.fieldf(f, "%s; %s", what, fix)
		return
	}
	path := append([]*protogen.Field{}, st.path...)
	if len(path) == 0 || path[len(path)-1] != f {
		path = append(path, f)
	}
	names := make([]string, len(path))
	for i, p := range path {
		names[i] = b.fieldName(p)
	}
	own := st.service.Desc.ParentFile().Package()
	var owned *protogen.Field
	for _, p := range path {
		if p.Parent.Desc.ParentFile().Package() == own {
			owned = p
		}
	}
	msg := "tool " + st.tool + ": " + strings.Join(names, ".") + ": " + what +
		" (declared in " + f.Desc.ParentFile().Path() + ", message " + string(f.Parent.Desc.FullName()) + ")"
	switch {
	case owned == f:
		msg += "; " + strings.Replace(fix, "the field", string(f.Desc.FullName()), 1)
	case owned != nil:
		msg += "; in " + owned.Desc.ParentFile().Path() + ", mark " + string(owned.Desc.FullName()) +
			" [(google.api.field_behavior) = OUTPUT_ONLY] if the server sets it, or [(mcpwrite.v1.field).hidden = true]"
	default:
		msg += "; hide the path's first field with [(mcpwrite.v1.field).hidden = true]"
	}
	at := where(st.service.Desc)
	if owned != nil {
		at = where(owned.Desc)
	}
	b.probs.addf("%s: %s", at, msg)
}
