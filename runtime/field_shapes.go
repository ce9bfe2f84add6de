package runtime

import (
	"strconv"
	"strings"
)

// foldName compares field names across case and underscores.
func foldName(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, "_", ""))
}

// pathShape is an error's field path as segments: list indices dropped
// (notes[1].id is notes.id), a quoted map key one segment (tags["a.b"].id
// is tags, a.b, id).
func pathShape(p string) []string {
	var out []string
	for p != "" {
		switch {
		case p[0] == '.':
			p = p[1:]
		case strings.HasPrefix(p, `["`):
			q, err := strconv.QuotedPrefix(p[1:])
			if err != nil {
				return append(out, p)
			}
			k, _ := strconv.Unquote(q)
			out = append(out, k)
			p = strings.TrimPrefix(p[1+len(q):], "]")
		case p[0] == '[':
			i := strings.IndexByte(p, ']')
			if i < 0 {
				return append(out, p)
			}
			p = p[i+1:]
		default:
			i := strings.IndexAny(p, ".[")
			if i < 0 {
				i = len(p)
			}
			out = append(out, p[:i])
			p = p[i:]
		}
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
