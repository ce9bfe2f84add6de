package impl

import (
	"reflect"
	"strings"
	"testing"
)

// An error message never repeats a whole value the agent sent: at most
// half of it, at most twelve characters, marked cut.
func TestExcerptNeverQuotesAWholeValue(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"JaneDoeSSN123", `"JaneDo…"`},
		{"x", `"…"`},
		{"", `"…"`},
		{"ab", `"a…"`},
		{strings.Repeat("é", 40), `"` + strings.Repeat("é", 12) + `…"`},
		{"a\"b\nc", `"a\"…"`},
	} {
		if got := Excerpt(tt.in); got != tt.want {
			t.Errorf("Excerpt(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// Every decoder path that used to repeat a rejected value now quotes an
// excerpt: JSON syntax (bare words, numbers), JSON text in a Struct/Value
// field, enum values, buf.validate string rules and well-known types. The
// whole value appears in no message.
func TestRejectedValuesAreExcerptedInEveryMessage(t *testing.T) {
	const secret = "JaneDoeSSN123"
	obj, errs := Parse([]byte(`{"a":JaneDoeSSN123,"b":1234-56-789}`), Limits{})
	if obj != nil {
		t.Fatalf("parsed %+v", obj)
	}
	d := NewDecoder(Limits{})
	d.Struct(&Value{Kind: KindString, Str: "{" + secret}, "note")
	d.Enum(&Value{Kind: KindString, Str: secret}, "type", archimateTable())
	d.HasPrefix("ref", secret, "REF-")
	d.Timestamp(&Value{Kind: KindString, Str: secret}, "at")
	d.Duration(&Value{Kind: KindString, Str: secret}, "ttl")
	d.Int64(&Value{Kind: KindString, Str: secret}, "n")
	got := append(linesOf(errs), linesOf(d.Errors())...)
	want := []errLine{
		bad(5, `unexpected word "JaneDo…"; strings must be in double quotes`, "a"),
		bad(23, `malformed number "1234-…"`, "b"),
		{CodeInvalidJSON, `note must be JSON text (invalid JSON at byte 1: expected a double-quoted object key, found 'J')`, "note"},
		{CodeInvalidEnumValue, `invalid value "JaneDo…" for type`, "type"},
		{CodeConstraintViolation, `must start with "REF-", got "JaneDo…"`, "ref"},
		{CodeInvalidType, `expected an RFC 3339 timestamp such as "2024-05-01T12:00:00Z", got "JaneDo…"`, "at"},
		{CodeInvalidType, `expected a duration such as "1.5s" or "90m", got "JaneDo…"`, "ttl"},
		{CodeInvalidType, `expected a decimal integer string, got "JaneDo…"`, "n"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n got %q\nwant %q", got, want)
	}
	for _, e := range got {
		if strings.Contains(e.msg, secret) || strings.Contains(e.msg, "1234-56-789") {
			t.Errorf("message repeats the whole value: %s", e.msg)
		}
	}
}
