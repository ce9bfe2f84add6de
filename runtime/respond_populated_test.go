package runtime

import (
	"math"
	"testing"

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
