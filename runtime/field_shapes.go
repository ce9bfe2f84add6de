package runtime

import (
	"strconv"
	"strings"
)

// foldName compares field names across case and underscores.
func foldName(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, "_", ""))
}

// pathSeg is one step of an agent path: a key (a field or a map key) or a
// list index.
type pathSeg struct {
	key   string
	idx   int
	isIdx bool
}

// pathSegments splits an error's field path into its steps: notes[1].id is
// notes, [1], id; tags["a.b"].id is tags, a.b, id. rest is what could not
// be read (an unterminated bracket or quote), "" when all could.
func pathSegments(p string) (segs []pathSeg, rest string) {
	for p != "" {
		switch {
		case p[0] == '.':
			p = p[1:]
		case strings.HasPrefix(p, `["`):
			q, err := strconv.QuotedPrefix(p[1:])
			if err != nil {
				return segs, p
			}
			k, _ := strconv.Unquote(q)
			segs = append(segs, pathSeg{key: k})
			p = strings.TrimPrefix(p[1+len(q):], "]")
		case p[0] == '[':
			i := strings.IndexByte(p, ']')
			n, err := strconv.Atoi(p[1:max(i, 1)])
			if i < 0 || err != nil {
				return segs, p
			}
			segs = append(segs, pathSeg{idx: n, isIdx: true})
			p = p[i+1:]
		default:
			i := strings.IndexAny(p, ".[")
			if i < 0 {
				i = len(p)
			}
			segs = append(segs, pathSeg{key: p[:i]})
			p = p[i:]
		}
	}
	return segs, ""
}

// pathShape is an error's field path as keys: list indices dropped
// (notes[1].id is notes.id), a quoted map key one segment (tags["a.b"].id
// is tags, a.b, id), and what could not be read last, as it is.
func pathShape(p string) []string {
	segs, rest := pathSegments(p)
	var out []string
	for _, s := range segs {
		if !s.isIdx {
			out = append(out, s.key)
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
