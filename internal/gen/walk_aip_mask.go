package gen

// The resource of an update mask found by AIP-134 shape, and the fields
// the server owns on update by the project's own annotations (generated,
// derived, hidden), which a mask may not name (walk_aip_update.go,
// schema_fieldmask.go).

import (
	"fmt"
	"slices"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"

	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/naming"
)

// maskResource finds the resource of an update whose resource message is
// not named after the method (ArticleChanges for UpdateArticle) by AIP-134
// shape: the one singular message field beside update_mask that is not a
// well-known type. Without exactly one, the mask cannot be checked: the
// walk warns with the fix and returns nil.
func (b *builder) maskResource(t *toolModel, mask *protogen.Field) *protogen.Field {
	var found []*protogen.Field
	for _, f := range t.method.Input.Fields {
		if f == mask || f.Message == nil || f.Desc.IsList() || f.Desc.IsMap() || isWKT(f) {
			continue
		}
		found = append(found, f)
	}
	if len(found) == 1 {
		return found[0]
	}
	var names []string
	for _, f := range found {
		names = append(names, string(f.Desc.Name()))
	}
	what := "no message field"
	if len(names) > 0 {
		what = "several message fields (" + strings.Join(names, ", ") + ")"
	}
	noun := strings.TrimPrefix(string(t.method.Desc.Name()), "Update")
	b.file.warns = append(b.file.warns, fmt.Sprintf("%s: method %s: tool %s: update_mask has %s beside it to check its paths against, so paths reach the handler unchecked; "+
		"keep exactly one message field beside update_mask (the resource), or name its message after the method: %s %s = 1;",
		where(mask.Desc), t.method.Desc.FullName(), t.name, what, noun, naming.Snake(naming.Words(noun))))
	return nil
}

// maskOwned says why an update mask may not name f, whose value the
// server fills by the project's own annotations (generated, derived not
// overridable, hidden), or "": such a field is the server's on update as
// an OUTPUT_ONLY one is.
func maskOwned(f *protogen.Field) string {
	rules := ext[*mcpwritev1.FieldRules](f.Desc.Options(), mcpwritev1.E_Field)
	switch k := rules.GetKind().(type) {
	case *mcpwritev1.FieldRules_Generated:
		if !k.Generated.GetOverridable() {
			return "is generated: set by the server"
		}
	case *mcpwritev1.FieldRules_Derived:
		if k.Derived.GetOverridable() {
			return ""
		}
		if _, ok := k.Derived.GetSource().(*mcpwritev1.Derived_Context); ok {
			return "is derived from the request context: set by the server"
		}
		return "is derived: set by the server"
	case *mcpwritev1.FieldRules_Hidden:
		if k.Hidden {
			return "is hidden: set by the server"
		}
	}
	return ""
}

// maskOwnedFields lists, by full name with why, the fields of m and of the
// messages a mask path reaches from it (singular messages, once each, not
// well-known types) that maskOwned gives the server.
func maskOwnedFields(m *protogen.Message, seen []*protogen.Message, out map[string]string) {
	for _, f := range m.Fields {
		if why := maskOwned(f); why != "" {
			out[string(f.Desc.FullName())] = why
			continue
		}
		if f.Message == nil || f.Desc.IsList() || f.Desc.IsMap() || strings.HasPrefix(string(f.Message.Desc.FullName()), "google.protobuf.") ||
			slices.Contains(seen, f.Message) || f.Message == m {
			continue
		}
		maskOwnedFields(f.Message, append(seen, m), out)
	}
}
