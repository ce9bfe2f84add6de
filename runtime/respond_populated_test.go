package runtime

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/typepb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// populated, read from a singular field's value, is what Has reports for
// a field without presence, at the zero value, a negative zero and a set
// value of each kind the wrappers and typepb.Field hold.
func TestPopulatedIsHas(t *testing.T) {
	for _, m := range []proto.Message{
		wrapperspb.Double(0), wrapperspb.Double(math.Copysign(0, -1)), wrapperspb.Double(-2.5),
		wrapperspb.Float(0), wrapperspb.Float(float32(math.Copysign(0, -1))), wrapperspb.Float(1),
		wrapperspb.Int64(0), wrapperspb.Int64(-1), wrapperspb.UInt64(0), wrapperspb.UInt64(7),
		wrapperspb.Int32(0), wrapperspb.Int32(3), wrapperspb.UInt32(0), wrapperspb.UInt32(1),
		wrapperspb.Bool(false), wrapperspb.Bool(true),
		wrapperspb.String(""), wrapperspb.String("x"), wrapperspb.Bytes(nil), wrapperspb.Bytes([]byte{}), wrapperspb.Bytes([]byte{0}),
		&typepb.Field{}, &typepb.Field{Kind: typepb.Field_TYPE_STRING, Number: 2, Packed: true, Name: "n"},
	} {
		r := m.ProtoReflect()
		fields := r.Descriptor().Fields()
		for i := range fields.Len() {
			fd := fields.Get(i)
			if fd.HasPresence() || fd.IsList() || fd.IsMap() {
				continue
			}
			if got, want := populated(r.Get(fd), fd.Kind()), r.Has(fd); got != want {
				t.Errorf("%v %s: populated = %v, Has = %v", m, fd.Name(), got, want)
			}
		}
	}
	if got := populated(protoreflect.Value{}, protoreflect.MessageKind); got {
		t.Error("populated(invalid message) = true")
	}
}

// appendDateTime writes what AppendFormat writes with the RFC 3339 layout
// protojson uses, over the years protojson accepts.
func TestAppendDateTime(t *testing.T) {
	const lo, hi = -62135596800, 253402300799
	secs := []int64{lo, lo + 1, -1, 0, 1, 951782400, 1709164800, 4107542399, hi - 1, hi}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		secs = append(secs, lo+r.Int64N(hi-lo+1))
	}
	for _, s := range secs {
		tm := time.Unix(s, 0).UTC()
		if got, want := string(appendDateTime([]byte("x"), tm)), string(tm.AppendFormat([]byte("x"), "2006-01-02T15:04:05")); got != want {
			t.Fatalf("%d: appendDateTime = %s, want %s", s, got, want)
		}
	}
}

func BenchmarkAppendDateTime(b *testing.B) {
	tm := time.Unix(1795914123, 456000000).UTC()
	buf := make([]byte, 0, 32)
	for b.Loop() {
		buf = appendDateTime(buf[:0], tm)
	}
}
