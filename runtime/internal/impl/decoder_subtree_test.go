package impl

import (
	"fmt"
	"strings"
	"testing"
)

// subtreeErrs reads v at key under d and returns what Subtree answered.
func subtreeErrs(d *Decoder, v *Value, key string) (keys string, ok bool, errs []string) {
	o, ok := d.Subtree(v, key)
	if o != nil {
		keys = strings.Join(o.Keys, ",")
	}
	for _, e := range d.Errors() {
		errs = append(errs, e.Code+" "+e.Field+": "+e.Message)
	}
	return keys, ok, errs
}

func TestSubtreeReadsObjectsAndJSONText(t *testing.T) {
	tooDeep := func(n int) string {
		return fmt.Sprintf("nesting is deeper than the limit of %d levels (objects and arrays, counted from the top of the arguments, JSON text included)", n)
	}
	cases := []struct {
		name, js, keys string
		ok             bool
		errs           []string
	}{
		{"an object", `{"title":"a","sections":[]}`, "title,sections", true, nil},
		{"JSON text of an object", `"{\"title\":\"a\"}"`, "title", true, nil},
		{"JSON text of null leaves the field unset", `"null"`, "", false, nil},
		{"null leaves the field unset", `null`, "", false, nil},
		{"a number", `7`, "", false, []string{"INVALID_TYPE node: expected object (or a string holding JSON text of one), got number"}},
		{"an array", `[{}]`, "", false, []string{"INVALID_TYPE node: expected object (or a string holding JSON text of one), got array"}},
		{"text of an array", `"[1]"`, "", false, []string{"INVALID_TYPE node: expected JSON text of an object, got JSON text of an array"}},
		{"text that is not JSON", `"{\"title\""`, "", false, []string{"INVALID_JSON node: expected JSON text of an object: invalid JSON at byte 8: unexpected end of input in object"}},
		// The field sits at depth 2 under a limit of 4: its text may nest 3
		// levels, not 4.
		{"text within the depth left", `"{\"a\":{\"b\":{}}}"`, "a", true, nil},
		{"text past the depth left", `"{\"a\":{\"b\":{\"c\":{}}}}"`, "", false, []string{"CONSTRAINT_VIOLATION node.a.b.c: " + tooDeep(4)}},
		// Size limits: a string in the text longer than MaxStringBytes.
		{"text past the string limit", `"{\"a\":\"` + strings.Repeat("x", 40) + `\"}"`, "", false, []string{"CONSTRAINT_VIOLATION node.a: string is 40 bytes; the limit is 32 bytes"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDecoder(Limits{MaxDepth: 4, MaxStringBytes: 32})
			keys, ok, errs := subtreeErrs(d, valueOf(t, tc.js), "node")
			if keys != tc.keys || ok != tc.ok || strings.Join(errs, "\n") != strings.Join(tc.errs, "\n") {
				t.Fatalf("got keys %q ok %v errors %q; want %q %v %q", keys, ok, errs, tc.keys, tc.ok, tc.errs)
			}
		})
	}
}

// TestSubtreeCountsTheCurrentPath: the depth left shrinks with the path
// the decoder is in, and nothing is left once the path is at the limit.
func TestSubtreeCountsTheCurrentPath(t *testing.T) {
	d := NewDecoder(Limits{})
	d.SetLimits(Limits{MaxDepth: 3})
	d.Enter("a")
	d.EnterIndex(0)
	_, ok, errs := subtreeErrs(d, valueOf(t, `"{}"`), "b")
	want := "CONSTRAINT_VIOLATION a[0].b: nesting is deeper than the limit of 3 levels (objects and arrays, counted from the top of the arguments, JSON text included)"
	if ok || strings.Join(errs, "\n") != want {
		t.Fatalf("got ok %v errors %q, want %q", ok, errs, want)
	}
	// A list item (key "") one level up still fits.
	d = NewDecoder(Limits{MaxDepth: 3})
	d.Enter("a")
	if keys, ok, errs := subtreeErrs(d, valueOf(t, `"{\"x\":1}"`), ""); !ok || keys != "x" || errs != nil {
		t.Fatalf("list item at depth 3: got %q %v %q", keys, ok, errs)
	}
}

// TestStructTextUsesTheDecoderLimits: JSON text of a Struct is read under
// the limits the decoder was given, not the defaults.
func TestStructTextUsesTheDecoderLimits(t *testing.T) {
	d := NewDecoder(Limits{MaxStringBytes: 8})
	if _, ok := d.Struct(valueOf(t, `"{\"k\":\"0123456789\"}"`), "attrs"); ok {
		t.Fatal("a Struct text with a string past MaxStringBytes was accepted")
	}
	if es := d.Errors(); len(es) != 1 || es[0].Code != CodeConstraintViolation || es[0].Field != "attrs.k" ||
		es[0].Message != "string is 10 bytes; the limit is 8 bytes" || es[0].Details["limit"] != 8 {
		t.Fatalf("errors %v, want one CONSTRAINT_VIOLATION at attrs.k with details.limit 8", es)
	}
}

// Every limit answers alike: the same tree too deep as objects and too
// deep as JSON text is refused with the same entry (code, full path of the
// first level past the limit, message, details.limit and hint), as are an
// array too long in place and in text.
func TestLimitsAnswerAlikeAsObjectsAndAsText(t *testing.T) {
	lim := Limits{MaxDepth: 6, MaxArrayLen: 2}
	format := func(es Errors) []string {
		var out []string
		for _, e := range es {
			out = append(out, fmt.Sprintf("%s %s: %s | limit=%v | %s", e.Code, e.Field, e.Message, e.Details["limit"], e.Suggestions.Hint))
		}
		return out
	}
	// answer reads the tree as a generated decoder does: one level at a time.
	answer := func(d *Decoder, obj *Object) []string {
		var walk func(o *Object)
		walk = func(o *Object) {
			for i, k := range o.Keys {
				if sub, ok := d.Subtree(o.Vals[i], k); ok {
					d.Enter(k)
					walk(sub)
					d.Leave()
				}
			}
		}
		walk(obj)
		return format(d.Errors())
	}
	deepObjects := `{"n":{"n":{"n":{"n":{"n":{"n":{}}}}}}}`
	deepText := `{"n":{"n":"{\"n\":{\"n\":{\"n\":{\"n\":{}}}}}"}}`
	_, es := Parse([]byte(deepObjects), lim)
	asObjects := format(es)
	obj, es := Parse([]byte(deepText), lim)
	if len(es) != 0 {
		t.Fatalf("text form: %v", es)
	}
	asText := answer(NewDecoder(lim), obj)
	want := []string{"CONSTRAINT_VIOLATION n.n.n.n.n.n: nesting is deeper than the limit of 6 levels (objects and arrays, counted from the top of the arguments, JSON text included) | limit=6 | " + tooDeepHint}
	if strings.Join(asObjects, "\n") != strings.Join(want, "\n") || strings.Join(asText, "\n") != strings.Join(want, "\n") {
		t.Errorf("too deep:\n as objects %q\n as text    %q\n want       %q", asObjects, asText, want)
	}

	_, es = Parse([]byte(`{"n":{"l":[1,2,3]}}`), lim)
	asObjects = format(es)
	obj, _ = Parse([]byte(`{"n":"{\"l\":[1,2,3]}"}`), lim)
	asText = answer(NewDecoder(lim), obj)
	want = []string{"CONSTRAINT_VIOLATION n.l: array has 3 elements; the limit is 2 | limit=2 | " + tooManyHint}
	if strings.Join(asObjects, "\n") != strings.Join(want, "\n") || strings.Join(asText, "\n") != strings.Join(want, "\n") {
		t.Errorf("too long:\n as objects %q\n as text    %q\n want       %q", asObjects, asText, want)
	}
}
