package wellknown_test

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/wellknown"
)

// Each reader takes the forms agents write and refuses the rest with the
// error kind its callers word.
func TestReadersTakeTheAgentFormsAndNameTheirErrors(t *testing.T) {
	show := func(v any, err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprint(v)
	}
	cases := []struct{ name, got, want string }{}
	add := func(name, got, want string) { cases = append(cases, struct{ name, got, want string }{name, got, want}) }
	ts := func(s string) string {
		v, err := wellknown.Timestamp(s)
		if err != nil {
			return show(nil, err)
		}
		return v.AsTime().UTC().Format("2006-01-02T15:04:05.999999999Z")
	}
	add("timestamp with offset", ts("2024-05-01T12:00:00+02:00"), "2024-05-01T10:00:00Z")
	add("timestamp in nanoseconds", ts("2024-05-01T12:00:00.123456789Z"), "2024-05-01T12:00:00.123456789Z")
	add("timestamp in words", ts("May 1"), "error: not of the form")
	add("timestamp before year 1", ts("0000-12-31T23:59:59Z"), "error: out of range")
	dur := func(s string) string {
		v, err := wellknown.Duration(s)
		if err != nil {
			return show(nil, err)
		}
		return fmt.Sprintf("%ds %dns", v.Seconds, v.Nanos)
	}
	add("protobuf duration", dur("1.5s"), "1s 500000000ns")
	add("negative protobuf duration", dur("-0.25s"), "0s -250000000ns")
	add("go duration", dur("1h30m"), "5400s 0ns")
	add("duration of 10000 years", dur("315576000000s"), "315576000000s 0ns")
	add("duration beyond 10000 years", dur("315576000001s"), "error: out of range")
	// Past nine fractional digits the Go form reads it, to the nanosecond.
	add("ten fractional digits", dur("1.1234567891s"), "1s 123456789ns")
	add("duration in words", dur("an hour"), "error: not of the form")
	mask := func(s string) string {
		paths, bad, ok := wellknown.FieldMask(s)
		if !ok {
			return "bad path " + bad
		}
		return strings.Join(paths, "|")
	}
	add("lowerCamel mask", mask("displayName, owner.teamId"), "display_name|owner.team_id")
	add("snake_case and whole-resource mask", mask("a_b,*"), "a_b|*")
	add("empty mask", mask("  "), "")
	add("empty segment", mask("a..b"), "bad path a..b")
	add("path starting with a digit", mask("a,1b"), "bad path 1b")
	b64 := func(s string) string {
		b, err := wellknown.Base64(s)
		var ce base64.CorruptInputError
		switch {
		case errors.As(err, &ce):
			return fmt.Sprintf("bad character at %d", int64(ce))
		case err != nil:
			return show(nil, err)
		}
		return fmt.Sprintf("%q", b)
	}
	add("padded standard base64", b64("aGk="), `"hi"`)
	add("unpadded base64", b64("aGk"), `"hi"`)
	add("URL alphabet", b64("-_8"), `"\xfb\xff"`)
	add("one character", b64("a"), "error: not of the form")
	add("three padding characters", b64("a==="), "error: not of the form")
	add("a bad character", b64("a*b="), "bad character at 1")
	add("empty", b64(""), `""`)
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, c.got, c.want)
		}
	}
}
