package impl

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/suggest"
)

// anyTypeKey is the key of an Any's type URL, as protojson writes it.
const anyTypeKey = "@type"

// AnyObject reads a google.protobuf.Any at key as protojson writes it: an
// object whose "@type" is one of allowed (the type URLs of the field's
// candidates, the only types it resolves). It returns the type URL and the
// object without "@type", for the candidate's own decoder. A missing,
// non-string or unknown "@type" is reported at key.@type, listing allowed.
func (d *Decoder) AnyObject(v *Value, key string, allowed []string) (string, *Object, bool) {
	obj, ok := d.Object(v, key)
	if !ok {
		return "", nil, false
	}
	if key != "" {
		d.Enter(key)
		defer d.Leave()
	}
	t := obj.Get(anyTypeKey)
	one := "one of " + strings.Join(allowed, ", ")
	if len(allowed) == 1 {
		one = allowed[0]
	}
	switch {
	case !t.Present():
		d.report(anyTypeKey, &ErrorEntry{Code: CodeMissingRequired,
			Message:     fmt.Sprintf("missing required field %q: the type of this google.protobuf.Any, %s", anyTypeKey, one),
			Suggestions: &Suggestions{ValidValues: BoundList(allowed)}})
		return "", nil, false
	case t.Kind != KindString:
		d.typeError(t, anyTypeKey, "string", "the type URL, "+one)
		return "", nil, false
	}
	for _, a := range allowed {
		if t.Str == a {
			return a, withoutKey(obj, anyTypeKey), true
		}
	}
	s := &Suggestions{ValidValues: BoundList(allowed), DidYouMean: suggest.Closest(t.Str, allowed, MaxDidYouMean)}
	d.report(anyTypeKey, &ErrorEntry{Code: CodeInvalidEnumValue, Rejected: t.Str, Suggestions: s,
		Message: fmt.Sprintf("unknown type %s for this google.protobuf.Any; it takes %s", quoteTypeURL(t.Str), one)})
	return "", nil, false
}

// withoutKey is obj without key (a copy; obj is left as parsed).
func withoutKey(obj *Object, key string) *Object {
	out := &Object{Keys: make([]string, 0, len(obj.Keys)), Vals: make([]*Value, 0, len(obj.Vals))}
	for i, k := range obj.Keys {
		if k != key {
			out.Keys = append(out.Keys, k)
			out.Vals = append(out.Vals, obj.Vals[i])
		}
	}
	return out
}

// PackAny packs m, decoded from the Any at key, into a google.protobuf.Any
// with m's type URL.
func (d *Decoder) PackAny(key string, m proto.Message) (*anypb.Any, bool) {
	a, err := anypb.New(m)
	if err != nil {
		d.report(key, &ErrorEntry{Code: CodeInvalidType, Message: "cannot pack the value as a google.protobuf.Any: " + err.Error()})
		return nil, false
	}
	return a, true
}

// quoteTypeURL quotes a type URL whole when it has the length of one (a
// full name is rarely longer than 200 bytes), clipped otherwise.
func quoteTypeURL(s string) string {
	if len(s) <= 200 && utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	return ClipQuote(s)
}
