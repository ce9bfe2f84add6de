package impl

import (
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/wellknown"
)

// JSONKind names a JSON kind as agents know it.
func JSONKind(k Kind) string {
	switch k {
	case KindNull:
		return "null"
	case KindBool:
		return "boolean"
	case KindNumber:
		return "number"
	case KindString:
		return "string"
	case KindArray:
		return "array"
	case KindObject:
		return "object"
	}
	return "unknown"
}

// want checks that v is present and of kind k, reporting a wrong type.
func (d *Decoder) want(v *Value, key string, k Kind) bool {
	if !v.Present() {
		return false
	}
	if v.Kind != k {
		d.typeError(v, key, JSONKind(k), "")
		return false
	}
	return true
}

func (d *Decoder) typeError(v *Value, key, expected, hint string) {
	e := &ErrorEntry{Code: CodeInvalidType, Message: "expected " + expected + ", got " + JSONKind(v.Kind)}
	if hint != "" {
		e.Suggestions = &Suggestions{Hint: hint}
	}
	d.report(key, e)
}

func (d *Decoder) violation(key, msg string) {
	d.report(key, &ErrorEntry{Code: CodeConstraintViolation, Message: msg})
}

// String reads a JSON string.
func (d *Decoder) String(v *Value, key string) (string, bool) {
	if !d.want(v, key, KindString) {
		return "", false
	}
	return v.Str, true
}

// Bool reads a JSON boolean.
func (d *Decoder) Bool(v *Value, key string) (bool, bool) {
	if !d.want(v, key, KindBool) {
		return false, false
	}
	return v.Bool, true
}

// Int32 reads an integral JSON number (1, 1.0, 1e2) in the int32 range.
func (d *Decoder) Int32(v *Value, key string) (int32, bool) {
	n, ok := d.integer(v, key, "int32", math.MinInt32, math.MaxInt32)
	return int32(n), ok
}

// Uint32 reads an integral JSON number in the uint32 range.
func (d *Decoder) Uint32(v *Value, key string) (uint32, bool) {
	n, ok := d.integer(v, key, "uint32", 0, math.MaxUint32)
	return uint32(n), ok
}

func (d *Decoder) integer(v *Value, key, typ string, lo, hi int64) (int64, bool) {
	if !v.Present() {
		return 0, false
	}
	if v.Kind != KindNumber {
		d.typeError(v, key, "integer", "")
		return 0, false
	}
	outOfRange := func() (int64, bool) {
		d.violation(key, fmt.Sprintf("value %s is out of range for %s (%d to %d)", clipNumber(v.Str), typ, lo, hi))
		return 0, false
	}
	n, err := strconv.ParseInt(v.Str, 10, 64)
	if err != nil {
		if strings.ContainsAny(v.Str, ".eE") {
			f, ferr := strconv.ParseFloat(v.Str, 64)
			if ferr != nil {
				return outOfRange()
			}
			if f != math.Trunc(f) {
				d.report(key, &ErrorEntry{Code: CodeInvalidType, Message: "expected integer, got " + clipNumber(v.Str)})
				return 0, false
			}
			if f < float64(lo) || f > float64(hi) {
				return outOfRange()
			}
			return int64(f), true
		}
		return outOfRange()
	}
	if n < lo || n > hi {
		return outOfRange()
	}
	return n, true
}

// hint64 tells agents how 64-bit integers travel in JSON.
const hint64 = `send 64-bit integers as strings, e.g. "42"`

// Int64 reads a 64-bit integer sent as a JSON string of decimal digits
// (the schema says string, since JSON numbers lose precision above 2^53).
func (d *Decoder) Int64(v *Value, key string) (int64, bool) {
	s, ok := d.int64String(v, key)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		d.violation(key, fmt.Sprintf("value %s is out of range for int64 (%d to %d)", clipNumber(s), int64(math.MinInt64), int64(math.MaxInt64)))
		return 0, false
	}
	return n, true
}

// Uint64 reads an unsigned 64-bit integer sent as a JSON string.
func (d *Decoder) Uint64(v *Value, key string) (uint64, bool) {
	s, ok := d.int64String(v, key)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		d.violation(key, fmt.Sprintf("value %s is out of range for uint64 (0 to %d)", clipNumber(s), uint64(math.MaxUint64)))
		return 0, false
	}
	return n, true
}

func (d *Decoder) int64String(v *Value, key string) (string, bool) {
	if !v.Present() {
		return "", false
	}
	if v.Kind != KindString {
		d.typeError(v, key, "string", hint64)
		return "", false
	}
	s := v.Str
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		d.report(key, &ErrorEntry{
			Code:        CodeInvalidType,
			Message:     "expected a decimal integer string, got " + Excerpt(s),
			Suggestions: &Suggestions{Hint: hint64},
		})
		return "", false
	}
	return s, true
}

// Float32 reads a JSON number in the float range.
func (d *Decoder) Float32(v *Value, key string) (float32, bool) {
	f, ok := d.float(v, key, 32, "float")
	return float32(f), ok
}

// Float64 reads a JSON number in the double range; a literal such as 1e999
// is out of range (CONSTRAINT_VIOLATION). Numbers only: NaN and Infinity
// cannot be sent.
func (d *Decoder) Float64(v *Value, key string) (float64, bool) {
	return d.float(v, key, 64, "double")
}

func (d *Decoder) float(v *Value, key string, bits int, typ string) (float64, bool) {
	if !d.want(v, key, KindNumber) {
		return 0, false
	}
	f, err := strconv.ParseFloat(v.Str, bits)
	if err != nil {
		d.violation(key, fmt.Sprintf("number %s is out of range for %s", clipNumber(v.Str), typ))
		return 0, false
	}
	return f, true
}

// clipNumber shortens a number literal for a message.
func clipNumber(s string) string {
	if len(s) > clipLen {
		return s[:clipLen] + "…"
	}
	return s
}

// Bytes reads base64 data in the standard or URL alphabet, with or without
// padding.
func (d *Decoder) Bytes(v *Value, key string) ([]byte, bool) {
	if !d.want(v, key, KindString) {
		return nil, false
	}
	b, err := wellknown.Base64(v.Str)
	if err == wellknown.ErrSyntax {
		d.report(key, &ErrorEntry{Code: CodeInvalidType, Message: fmt.Sprintf("expected base64 data, got %d characters (base64 is groups of 4, the last padded with = or cut to 2 or 3)", len(v.Str))})
		return nil, false
	}
	if err != nil {
		msg := "expected base64 data, got an invalid string"
		if ce, ok := err.(base64.CorruptInputError); ok {
			msg = fmt.Sprintf("expected base64 data, got an invalid character at offset %d", int64(ce))
		}
		d.report(key, &ErrorEntry{Code: CodeInvalidType, Message: msg})
		return nil, false
	}
	return b, true
}

// Enum reads an agent-facing enum name through t (see EnumTable.Lookup).
// An unknown name is INVALID_ENUM_VALUE with did_you_mean, the offered
// aliases as valid_values and t.Hint.
func (d *Decoder) Enum(v *Value, key string, t *EnumTable) (int32, bool) {
	if !v.Present() {
		return 0, false
	}
	if t == nil {
		d.report(key, &ErrorEntry{Code: CodeInternal, Message: "no enum table for " + key})
		return 0, false
	}
	if v.Kind != KindString {
		e := &ErrorEntry{Code: CodeInvalidType, Message: "expected string, got " + JSONKind(v.Kind), Suggestions: t.suggestions()}
		d.report(key, e)
		return 0, false
	}
	if n, ok := t.Lookup(v.Str); ok {
		return n, true
	}
	s := t.suggestions()
	s.DidYouMean = t.closest(v.Str)
	name := key
	if name == "" { // a list element: name it by its path (tags[2])
		name = d.Path("")
	}
	msg := fmt.Sprintf("invalid value %s for %s", Excerpt(v.Str), name)
	if len(s.DidYouMean) > 0 {
		msg += fmt.Sprintf("; did you mean %q?", s.DidYouMean[0])
	}
	d.report(key, &ErrorEntry{Code: CodeInvalidEnumValue, Message: msg, Suggestions: s, Rejected: v.Str})
	return 0, false
}

// Object reads a JSON object.
func (d *Decoder) Object(v *Value, key string) (*Object, bool) {
	if !d.want(v, key, KindObject) {
		return nil, false
	}
	return v.Obj, true
}

// Array reads a JSON array.
func (d *Decoder) Array(v *Value, key string) ([]*Value, bool) {
	if !d.want(v, key, KindArray) {
		return nil, false
	}
	return v.Arr, true
}

// Vocabulary reads a value of the live vocabulary name for the call's
// tenant through d.Vocabularies. A decoder made outside a tool call has
// none: it returns the string as sent (Preparer.Decode; Prepare checks it).
func (d *Decoder) Vocabulary(v *Value, key, name string) (string, bool) {
	s, ok := d.String(v, key)
	if !ok || d.Vocabularies == nil {
		return s, ok
	}
	c, problem, ok := d.Vocabularies.LookupVocabulary(d, key, name, s)
	if ok {
		return c, true
	}
	if problem != nil {
		d.report(key, problem)
	}
	return "", false
}
