package impl

import (
	"fmt"
	"strconv"

	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/wellknown"
)

// The readers below decode the protobuf well-known types from their agent
// JSON forms.

// Timestamp reads an RFC 3339 string ("2024-05-01T12:00:00Z", any offset,
// up to nanoseconds) within the range of google.protobuf.Timestamp
// (wellknown.Timestamp).
func (d *Decoder) Timestamp(v *Value, key string) (*timestamppb.Timestamp, bool) {
	if !d.want(v, key, KindString) {
		return nil, false
	}
	ts, err := wellknown.Timestamp(v.Str)
	switch err {
	case nil:
		return ts, true
	case wellknown.ErrRange:
		d.violation(key, fmt.Sprintf("timestamp %s is outside 0001-01-01 to 9999-12-31", Excerpt(v.Str)))
	default:
		d.report(key, &ErrorEntry{
			Code:    CodeInvalidType,
			Message: fmt.Sprintf(`expected an RFC 3339 timestamp such as "2024-05-01T12:00:00Z", got %s`, Excerpt(v.Str)),
		})
	}
	return nil, false
}

// Duration reads a duration string. The protobuf JSON form ("1.5s", "-0.25s",
// "3600s") is canonical; Go-style durations ("90m", "1h30m", "250ms") are
// accepted too, because agents write them and they are unambiguous
// (wellknown.Duration).
func (d *Decoder) Duration(v *Value, key string) (*durationpb.Duration, bool) {
	if !d.want(v, key, KindString) {
		return nil, false
	}
	dur, err := wellknown.Duration(v.Str)
	switch err {
	case nil:
		return dur, true
	case wellknown.ErrRange:
		d.violation(key, fmt.Sprintf("duration %s is outside ±%ds", Excerpt(v.Str), wellknown.MaxDurationSeconds))
	default:
		d.report(key, &ErrorEntry{
			Code:    CodeInvalidType,
			Message: fmt.Sprintf(`expected a duration such as "1.5s" or "90m", got %s`, Excerpt(v.Str)),
		})
	}
	return nil, false
}

// FieldMask reads a comma-separated list of paths as the protobuf JSON form
// does ("displayName,owner.teamId"), converting lowerCamel segments to the
// proto field names; snake_case paths are accepted as they are, and blanks
// around commas are ignored. "" is the empty mask (wellknown.FieldMask).
func (d *Decoder) FieldMask(v *Value, key string) (*fieldmaskpb.FieldMask, bool) {
	if !d.want(v, key, KindString) {
		return nil, false
	}
	paths, bad, ok := wellknown.FieldMask(v.Str)
	if !ok {
		d.report(key, &ErrorEntry{
			Code:    CodeInvalidType,
			Message: fmt.Sprintf(`expected a field mask such as "name,description", got invalid path %s`, ClipQuote(bad)),
		})
		return nil, false
	}
	fm := &fieldmaskpb.FieldMask{}
	if len(paths) > 0 {
		fm.Paths = paths
	}
	return fm, true
}

// Struct reads a JSON object as google.protobuf.Struct.
func (d *Decoder) Struct(v *Value, key string) (*structpb.Struct, bool) {
	v, ok := d.jsonText(v, key, KindObject)
	if !ok || !d.want(v, key, KindObject) {
		return nil, false
	}
	d.Enter(key)
	s, ok := d.structOf(v.Obj)
	d.Leave()
	return s, ok
}

// StructValue reads google.protobuf.Value: JSON text in a string (what the
// schema asks for, so strict clients can send any value; "null" is a null
// value), or the value itself. A JSON null given here (a list element or a
// map value: generated code treats a null field as absent before asking) is
// a null value, kept as the agent sent it.
func (d *Decoder) StructValue(v *Value, key string) (*structpb.Value, bool) {
	if v == nil {
		return nil, false
	}
	v, ok := d.jsonText(v, key, 0)
	if !ok {
		return nil, false
	}
	d.Enter(key)
	sv, ok := d.structValueOf(v)
	d.Leave()
	return sv, ok
}

// ListValue reads google.protobuf.ListValue: JSON text of an array in a
// string, or the array itself.
func (d *Decoder) ListValue(v *Value, key string) (*structpb.ListValue, bool) {
	v, ok := d.jsonText(v, key, KindArray)
	if !ok || !d.want(v, key, KindArray) {
		return nil, false
	}
	d.Enter(key)
	l, ok := d.listOf(v.Arr)
	d.Leave()
	return l, ok
}

// jsonText parses a string holding JSON text for a free-form field; any
// other value is returned as it is. want (0: any kind) names the kind the
// text must hold. In a google.protobuf.Value position (want 0), text that is
// not JSON is the string itself: agents send "OK" as often as "\"OK\"" for a
// text value, and both mean the string OK. Text that parses as JSON is that
// JSON ("42" is a number, "null" a null value): the one ambiguity, stated in
// docs/schemas.md.
func (d *Decoder) jsonText(v *Value, key string, want Kind) (*Value, bool) {
	if v == nil || v.Kind != KindString {
		return v, true
	}
	parsed, es := ParseValue([]byte(v.Str), d.limits())
	if len(es) > 0 && isLimit(es[0]) {
		d.reportTextLimit(key, es[0], d.limits().MaxDepth)
		return nil, false
	}
	if len(es) > 0 && want == 0 {
		return &Value{Kind: KindString, Str: v.Str}, true
	}
	if len(es) > 0 {
		d.report(key, &ErrorEntry{
			Code:    CodeInvalidJSON,
			Message: fmt.Sprintf("%s must be JSON text (%s)", key, es[0].Message),
			Suggestions: &Suggestions{
				Hint: `Send the value as JSON text in a string, e.g. "{\"team\":\"payments\"}" for an object or "\"text\"" for a string.`,
			},
		})
		return nil, false
	}
	if want != 0 && parsed.Kind != want {
		d.report(key, &ErrorEntry{
			Code:    CodeInvalidType,
			Message: fmt.Sprintf("%s must be JSON text of %s %s, got %s %s", key, article(JSONKind(want)), JSONKind(want), article(JSONKind(parsed.Kind)), JSONKind(parsed.Kind)),
			Details: map[string]any{"expected": JSONKind(want), "got": JSONKind(parsed.Kind)},
		})
		return nil, false
	}
	if parsed.Kind == KindNull {
		return &Value{Kind: KindNull, Str: "null"}, true
	}
	return parsed, true
}

// structOf, listOf and structValueOf convert the value at the current path.
func (d *Decoder) structOf(o *Object) (*structpb.Struct, bool) {
	s := &structpb.Struct{Fields: make(map[string]*structpb.Value, len(o.Keys))}
	ok := true
	for i, k := range o.Keys {
		d.Enter(k)
		sv, vok := d.structValueOf(o.Vals[i])
		d.Leave()
		ok = ok && vok
		s.Fields[k] = sv
	}
	return s, ok
}

func (d *Decoder) listOf(a []*Value) (*structpb.ListValue, bool) {
	l := &structpb.ListValue{Values: make([]*structpb.Value, len(a))}
	ok := true
	for i, e := range a {
		d.EnterIndex(i)
		sv, vok := d.structValueOf(e)
		d.Leave()
		ok = ok && vok
		l.Values[i] = sv
	}
	return l, ok
}

func (d *Decoder) structValueOf(v *Value) (*structpb.Value, bool) {
	if v == nil {
		return structpb.NewNullValue(), true
	}
	switch v.Kind {
	case KindBool:
		return structpb.NewBoolValue(v.Bool), true
	case KindNumber:
		f, err := strconv.ParseFloat(v.Str, 64)
		if err != nil {
			d.violation("", fmt.Sprintf("number %s is out of range for double", clipNumber(v.Str)))
			return nil, false
		}
		return structpb.NewNumberValue(f), true
	case KindString:
		return structpb.NewStringValue(v.Str), true
	case KindArray:
		l, ok := d.listOf(v.Arr)
		return structpb.NewListValue(l), ok
	case KindObject:
		s, ok := d.structOf(v.Obj)
		return structpb.NewStructValue(s), ok
	}
	return structpb.NewNullValue(), true
}
