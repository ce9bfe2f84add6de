package runtime

import (
	"bytes"
	"encoding/base64"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// The success envelope's response members are written in one pass by
// respEncoder: it walks the response with protoreflect and writes the JSON
// protojson writes (with the options of jsonOptions), compact, with enum
// values replaced by their agent-facing aliases as it goes. Its output is
// byte for byte what rendering with protojson, parsing, aliasing in the
// tree and writing the tree out gives (responseFieldsProtojson, kept as the
// reference and as the path for what the encoder leaves to it).
//
// Left to protojson, for the whole response: a top-level message protojson
// renders specially (Timestamp, Duration, wrappers, Struct, Value,
// ListValue, FieldMask, Any), a message that may hold extensions (it
// declares extension ranges), a field whose agent-facing name would make
// the alias pass read another field, nesting deeper than maxEncodeDepth,
// and every value protojson refuses or writes oddly (invalid UTF-8, a
// Timestamp or Duration out of range, a Value with no kind or a
// non-finite number). Left to protojson for the sub-tree only: Any and
// FieldMask values, rendered by protojson and compacted.

// protoreflect.FullName -> *msgPlan

// encodeResponseFields is responseFieldsProtojson in one pass: the
// response's populated fields as envelope members, each value written
// once. errEncodeFallback means the response takes the protojson path.
func encodeResponseFields(resp proto.Message, enums map[string]*impl.EnumTable, shape answerShape) (object, error) {
	m := resp.ProtoReflect()
	p, e, err := startEncode(m, enums, shape)
	if err != nil {
		return nil, err
	}
	alias := len(enums) > 0 && !p.noAlias
	e.depth = 1
	fields := make(object, 0, min(len(p.fields), 8)) // no pass to count the present ones
	for i := range p.fields {
		f := &p.fields[i]
		v, ok := e.field(m, f)
		if !ok {
			continue
		}
		fa, err := e.fieldAlias(f, alias)
		if err != nil {
			return nil, err
		}
		start := len(e.buf)
		if err := e.value(v, f.fd, fa); err != nil {
			return nil, err
		}
		fields = append(fields, member{f.name[e.naming], ownJSON(e.buf[start:len(e.buf):len(e.buf)])})
	}
	p.encoded(e.naming, len(e.buf))
	return fields, nil
}

// field is f's value in m and whether it is written: when set, or when
// the shape writes it at its zero value (a field without presence;
// protojson's EmitDefaultValues for the whole message). A singular field
// without presence is set when its value is not the zero value (what
// m.Has reports for it), so it is read once instead of through Has and
// Get.
func (e *respEncoder) field(m protoreflect.Message, f *fieldPlan) (protoreflect.Value, bool) {
	if f.hasFirst {
		if m.Has(f.fd) || e.shape.writesZero(f.fd) {
			return m.Get(f.fd), true
		}
		return protoreflect.Value{}, false
	}
	v := m.Get(f.fd)
	return v, populated(v, f.fd.Kind()) || e.shape.writesZero(f.fd)
}

// populated is m.Has(fd) for a singular field without presence of kind
// k holding v: a non-empty string or bytes, true, a non-zero number or
// enum value, or a negative zero.
func populated(v protoreflect.Value, k protoreflect.Kind) bool {
	switch k {
	case protoreflect.BoolKind:
		return v.Bool()
	case protoreflect.EnumKind:
		return v.Enum() != 0
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return v.Int() != 0
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return v.Uint() != 0
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return v.Float() != 0 || math.Signbit(v.Float())
	case protoreflect.StringKind:
		return v.String() != ""
	case protoreflect.BytesKind:
		return len(v.Bytes()) > 0
	}
	return v.IsValid()
}

// fieldAlias reports whether the alias pass reaches f's value.
func (e *respEncoder) fieldAlias(f *fieldPlan, alias bool) (bool, error) {
	if !alias {
		return false, nil
	}
	switch f.lookup[e.naming] {
	case lookupSame:
		return true, nil
	case lookupNone:
		return false, nil
	}
	return false, errEncodeFallback
}

// enter opens a JSON object or array.
func (e *respEncoder) enter(c byte) error {
	e.depth++
	if e.depth > maxEncodeDepth {
		return errEncodeFallback
	}
	e.buf = append(e.buf, c)
	return nil
}

// leave closes it.
func (e *respEncoder) leave(c byte) {
	e.depth--
	e.buf = append(e.buf, c)
}

// message writes m; alias: the alias pass reaches it.
func (e *respEncoder) message(m protoreflect.Message, alias bool) error {
	p := planFor(m.Descriptor())
	switch p.wk {
	case wkNone:
	case wkTimestamp:
		return e.timestamp(m)
	case wkDuration:
		return e.duration(m)
	case wkWrapper:
		fd := m.Descriptor().Fields().ByNumber(1)
		return e.singular(m.Get(fd), fd, false)
	case wkStruct:
		fd := m.Descriptor().Fields().ByNumber(1)
		return e.mapValue(m.Get(fd).Map(), fd, false)
	case wkListValue:
		fd := m.Descriptor().Fields().ByNumber(1)
		return e.list(m.Get(fd).List(), fd, false)
	case wkValue:
		return e.knownValue(m)
	default:
		return e.delegate(m)
	}
	if p.unsupported {
		return errEncodeFallback
	}
	alias = alias && !p.noAlias
	if err := e.enter('{'); err != nil {
		return err
	}
	first := true
	for i := range p.fields {
		f := &p.fields[i]
		v, ok := e.field(m, f)
		if !ok {
			continue
		}
		if !first {
			e.buf = append(e.buf, ',')
		}
		first = false
		e.buf = append(e.buf, f.key[e.naming]...)
		fa, err := e.fieldAlias(f, alias)
		if err != nil {
			return err
		}
		if err := e.value(v, f.fd, fa); err != nil {
			return err
		}
	}
	e.leave('}')
	return nil
}

// value writes a field's value: a list, a map or one value.
func (e *respEncoder) value(v protoreflect.Value, fd protoreflect.FieldDescriptor, alias bool) error {
	switch {
	case fd.IsList():
		return e.list(v.List(), fd, alias)
	case fd.IsMap():
		return e.mapValue(v.Map(), fd, alias)
	}
	return e.singular(v, fd, alias)
}

func (e *respEncoder) list(l protoreflect.List, fd protoreflect.FieldDescriptor, alias bool) error {
	if err := e.enter('['); err != nil {
		return err
	}
	for i := range l.Len() {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if err := e.singular(l.Get(i), fd, alias); err != nil {
			return err
		}
	}
	e.leave(']')
	return nil
}

// mapValue writes a map with its keys in protojson's order: false before
// true, numbers ascending, strings by byte.
func (e *respEncoder) mapValue(mm protoreflect.Map, fd protoreflect.FieldDescriptor, alias bool) error {
	keys := make([]protoreflect.MapKey, 0, mm.Len())
	mm.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
		keys = append(keys, k)
		return true
	})
	switch fd.MapKey().Kind() {
	case protoreflect.BoolKind:
		slices.SortFunc(keys, func(a, b protoreflect.MapKey) int {
			x, y := a.Bool(), b.Bool()
			switch {
			case x == y:
				return 0
			case !x:
				return -1
			}
			return 1
		})
	case protoreflect.StringKind:
		slices.SortFunc(keys, func(a, b protoreflect.MapKey) int { return strings.Compare(a.String(), b.String()) })
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		slices.SortFunc(keys, func(a, b protoreflect.MapKey) int {
			x, y := a.Uint(), b.Uint()
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		})
	default:
		slices.SortFunc(keys, func(a, b protoreflect.MapKey) int {
			x, y := a.Int(), b.Int()
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		})
	}
	if err := e.enter('{'); err != nil {
		return err
	}
	vd := fd.MapValue()
	for i, k := range keys {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		var err error
		switch fd.MapKey().Kind() {
		case protoreflect.StringKind:
			err = e.str(k.String())
		case protoreflect.BoolKind:
			e.buf = append(e.buf, '"')
			e.buf = strconv.AppendBool(e.buf, k.Bool())
			e.buf = append(e.buf, '"')
		case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
			e.buf = append(e.buf, '"')
			e.buf = strconv.AppendUint(e.buf, k.Uint(), 10)
			e.buf = append(e.buf, '"')
		default:
			e.buf = append(e.buf, '"')
			e.buf = strconv.AppendInt(e.buf, k.Int(), 10)
			e.buf = append(e.buf, '"')
		}
		if err != nil {
			return err
		}
		e.buf = append(e.buf, ':')
		if err := e.singular(mm.Get(k), vd, alias); err != nil {
			return err
		}
	}
	e.leave('}')
	return nil
}

// singular writes one value of fd's kind.
func (e *respEncoder) singular(v protoreflect.Value, fd protoreflect.FieldDescriptor, alias bool) error {
	if !v.IsValid() {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	switch fd.Kind() {
	case protoreflect.BoolKind:
		e.buf = strconv.AppendBool(e.buf, v.Bool())
	case protoreflect.StringKind:
		return e.str(v.String())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		e.buf = strconv.AppendInt(e.buf, v.Int(), 10)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		e.buf = strconv.AppendUint(e.buf, v.Uint(), 10)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		e.buf = append(e.buf, '"')
		e.buf = strconv.AppendInt(e.buf, v.Int(), 10)
		e.buf = append(e.buf, '"')
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		e.buf = append(e.buf, '"')
		e.buf = strconv.AppendUint(e.buf, v.Uint(), 10)
		e.buf = append(e.buf, '"')
	case protoreflect.FloatKind:
		e.buf = appendProtoFloat(e.buf, v.Float(), 32)
	case protoreflect.DoubleKind:
		e.buf = appendProtoFloat(e.buf, v.Float(), 64)
	case protoreflect.BytesKind:
		e.buf = append(e.buf, '"')
		e.buf = base64.StdEncoding.AppendEncode(e.buf, v.Bytes())
		e.buf = append(e.buf, '"')
	case protoreflect.EnumKind:
		ed := fd.Enum()
		if ed.FullName() == "google.protobuf.NullValue" {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		evd := ed.Values().ByNumber(v.Enum())
		if evd == nil {
			e.buf = strconv.AppendInt(e.buf, int64(v.Enum()), 10)
			return nil
		}
		if alias {
			if t := e.enums[string(ed.FullName())]; t != nil {
				if a := t.Alias(int32(evd.Number())); a != "" {
					e.buf = idempotency.AppendCanonicalString(e.buf, a)
					return nil
				}
			}
		}
		e.buf = idempotency.AppendCanonicalString(e.buf, string(evd.Name()))
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return e.message(v.Message(), alias)
	default:
		return errEncodeFallback
	}
	return nil
}

// str writes s as protojson does; protojson refuses invalid UTF-8.
func (e *respEncoder) str(s string) error {
	if !utf8.ValidString(s) {
		return errEncodeFallback
	}
	e.buf = idempotency.AppendCanonicalString(e.buf, s)
	return nil
}

// knownValue writes a google.protobuf.Value as its kind.
func (e *respEncoder) knownValue(m protoreflect.Message) error {
	md := m.Descriptor()
	fd := m.WhichOneof(md.Oneofs().ByName("kind"))
	if fd == nil {
		return errEncodeFallback
	}
	v := m.Get(fd)
	if fd.Kind() == protoreflect.DoubleKind {
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return errEncodeFallback
		}
	}
	return e.singular(v, fd, false)
}

// delegate writes m as protojson renders it, compacted as the protojson
// path compacts it (Any, FieldMask; never aliased).
func (e *respEncoder) delegate(m protoreflect.Message) error {
	b, err := e.shape.protojson().Marshal(m.Interface())
	if err != nil {
		return errEncodeFallback
	}
	v, errs := impl.ParseValue(b, ownOutputLimits(b))
	if len(errs) > 0 || v == nil {
		return errEncodeFallback
	}
	if e.depth+valueDepth(v) > maxEncodeDepth {
		return errEncodeFallback
	}
	w := bytes.NewBuffer(e.buf)
	writeValue(w, v)
	e.buf = w.Bytes()
	return nil
}

// startEncode returns m's plan and an encoder of shape for it, or
// errEncodeFallback where protojson must write m (an invalid message, a
// well-known type, a message the plan does not support).
func startEncode(m protoreflect.Message, enums map[string]*impl.EnumTable, shape answerShape) (*msgPlan, respEncoder, error) {
	if !m.IsValid() {
		return nil, respEncoder{}, errEncodeFallback
	}
	p := planFor(m.Descriptor())
	if p.wk != wkNone || p.unsupported {
		return nil, respEncoder{}, errEncodeFallback
	}
	e := respEncoder{enums: enums, shape: shape}
	if shape.jsonNames {
		e.naming = 1
	}
	e.buf = make([]byte, 0, p.startCap(e.naming))
	return p, e, nil
}
