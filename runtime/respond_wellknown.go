package runtime

// The response encoder's well-known types and numbers: Timestamp, Duration,
// Struct values and the messages left to protojson, written as protojson
// writes them.

import (
	"math"
	"strconv"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// timestamp writes RFC 3339 in UTC with 0, 3, 6 or 9 fractional digits.
func (e *respEncoder) timestamp(m protoreflect.Message) error {
	fds := m.Descriptor().Fields()
	secs, nanos := m.Get(fds.ByNumber(1)).Int(), m.Get(fds.ByNumber(2)).Int()
	// 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z, as protojson accepts.
	if secs < -62135596800 || secs > 253402300799 || nanos < 0 || nanos >= 1e9 {
		return errEncodeFallback
	}
	e.buf = append(e.buf, '"')
	e.buf = appendDateTime(e.buf, time.Unix(secs, nanos).UTC())
	e.buf = appendFraction(e.buf, nanos)
	e.buf = append(e.buf, 'Z', '"')
	return nil
}

// appendDateTime writes t as t.AppendFormat(b, "2006-01-02T15:04:05")
// does for a year from 1 to 9999, without reading the layout.
func appendDateTime(b []byte, t time.Time) []byte {
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	b = append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-')
	b = append(b, byte('0'+int(mo)/10), byte('0'+int(mo)%10), '-', byte('0'+d/10), byte('0'+d%10), 'T')
	return append(b, byte('0'+h/10), byte('0'+h%10), ':', byte('0'+mi/10), byte('0'+mi%10), ':', byte('0'+s/10), byte('0'+s%10))
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

// valueDepth is the nesting of objects and arrays in v.
func valueDepth(v *impl.Value) int {
	d := 0
	switch v.Kind {
	case impl.KindArray:
		for _, x := range v.Arr {
			d = max(d, valueDepth(x))
		}
		return d + 1
	case impl.KindObject:
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
