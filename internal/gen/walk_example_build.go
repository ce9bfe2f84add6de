package gen

// The request a tool example decodes to, built as the generated decoder
// builds it from an agent's call (emit_decode.go): agent names to fields,
// aliases to enum numbers, defaults for fields left out, JSON-text levels
// and map entries read, the well-known types and bytes read by the
// functions the decoder calls (internal/wellknown), and the constants the
// server fills. Fields the server fills otherwise are left out: their
// values are known only on a call. A value the decoder would refuse is
// left out too and its reason kept; the check over the model
// (walk_example_check.go) words most of them already.

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/wellknown"
)

// wrapperTypes are the wrappers the decoder reads from their value, and
// textTypes the well-known types it reads from JSON (by its reader's
// name), as the generated decoder calls them (emit_decode.go).
var (
	wrapperTypes = map[protoreflect.FullName]bool{
		"google.protobuf.DoubleValue": true, "google.protobuf.FloatValue": true,
		"google.protobuf.Int64Value": true, "google.protobuf.UInt64Value": true,
		"google.protobuf.Int32Value": true, "google.protobuf.UInt32Value": true,
		"google.protobuf.BoolValue": true, "google.protobuf.StringValue": true,
		"google.protobuf.BytesValue": true,
	}
	textTypes = map[protoreflect.FullName]string{
		"google.protobuf.Timestamp": "Timestamp",
		"google.protobuf.Duration":  "Duration",
		"google.protobuf.FieldMask": "FieldMask",
		"google.protobuf.Struct":    "Struct",
		"google.protobuf.Value":     "StructValue",
		"google.protobuf.ListValue": "ListValue",
	}
)

// exampleBuild collects what building one example's request found.
type exampleBuild struct {
	// problems are values the decoder refuses, as "path: reason".
	problems []string
	// unjudged are the paths whose value the plugin cannot know as the
	// server will (an Any, a live vocabulary's value): rules there are
	// the server's to check.
	unjudged []string
	// sent are the agent paths of the fields the decoded request holds
	// (an overridable field it leaves unset is the server's to fill).
	sent map[string]bool
}

// message builds the message of m from obj, the fields at prefix.
func (x *exampleBuild) message(m *messageModel, obj map[string]any, prefix string) *dynamicpb.Message {
	msg := dynamicpb.NewMessage(m.proto.Desc)
	for _, f := range m.fields {
		fd := f.proto.Desc
		if f.exposed() {
			v := obj[f.agentName]
			path := prefix + f.agentName
			if v == nil {
				x.setDefault(msg, f)
				continue
			}
			if val, ok := x.fieldValue(msg, f, v, path); ok {
				msg.Set(fd, val)
			}
			// The server fills an overridable field the decoded request
			// leaves unset (an empty string too, without presence).
			x.sent[path] = msg.Has(fd)
			continue
		}
		if f.fill != nil && f.fill.source == fillConstant {
			if val, ok := constantValue(f); ok {
				msg.Set(fd, val)
			}
		}
	}
	return msg
}

// setDefault sets what an omitted field takes: its default, if any.
func (x *exampleBuild) setDefault(msg *dynamicpb.Message, f *fieldModel) {
	fd := f.proto.Desc
	switch {
	case f.required && !f.overridable:
	case f.value != nil && f.value.deflt != nil:
		if val, ok := literalValue(f, f.value.deflt.jsonValue); ok {
			msg.Set(fd, val)
		}
	case f.enumDefault != nil:
		msg.Set(fd, protoreflect.ValueOfEnum(f.enumDefault.value.Desc.Number()))
	}
}

// constantValue is the value a derived.constant fills f with.
func constantValue(f *fieldModel) (protoreflect.Value, bool) {
	var v any
	if json.Unmarshal([]byte(f.fill.constantText), &v) != nil {
		return protoreflect.Value{}, false
	}
	if e := f.proto.Desc.Enum(); e != nil {
		if s, ok := v.(string); ok {
			if ev := e.Values().ByName(protoreflect.Name(s)); ev != nil {
				return protoreflect.ValueOfEnum(ev.Number()), true
			}
		}
		if n, ok := v.(float64); ok {
			return protoreflect.ValueOfEnum(protoreflect.EnumNumber(n)), true
		}
		return protoreflect.Value{}, false
	}
	return literalValue(f, f.fill.constant.jsonValue)
}

// literalValue is the value of f's checked literal (a default or a
// constant) from its JSON value as goLiteral decoded it: 64-bit integers
// as strings, other integers as int64 or uint64.
func literalValue(f *fieldModel, jv any) (protoreflect.Value, bool) {
	switch n := jv.(type) {
	case int64:
		jv = float64(n)
	case uint64:
		jv = float64(n)
	}
	return (&exampleBuild{sent: map[string]bool{}}).scalar(f, f.proto.Desc, jv, "")
}

// fieldValue is the whole value of field f (a list, a map or one value).
func (x *exampleBuild) fieldValue(msg *dynamicpb.Message, f *fieldModel, v any, path string) (protoreflect.Value, bool) {
	fd := f.proto.Desc
	switch {
	case fd.IsMap():
		keys, vals, bad := mapEntries(v, path)
		if keys == nil && bad != nil {
			return protoreflect.Value{}, false
		}
		mv := msg.NewField(fd).Map()
		for i, k := range keys {
			mk, ok := mapKey(fd.MapKey().Kind(), k)
			if !ok || vals[i] == nil {
				continue
			}
			if val, ok := x.value(f, fd.MapValue(), vals[i], path+"."+k); ok {
				mv.Set(mk, val)
			}
		}
		return protoreflect.ValueOfMap(mv), true
	case fd.IsList():
		xs, ok := v.([]any)
		if !ok {
			return protoreflect.Value{}, false
		}
		lv := msg.NewField(fd).List()
		for i, item := range xs {
			if item == nil {
				continue
			}
			if val, ok := x.value(f, fd, item, fmt.Sprintf("%s[%d]", path, i)); ok {
				lv.Append(val)
			}
		}
		return protoreflect.ValueOfList(lv), true
	}
	return x.value(f, fd, v, path)
}

// mapKey reads map key k of kind kind (mapKeyProblem words a bad one).
func mapKey(kind protoreflect.Kind, k string) (protoreflect.MapKey, bool) {
	switch kind {
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(k).MapKey(), true
	case protoreflect.BoolKind:
		b, err := strconv.ParseBool(k)
		return protoreflect.ValueOfBool(b).MapKey(), err == nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		n, err := strconv.ParseInt(k, 10, 32)
		return protoreflect.ValueOfInt32(int32(n)).MapKey(), err == nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		n, err := strconv.ParseInt(k, 10, 64)
		return protoreflect.ValueOfInt64(n).MapKey(), err == nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		n, err := strconv.ParseUint(k, 10, 32)
		return protoreflect.ValueOfUint32(uint32(n)).MapKey(), err == nil
	}
	n, err := strconv.ParseUint(k, 10, 64)
	return protoreflect.ValueOfUint64(n).MapKey(), err == nil
}

// value is one singular value of f, of type fd (the field, or a map's
// value field).
func (x *exampleBuild) value(f *fieldModel, fd protoreflect.FieldDescriptor, v any, path string) (protoreflect.Value, bool) {
	switch {
	case fd.Enum() != nil:
		s, _ := v.(string)
		if f.enumTable == nil {
			return protoreflect.Value{}, false
		}
		av, ok := f.enumTable.find(s)
		if !ok {
			return protoreflect.Value{}, false // exampleItemProblems words it
		}
		return protoreflect.ValueOfEnum(av.value.Desc.Number()), true
	case fd.Message() != nil:
		return x.messageValue(f, fd.Message(), v, path)
	}
	if f.vocab != nil || f.resolver != nil {
		// A live vocabulary's canonical value, or the id a reference
		// resolves the agent's text to, is known only on a call.
		x.unjudged = append(x.unjudged, path)
	}
	return x.scalar(f, fd, v, path)
}

// messageValue is a message value: a well-known type read from its text,
// a wrapper from its value, or a message of f's model.
func (x *exampleBuild) messageValue(f *fieldModel, md protoreflect.MessageDescriptor, v any, path string) (protoreflect.Value, bool) {
	name := md.FullName()
	switch {
	case name == anyFullName:
		x.unjudged = append(x.unjudged, path)
		return protoreflect.Value{}, false
	case wrapperTypes[name]:
		inner, ok := x.scalar(f, md.Fields().ByName("value"), v, path)
		if !ok {
			return protoreflect.Value{}, false
		}
		w := dynamicpb.NewMessage(md)
		w.Set(md.Fields().ByName("value"), inner)
		return protoreflect.ValueOfMessage(w), true
	case textTypes[name] != "":
		m, ok := x.wellKnown(name, v, path)
		if !ok {
			return protoreflect.Value{}, false
		}
		return asDynamic(md, m)
	}
	if f.child == nil {
		return protoreflect.Value{}, false
	}
	obj, ok := v.(map[string]any)
	if text, isText := v.(string); !ok && isText && (f.child.recursive || f.textOK) {
		var parsed any
		if json.Unmarshal([]byte(text), &parsed) != nil {
			return protoreflect.Value{}, false
		}
		if parsed == nil {
			return protoreflect.Value{}, false // null text: no value
		}
		obj, ok = parsed.(map[string]any)
	}
	if !ok {
		return protoreflect.Value{}, false
	}
	return protoreflect.ValueOfMessage(x.message(f.child, obj, path+".")), true
}

// asDynamic copies m into a message of md: the request's descriptors are
// the plugin's, not the linked well-known types'.
func asDynamic(md protoreflect.MessageDescriptor, m proto.Message) (protoreflect.Value, bool) {
	b, err := proto.Marshal(m)
	if err != nil {
		return protoreflect.Value{}, false
	}
	out := dynamicpb.NewMessage(md)
	if proto.Unmarshal(b, out) != nil {
		return protoreflect.Value{}, false
	}
	return protoreflect.ValueOfMessage(out), true
}

// wellKnown reads a Timestamp, Duration, FieldMask, Struct, Value or
// ListValue as the decoder's readers do (decoder_wellknown.go).
func (x *exampleBuild) wellKnown(name protoreflect.FullName, v any, path string) (proto.Message, bool) {
	s, isText := v.(string)
	bad := func(reason string) (proto.Message, bool) {
		x.problems = append(x.problems, path+": "+reason)
		return nil, false
	}
	switch textTypes[name] {
	case "Timestamp", "Duration", "FieldMask":
		if !isText {
			return bad("expected a string, got " + jsonKindOf(v))
		}
	}
	switch textTypes[name] {
	case "Timestamp":
		ts, err := wellknown.Timestamp(s)
		if err == wellknown.ErrRange {
			return bad(fmt.Sprintf("timestamp %q is outside 0001-01-01 to 9999-12-31", s))
		}
		if err != nil {
			return bad(fmt.Sprintf(`expected an RFC 3339 timestamp such as "2024-05-01T12:00:00Z", got %q`, s))
		}
		return ts, true
	case "Duration":
		d, err := wellknown.Duration(s)
		if err == wellknown.ErrRange {
			return bad(fmt.Sprintf("duration %q is outside ±%ds", s, wellknown.MaxDurationSeconds))
		}
		if err != nil {
			return bad(fmt.Sprintf(`expected a duration such as "1.5s" or "90m", got %q`, s))
		}
		return d, true
	case "FieldMask":
		paths, badPath, ok := wellknown.FieldMask(s)
		if !ok {
			return bad(fmt.Sprintf(`expected a field mask such as "name,description", got invalid path %q`, badPath))
		}
		return &fieldmaskpb.FieldMask{Paths: paths}, true
	}
	return x.structValue(textTypes[name], v, path)
}

// structValue reads a Struct (an object), a ListValue (an array) or a
// Value (anything), each also as JSON text in a string; in a Value's
// place, text that is not JSON is the string itself.
func (x *exampleBuild) structValue(reader string, v any, path string) (proto.Message, bool) {
	if s, isText := v.(string); isText {
		var parsed any
		switch err := json.Unmarshal([]byte(s), &parsed); {
		case err != nil && reader == "StructValue":
			return structpb.NewStringValue(s), true
		case err != nil:
			x.problems = append(x.problems, fmt.Sprintf("%s: must be JSON text (%v)", path, err))
			return nil, false
		}
		v = parsed
	}
	want := map[string]string{"Struct": "an object", "ListValue": "an array"}[reader]
	switch y := v.(type) {
	case map[string]any:
		if reader == "Struct" {
			s, err := structpb.NewStruct(y)
			return s, err == nil
		}
	case []any:
		if reader == "ListValue" {
			l, err := structpb.NewList(y)
			return l, err == nil
		}
	}
	if reader == "StructValue" {
		sv, err := structpb.NewValue(v)
		return sv, err == nil
	}
	x.problems = append(x.problems, fmt.Sprintf("%s: expected %s, got %s", path, want, jsonKindOf(v)))
	return nil, false
}

// scalar reads a JSON value of scalar field fd as the decoder's readers
// do (decoder_reads.go): strings and booleans as themselves, 32-bit
// integers and floats from integral (or any) numbers in range, 64-bit
// integers from decimal strings, bytes from base64.
func (x *exampleBuild) scalar(f *fieldModel, fd protoreflect.FieldDescriptor, v any, path string) (protoreflect.Value, bool) {
	bad := func(reason string) (protoreflect.Value, bool) {
		if path != "" {
			x.problems = append(x.problems, path+": "+reason)
		}
		return protoreflect.Value{}, false
	}
	s, isText := v.(string)
	n, isNum := v.(float64)
	switch k := fd.Kind(); k {
	case protoreflect.StringKind:
		if !isText {
			return bad("expected a string, got " + jsonKindOf(v))
		}
		return protoreflect.ValueOfString(s), true
	case protoreflect.BoolKind:
		b, ok := v.(bool)
		if !ok {
			return bad("expected a boolean, got " + jsonKindOf(v))
		}
		return protoreflect.ValueOfBool(b), true
	case protoreflect.BytesKind:
		if !isText {
			return bad("expected a string of base64 data, got " + jsonKindOf(v))
		}
		b, err := wellknown.Base64(s)
		if err != nil {
			return bad("expected base64 data, got an invalid string")
		}
		return protoreflect.ValueOfBytes(b), true
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		if !isNum {
			return bad("expected a number, got " + jsonKindOf(v))
		}
		if k == protoreflect.FloatKind {
			if math.Abs(n) > math.MaxFloat32 {
				return bad("number " + number(n) + " is out of range for float")
			}
			return protoreflect.ValueOfFloat32(float32(n)), true
		}
		return protoreflect.ValueOfFloat64(n), true
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return x.int64Text(k, v, bad)
	}
	if !isNum {
		return bad("expected an integer, got " + jsonKindOf(v))
	}
	if n != math.Trunc(n) {
		return bad("expected an integer, got " + number(n))
	}
	switch fd.Kind() {
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		if n < 0 || n > math.MaxUint32 {
			return bad(fmt.Sprintf("value %s is out of range for uint32 (0 to %d)", number(n), uint32(math.MaxUint32)))
		}
		return protoreflect.ValueOfUint32(uint32(n)), true
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		return bad(fmt.Sprintf("value %s is out of range for int32 (%d to %d)", number(n), math.MinInt32, math.MaxInt32))
	}
	return protoreflect.ValueOfInt32(int32(n)), true
}

// int64Text reads a 64-bit integer sent as a string of decimal digits.
func (x *exampleBuild) int64Text(k protoreflect.Kind, v any, bad func(string) (protoreflect.Value, bool)) (protoreflect.Value, bool) {
	s, isText := v.(string)
	if !isText {
		return bad("expected a string (64-bit integers are sent as strings, e.g. \"42\"), got " + jsonKindOf(v))
	}
	switch k {
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil || s[0] == '+' {
			return bad(fmt.Sprintf("expected a decimal integer string in the uint64 range, got %q", s))
		}
		return protoreflect.ValueOfUint64(n), true
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || s[0] == '+' {
		return bad(fmt.Sprintf("expected a decimal integer string in the int64 range, got %q", s))
	}
	return protoreflect.ValueOfInt64(n), true
}

// number writes n as an agent writes it: a whole number in digits.
func number(n float64) string {
	if n == math.Trunc(n) && math.Abs(n) < 1e21 {
		return strconv.FormatFloat(n, 'f', -1, 64)
	}
	return strconv.FormatFloat(n, 'g', -1, 64)
}
