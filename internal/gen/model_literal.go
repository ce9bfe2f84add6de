package gen

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// goLiteral converts a JSON literal (as protojson writes the field) into a Go
// expression of the field's type. Only singular scalar and enum fields take
// literals.
func goLiteral(fm *fieldModel, lit string) (literal, error) {
	l, err := untypedLiteral(fm, lit)
	// A numeric constant passed to mcpwriteimpl.Ptr would default to int or
	// float64; convert it to the field's type.
	if err == nil && l.ident == nil && isPtr(fm.proto) && isNumeric(fm.proto.Desc.Kind()) {
		l.code = scalarGoType(fm.proto) + "(" + l.code + ")"
	}
	return l, err
}

func untypedLiteral(fm *fieldModel, lit string) (literal, error) {
	f := fm.proto
	if f.Desc.IsList() || f.Desc.IsMap() || f.Message != nil {
		return literal{}, fmt.Errorf("literals apply to singular scalar and enum fields, not %s", kindName(f))
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(lit))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil || dec.More() {
		return literal{}, fmt.Errorf("not a JSON literal")
	}
	str, isStr := v.(string)
	num, isNum := v.(json.Number)
	switch k := f.Desc.Kind(); k {
	case protoreflect.StringKind:
		if !isStr {
			return literal{}, fmt.Errorf("want a JSON string for a string field")
		}
		return literal{code: strconv.Quote(str), jsonValue: str}, nil
	case protoreflect.BoolKind:
		b, ok := v.(bool)
		if !ok {
			return literal{}, fmt.Errorf("want true or false for a bool field")
		}
		return literal{code: strconv.FormatBool(b), jsonValue: b}, nil
	case protoreflect.BytesKind:
		if !isStr {
			return literal{}, fmt.Errorf("want a base64 JSON string for a bytes field")
		}
		raw, err := base64.StdEncoding.DecodeString(str)
		if err != nil {
			return literal{}, fmt.Errorf("want a base64 JSON string for a bytes field")
		}
		return literal{code: fmt.Sprintf("[]byte(%q)", raw), jsonValue: str}, nil
	case protoreflect.EnumKind:
		if !isStr {
			return literal{}, fmt.Errorf("want the enum value name as a JSON string, e.g. %q", f.Enum.Values[len(f.Enum.Values)-1].Desc.Name())
		}
		for _, ev := range f.Enum.Values {
			if string(ev.Desc.Name()) == str {
				id := ev.GoIdent
				return literal{ident: &id, jsonValue: str}, nil
			}
		}
		return literal{}, fmt.Errorf("%q is not a value of %s", str, f.Enum.Desc.FullName())
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		if !isNum {
			return literal{}, fmt.Errorf("want a JSON number for a %s field", k)
		}
		x, err := num.Float64()
		if err != nil || math.IsInf(x, 0) {
			return literal{}, fmt.Errorf("%s is out of range", num)
		}
		return literal{code: strconv.FormatFloat(x, 'g', -1, 64), jsonValue: x}, nil
	default:
		text := string(num)
		if isStr && is64(k) {
			text = str
		} else if !isNum {
			return literal{}, fmt.Errorf("want a JSON number for a %s field", k)
		}
		bits := 32
		if is64(k) {
			bits = 64
		}
		if isUnsigned(k) {
			u, err := strconv.ParseUint(text, 10, bits)
			if err != nil {
				return literal{}, fmt.Errorf("%s is not a valid %s", text, k)
			}
			if is64(k) {
				return literal{code: strconv.FormatUint(u, 10), jsonValue: strconv.FormatUint(u, 10)}, nil
			}
			return literal{code: strconv.FormatUint(u, 10), jsonValue: u}, nil
		}
		n, err := strconv.ParseInt(text, 10, bits)
		if err != nil {
			return literal{}, fmt.Errorf("%s is not a valid %s", text, k)
		}
		if is64(k) {
			return literal{code: strconv.FormatInt(n, 10), jsonValue: strconv.FormatInt(n, 10)}, nil
		}
		return literal{code: strconv.FormatInt(n, 10), jsonValue: n}, nil
	}
}

func is64(k protoreflect.Kind) bool {
	switch k {
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return true
	}
	return false
}

func isUnsigned(k protoreflect.Kind) bool {
	switch k {
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return true
	}
	return false
}

// quoteAll quotes each string as Go and JSON do and joins them with ", ".
func quoteAll(ss []string) string {
	qs := make([]string, len(ss))
	for i, s := range ss {
		qs[i] = strconv.Quote(s)
	}
	return strings.Join(qs, ", ")
}

func realOneof(f *protogen.Field) bool { return f.Oneof != nil && !f.Oneof.Desc.IsSynthetic() }

func isPtr(f *protogen.Field) bool {
	return !f.Desc.IsList() && !f.Desc.IsMap() && f.Message == nil && f.Desc.Kind() != protoreflect.BytesKind &&
		f.Desc.HasPresence() && !realOneof(f)
}

func u64(n uint64) *uint64 { return &n }

// appendSentence ends desc with a period, if it has none, and adds sentence.
func appendSentence(desc, sentence string) string {
	desc = strings.TrimSpace(desc)
	if desc == "" {
		return sentence
	}
	if !strings.HasSuffix(desc, ".") {
		desc += "."
	}
	return desc + " " + sentence
}

func isNumeric(k protoreflect.Kind) bool {
	switch k {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind,
		protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind,
		protoreflect.FloatKind, protoreflect.DoubleKind:
		return true
	}
	return false
}

// kindName describes a field's type for error messages.
func kindName(f *protogen.Field) string {
	switch {
	case f.Desc.IsMap():
		return "a map field"
	case f.Desc.IsList():
		return "a repeated field"
	case f.Message != nil:
		return "message " + string(f.Message.Desc.FullName())
	case f.Enum != nil:
		return "enum " + string(f.Enum.Desc.FullName())
	}
	k := f.Desc.Kind().String()
	if strings.HasPrefix(k, "int") || strings.HasPrefix(k, "uint") {
		return "an " + k + " field"
	}
	return "a " + k + " field"
}

// mustJSON marshals generator-built values, which always marshal (a
// schema goes through mustSchemaJSON).
func mustJSON(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("marshal generated value: %v", err))
	}
	return bytes.TrimSpace(buf.Bytes())
}
