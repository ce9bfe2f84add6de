package impl

import (
	"bytes"
	"fmt"
)

// Parse parses tool arguments strictly into an object.
//
// Empty input (or only whitespace) and JSON null are an empty object; any
// other root must be an object. Every problem is reported, in input order,
// with a JSON path in Field: syntax errors (INVALID_JSON, with the byte
// offset in the message and in Details["offset"]), duplicate keys
// (VALIDATION_ERROR), invalid UTF-8, lone surrogate escapes, NaN and
// Infinity, leading zeros, a byte order mark, and the per-value limits
// (CONSTRAINT_VIOLATION). A payload above MaxBytes is rejected before
// parsing (PAYLOAD_TOO_LARGE). Recoverable problems do not stop the parse,
// so one round trip shows all of them; a syntax error that leaves the
// structure ambiguous ends it.
//
// The object is returned only when there is no error. Strings are not
// copied beyond the limits, and memory stays proportional to the payload.
func Parse(raw []byte, lim Limits) (*Object, Errors) {
	return ParseObjectInto(raw, lim, nil)
}

// ParseObjectInto is Parse with the tree's storage taken from s when s is
// not nil (see scratch); the tree is then valid until s is released.
func ParseObjectInto(raw []byte, lim Limits, s *Scratch) (*Object, Errors) {
	lim = lim.WithDefaults()
	if len(raw) > lim.MaxBytes {
		return nil, Errors{{
			Code:        CodePayloadTooLarge,
			Message:     fmt.Sprintf("arguments are %d bytes; the limit is %d bytes", len(raw), lim.MaxBytes),
			Details:     map[string]any{"size": len(raw), "limit": lim.MaxBytes},
			Suggestions: &Suggestions{Hint: tooLargeHint},
		}}
	}
	p := jsonParser{raw: raw, lim: lim, build: true, scratch: s}
	p.skipSpace()
	if p.pos == len(raw) {
		return &Object{}, nil
	}
	if bytes.HasPrefix(raw[p.pos:], utf8BOM) {
		p.syntax(p.pos, 0, "byte order mark is not allowed; send UTF-8 without a BOM")
		return nil, p.errs
	}
	var root *Value
	switch c := raw[p.pos]; {
	case c == '{':
		p.prepare()
		root = p.parseObject(1)
	case c == '[' || c == '"' || c == '-' || isDigit(c):
		name := map[byte]string{'[': "array", '"': "string"}[c]
		if name == "" {
			name = "number"
		}
		return nil, Errors{rootTypeError(name)}
	case isLetter(c):
		// Only null stands for an object; true and false are the wrong type.
		p.build = false
		start := p.pos
		p.parseLiteral(1)
		switch string(raw[start:p.pos]) {
		case "true", "false":
			return nil, Errors{rootTypeError("boolean")}
		case "null":
			p.build = true
		}
	default:
		p.syntax(p.pos, 0, "expected a JSON object, found "+describeByte(raw, p.pos))
	}
	if !p.fatal {
		p.skipSpace()
		if p.pos < len(raw) {
			p.syntax(p.pos, 0, "unexpected data after the top-level value")
		}
	}
	if len(p.errs) > 0 {
		p.sortErrors()
		return nil, p.errs
	}
	if root == nil {
		return &Object{}, nil
	}
	return root.Obj, nil
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// ParseValue parses one JSON value of any kind with the rules and limits of
// Parse: the JSON text an agent sends in a string for a free-form field
// (google.protobuf.Value, Struct, ListValue). Empty input is an error.
func ParseValue(raw []byte, lim Limits) (*Value, Errors) {
	lim = lim.WithDefaults()
	if len(raw) > lim.MaxBytes {
		return nil, Errors{{
			Code:        CodePayloadTooLarge,
			Message:     fmt.Sprintf("JSON text is %d bytes; the limit is %d bytes", len(raw), lim.MaxBytes),
			Details:     map[string]any{"size": len(raw), "limit": lim.MaxBytes},
			Suggestions: &Suggestions{Hint: tooLargeHint},
		}}
	}
	p := jsonParser{raw: raw, lim: lim, build: true}
	p.skipSpace()
	if p.pos == len(raw) {
		p.syntax(p.pos, 0, "expected a JSON value, found nothing")
		return nil, p.errs
	}
	if bytes.HasPrefix(raw[p.pos:], utf8BOM) {
		p.syntax(p.pos, 0, "byte order mark is not allowed; send UTF-8 without a BOM")
		return nil, p.errs
	}
	p.prepare()
	v := p.parseValue(1)
	if !p.fatal {
		p.skipSpace()
		if p.pos < len(raw) {
			p.syntax(p.pos, 0, "unexpected data after the JSON value")
		}
	}
	if len(p.errs) > 0 {
		p.sortErrors()
		return nil, p.errs
	}
	return v, nil
}

func rootTypeError(got string) *ErrorEntry {
	return &ErrorEntry{Code: CodeInvalidType, Message: "arguments must be a JSON object, got " + got}
}
