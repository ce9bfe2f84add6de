package runtime

import (
	"bytes"
	"encoding/base64"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
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

// errEncodeFallback: the response is rendered by the protojson path.
var errEncodeFallback = errors.New("response left to protojson")

// maxEncodeDepth bounds the nesting the encoder writes, well below the
// depth the protojson path's own parse accepts, so a deeper response takes
// that path and gets its answer.
const maxEncodeDepth = 48

// wkKind is how protojson renders a message.
type wkKind uint8

const (
	wkNone wkKind = iota
	wkTimestamp
	wkDuration
	wkWrapper
	wkStruct
	wkListValue
	wkValue
	wkDelegate // Any, FieldMask: rendered by protojson
)

// lookup is what the alias pass finds for a member's key: the field that
// wrote it, no field (nothing below is aliased), or another field (the
// encoder cannot follow; the response takes the protojson path).
type lookup uint8

const (
	lookupSame lookup = iota
	lookupNone
	lookupOther
)

// fieldPlan is one field of a message, with its member key written out for
// both namings (index 0 proto names, 1 JSON names).
type fieldPlan struct {
	fd     protoreflect.FieldDescriptor
	name   [2]string
	key    [2][]byte // quoted key and colon
	lookup [2]lookup
}

// msgPlan is how a message type is written; made once per type.
type msgPlan struct {
	wk          wkKind
	unsupported bool // may hold extensions
	noAlias     bool // google.protobuf.*: the alias pass skips it
	fields      []fieldPlan
}

var msgPlans sync.Map // protoreflect.FullName -> *msgPlan

// planFor returns the plan of md.
func planFor(md protoreflect.MessageDescriptor) *msgPlan {
	if p, ok := msgPlans.Load(md.FullName()); ok {
		if p := p.(*msgPlan); p != nil {
			return p
		}
	}
	p := newMsgPlan(md)
	msgPlans.Store(md.FullName(), p)
	return p
}

func newMsgPlan(md protoreflect.MessageDescriptor) *msgPlan {
	p := &msgPlan{wk: wellKnownKind(md.FullName()), noAlias: wellKnownJSON(md.FullName())}
	if md.ExtensionRanges().Len() > 0 {
		p.unsupported = true
	}
	fields := md.Fields()
	p.fields = make([]fieldPlan, fields.Len())
	for i := range fields.Len() {
		fd := fields.Get(i)
		f := &p.fields[i]
		f.fd = fd
		f.name = [2]string{fd.TextName(), fd.JSONName()}
		for n, name := range f.name {
			f.key[n] = append(idempotency.AppendCanonicalString(nil, name), ':')
			got := fields.ByName(protoreflect.Name(name))
			if got == nil {
				got = fields.ByJSONName(name)
			}
			switch {
			case got == nil:
				f.lookup[n] = lookupNone
			case got == fd:
				f.lookup[n] = lookupSame
			default:
				f.lookup[n] = lookupOther
			}
		}
	}
	return p
}

// wellKnownKind is how protojson renders the message named n.
func wellKnownKind(n protoreflect.FullName) wkKind {
	if n.Parent() != "google.protobuf" {
		return wkNone
	}
	switch n.Name() {
	case "Timestamp":
		return wkTimestamp
	case "Duration":
		return wkDuration
	case "BoolValue", "Int32Value", "Int64Value", "UInt32Value", "UInt64Value",
		"FloatValue", "DoubleValue", "StringValue", "BytesValue":
		return wkWrapper
	case "Struct":
		return wkStruct
	case "ListValue":
		return wkListValue
	case "Value":
		return wkValue
	case "Any", "FieldMask":
		return wkDelegate
	}
	return wkNone
}

// respEncoder writes one response.
type respEncoder struct {
	buf    []byte
	enums  map[string]*mcpwriteimpl.EnumTable
	naming int // 0 proto names, 1 JSON names
	// shape says which unset fields are written at their zero value.
	shape answerShape
	depth int
}

// encodeResponseFields is responseFieldsProtojson in one pass: the
// response's populated fields as envelope members, each value written
// once. errEncodeFallback means the response takes the protojson path.
func encodeResponseFields(resp proto.Message, enums map[string]*mcpwriteimpl.EnumTable, shape answerShape) (object, error) {
	m := resp.ProtoReflect()
	if !m.IsValid() {
		return nil, errEncodeFallback
	}
	p := planFor(m.Descriptor())
	if p.wk != wkNone || p.unsupported {
		return nil, errEncodeFallback
	}
	e := respEncoder{enums: enums, buf: make([]byte, 0, 256), shape: shape}
	if shape.jsonNames {
		e.naming = 1
	}
	alias := len(enums) > 0 && !p.noAlias
	e.depth = 1
	n := 0
	for i := range p.fields {
		if e.present(m, p.fields[i].fd) {
			n++
		}
	}
	fields := make(object, 0, n)
	for i := range p.fields {
		f := &p.fields[i]
		if !e.present(m, f.fd) {
			continue
		}
		fa, err := e.fieldAlias(f, alias)
		if err != nil {
			return nil, err
		}
		start := len(e.buf)
		if err := e.value(m.Get(f.fd), f.fd, fa); err != nil {
			return nil, err
		}
		fields = append(fields, member{f.name[e.naming], ownJSON(e.buf[start:len(e.buf):len(e.buf)])})
	}
	return fields, nil
}

// present reports whether fd is written: when set, or when the shape
// writes it at its zero value (a field without presence; protojson's
// EmitDefaultValues for the whole message).
func (e *respEncoder) present(m protoreflect.Message, fd protoreflect.FieldDescriptor) bool {
	return m.Has(fd) || e.shape.writesZero(fd)
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
		if !e.present(m, f.fd) {
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
		if err := e.value(m.Get(f.fd), f.fd, fa); err != nil {
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

// timestamp writes RFC 3339 in UTC with 0, 3, 6 or 9 fractional digits.
func (e *respEncoder) timestamp(m protoreflect.Message) error {
	fds := m.Descriptor().Fields()
	secs, nanos := m.Get(fds.ByNumber(1)).Int(), m.Get(fds.ByNumber(2)).Int()
	// 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z, as protojson accepts.
	if secs < -62135596800 || secs > 253402300799 || nanos < 0 || nanos >= 1e9 {
		return errEncodeFallback
	}
	t := time.Unix(secs, nanos).UTC()
	e.buf = append(e.buf, '"')
	e.buf = t.AppendFormat(e.buf, "2006-01-02T15:04:05")
	e.buf = appendFraction(e.buf, nanos)
	e.buf = append(e.buf, 'Z', '"')
	return nil
}

// duration writes seconds with 0, 3, 6 or 9 fractional digits and "s".
func (e *respEncoder) duration(m protoreflect.Message) error {
	fds := m.Descriptor().Fields()
	secs, nanos := m.Get(fds.ByNumber(1)).Int(), m.Get(fds.ByNumber(2)).Int()
	const maxSecs = 315576000000
	if secs < -maxSecs || secs > maxSecs || nanos <= -1e9 || nanos >= 1e9 ||
		(secs > 0 && nanos < 0) || (secs < 0 && nanos > 0) {
		return errEncodeFallback
	}
	e.buf = append(e.buf, '"')
	if secs < 0 || nanos < 0 {
		e.buf = append(e.buf, '-')
		secs, nanos = -secs, -nanos
	}
	e.buf = strconv.AppendInt(e.buf, secs, 10)
	e.buf = appendFraction(e.buf, nanos)
	e.buf = append(e.buf, 's', '"')
	return nil
}

// appendFraction writes ".ddd", ".dddddd" or ".ddddddddd" for nanos in
// [0, 1e9), the shortest without loss, or nothing for 0.
func appendFraction(b []byte, nanos int64) []byte {
	if nanos == 0 {
		return b
	}
	digits := 9
	switch {
	case nanos%1e6 == 0:
		nanos /= 1e6
		digits = 3
	case nanos%1e3 == 0:
		nanos /= 1e3
		digits = 6
	}
	b = append(b, '.')
	var d [9]byte
	for i := digits - 1; i >= 0; i-- {
		d[i] = byte('0' + nanos%10)
		nanos /= 10
	}
	return append(b, d[:digits]...)
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
	v, errs := mcpwriteimpl.ParseValue(b, ownOutputLimits(b))
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

// valueDepth is the nesting of objects and arrays in v.
func valueDepth(v *mcpwriteimpl.Value) int {
	d := 0
	switch v.Kind {
	case mcpwriteimpl.KindArray:
		for _, x := range v.Arr {
			d = max(d, valueDepth(x))
		}
		return d + 1
	case mcpwriteimpl.KindObject:
		for _, x := range v.Obj.Vals {
			d = max(d, valueDepth(x))
		}
		return d + 1
	}
	return 0
}

// appendProtoFloat writes f as protojson does: NaN and the infinities as
// strings, otherwise the shortest form that reads back as f at bitSize,
// with an exponent outside [1e-6, 1e21) and at least two exponent digits.
func appendProtoFloat(b []byte, f float64, bitSize int) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Infinity"`...)
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 {
		if bitSize == 64 && (a < 1e-6 || a >= 1e21) || bitSize == 32 && (float32(a) < 1e-6 || float32(a) >= 1e21) {
			format = 'e'
		}
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, format, -1, bitSize)
	if format == 'e' {
		// strconv writes e-07; JSON as protojson writes it is e-7.
		n := len(b)
		if n-start >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
