package runtime

import (
	"strings"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// foldName compares field names across case and underscores.
func foldName(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, "_", ""))
}

// pathShape is an error's field path as keys: list indices dropped
// (notes[1].id is notes.id), a quoted map key one segment (tags["a.b"].id
// is tags, a.b, id), and what could not be read last, as it is.
func pathShape(p string) []string {
	steps, rest := impl.FieldSteps(p)
	var out []string
	for _, s := range steps {
		if !s.IsIndex {
			out = append(out, s.Key)
		}
	}
	if rest != "" {
		out = append(out, rest)
	}
	return out
}

// shapeMatches reports whether path segments at are a place of shape: the
// same length, "*" matching any key, names compared as foldName does.
func shapeMatches(shape, at []string) bool {
	if len(shape) != len(at) {
		return false
	}
	for i, s := range shape {
		if s != "*" && foldName(s) != foldName(at[i]) {
			return false
		}
	}
	return true
}
