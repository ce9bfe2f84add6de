package impl

import (
	"fmt"
)

// SetLimits sets the limits the arguments were parsed with; JSON text read
// inside them (Subtree, Struct, Value, ListValue) is held to the same ones.
// A zero Limits takes the defaults.
func (d *Decoder) SetLimits(l Limits) { d.lim = l.WithDefaults() }

// limits returns the decoder's limits, the defaults when none were set.
func (d *Decoder) limits() Limits { return d.lim.WithDefaults() }

// Subtree reads one level of a recursive message (a tree's node, a nested
// filter): the object itself, or a string holding JSON text of the same
// object, which input schemas ask for past the levels they spell out. The
// text is held to the arguments' limits as if it were written in place: its
// nesting counts from the depth of the field that holds it, so a tree cannot
// grow past the depth limit by travelling as text, and its size and strings
// to the byte limits. JSON null, in the text too, leaves the field unset.
func (d *Decoder) Subtree(v *Value, key string) (*Object, bool) {
	if !v.Present() {
		return nil, false
	}
	switch v.Kind {
	case KindObject:
		return v.Obj, true
	case KindString:
	default:
		d.typeError(v, key, "object (or a string holding JSON text of one)", "")
		return nil, false
	}
	lim := d.limits()
	// The value sits one level below the current path, two when it is the
	// field key of the current object.
	at := len(d.segs) + 1
	if key != "" {
		at++
	}
	room := lim.MaxDepth - at + 1
	if room < 1 {
		d.tooDeep(key, lim.MaxDepth)
		return nil, false
	}
	sub := lim
	sub.MaxDepth = room
	parsed, es := ParseValue([]byte(v.Str), sub)
	if len(es) > 0 {
		if isLimit(es[0]) {
			d.reportTextLimit(key, es[0], lim.MaxDepth)
			return nil, false
		}
		d.report(key, &ErrorEntry{
			Code:    CodeInvalidJSON,
			Message: "expected JSON text of an object: " + es[0].Message,
			Suggestions: &Suggestions{
				Hint: `Send the object itself, or JSON text of it in a string, e.g. "{\"title\":\"Intro\"}".`,
			},
		})
		return nil, false
	}
	switch parsed.Kind {
	case KindNull:
		return nil, false
	case KindObject:
		return parsed.Obj, true
	}
	d.report(key, &ErrorEntry{
		Code:    CodeInvalidType,
		Message: fmt.Sprintf("expected JSON text of an object, got JSON text of %s %s", article(JSONKind(parsed.Kind)), JSONKind(parsed.Kind)),
		Details: map[string]any{"expected": "object", "got": JSONKind(parsed.Kind)},
	})
	return nil, false
}

// tooDeep reports a recursive value nested past the depth limit.
func (d *Decoder) tooDeep(key string, limit int) { d.report(key, tooDeepEntry(limit)) }
