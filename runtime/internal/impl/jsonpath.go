package impl

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// pathSeg is one step of a JSON path: an object key or an array index.
// item marks a key that is a map entry's key (its value is an item of the
// map, as an index is an item of its list).
type pathSeg struct {
	key   string
	idx   int
	isIdx bool
	item  bool
}

// appendPathSeg renders s after a path prefix; keys that would be ambiguous
// in dotted form are quoted in brackets: a["x.y"][2].
func appendPathSeg(b []byte, s pathSeg) []byte {
	if s.isIdx {
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(s.idx), 10)
		return append(b, ']')
	}
	if plainPathKey(s.key) {
		if len(b) > 0 {
			b = append(b, '.')
		}
		return append(b, s.key...)
	}
	b = append(b, '[')
	b = strconv.AppendQuote(b, s.key)
	return append(b, ']')
}

func plainPathKey(k string) bool {
	return k != "" && utf8.ValidString(k) && !strings.ContainsAny(k, ".[]\"")
}

// itemScope is the path of the innermost list item or map value of path
// (elements[2]) and the path of its list or map (elements); false when the
// path is in no item.
func itemScope(path []pathSeg) (item, list string, ok bool) {
	last := -1
	for i, s := range path {
		if s.isIdx || s.item {
			last = i
		}
	}
	if last < 0 {
		return "", "", false
	}
	var b []byte
	for _, s := range path[:last] {
		b = appendPathSeg(b, s)
	}
	list = string(b)
	return string(appendPathSeg(b, path[last])), list, true
}

// FieldStep is one step of a field path as errors name it: a key (a field
// or a map key) or a list index.
type FieldStep struct {
	Key     string
	Index   int
	IsIndex bool
}

// FieldSteps splits a field path as the decoder writes it (notes[1].id,
// tags["a.b"].id) into its steps; rest is what could not be read (an
// unterminated bracket or quote, an index that is no number), "" when all
// could.
func FieldSteps(p string) (steps []FieldStep, rest string) {
	for p != "" {
		switch {
		case p[0] == '.':
			p = p[1:]
		case strings.HasPrefix(p, `["`):
			q, err := strconv.QuotedPrefix(p[1:])
			if err != nil {
				return steps, p
			}
			k, _ := strconv.Unquote(q)
			steps = append(steps, FieldStep{Key: k})
			p = strings.TrimPrefix(p[1+len(q):], "]")
		case p[0] == '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return steps, p
			}
			n, err := strconv.Atoi(p[1:end])
			if err != nil {
				return steps, p
			}
			steps = append(steps, FieldStep{Index: n, IsIndex: true})
			p = p[end+1:]
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			steps = append(steps, FieldStep{Key: p[:end]})
			p = p[end:]
		}
	}
	return steps, ""
}
