package runtime_test

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	crmv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/gen/crm/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/gen/crm/v1/crmv1mcpwrite"
	neotomav1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1/neotomav1mcpwrite"
	purchasingv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/gen/purchasing/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/gen/purchasing/v1/purchasingv1mcpwrite"
	tasksv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/gen/tasks/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/gen/tasks/v1/tasksv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// exampleService is one example's proto file and its enum alias tables.
type exampleService struct {
	name  string
	file  protoreflect.FileDescriptor
	enums map[string]*impl.EnumTable
}

func exampleServices() []exampleService {
	return []exampleService{
		{"archimate", archimatev1.File_archimate_v1_archimate_proto, archimatev1mcpwrite.NewArchitectureService(nil).Enums},
		{"crm", crmv1.File_crm_v1_crm_proto, crmv1mcpwrite.NewCrmService(nil).Enums},
		{"neotoma", neotomav1.File_neotoma_v1_neotoma_proto, neotomav1mcpwrite.NewMemoryService(nil).Enums},
		{"purchasing", purchasingv1.File_purchasing_v1_purchasing_proto, purchasingv1mcpwrite.NewPurchasingService(nil).Enums},
		{"tasks", tasksv1.File_tasks_v1_tasks_proto, tasksv1mcpwrite.NewTaskService(nil).Enums},
	}
}

// responseTypes are the output messages of every method of f's services.
func responseTypes(t testing.TB, f protoreflect.FileDescriptor) []protoreflect.MessageType {
	t.Helper()
	var out []protoreflect.MessageType
	seen := map[protoreflect.FullName]bool{}
	for i := range f.Services().Len() {
		ms := f.Services().Get(i).Methods()
		for j := range ms.Len() {
			md := ms.Get(j).Output()
			if seen[md.FullName()] {
				continue
			}
			seen[md.FullName()] = true
			mt, err := protoregistryFind(md.FullName())
			if err != nil {
				t.Fatalf("%s: %v", md.FullName(), err)
			}
			out = append(out, mt)
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s has no response types", f.Path())
	}
	return out
}

// filler populates messages with random values, the awkward ones
// included: control characters, quotes, U+2028, non-ASCII, NaN and the
// infinities, -0, extreme integers, unknown enum numbers, every well-known
// type. wild adds values protojson refuses or writes oddly (invalid UTF-8,
// out-of-range timestamps and durations, a Value with no kind).
type filler struct {
	r    *rand.Rand
	wild bool
	// maxDepth bounds nested messages (0: 4).
	maxDepth int
}

var awkwardStrings = []string{
	"", "a", "OrderService", `quote " and \ backslash`, "line\nbreak\ttab\r", "\x00\x01\x1f\x7f",
	"<b>&amp;</b>", "\u2028\u2029", "héllo wörld", "日本語", "emoji 😀", "\ufeffbom", "/slash/", "\b\f",
}

func (f *filler) str() string {
	if f.wild && f.r.IntN(20) == 0 {
		return "bad \xff\xfe utf8"
	}
	if f.r.IntN(3) == 0 {
		b := make([]rune, f.r.IntN(12))
		for i := range b {
			b[i] = rune(f.r.IntN(0x3000))
		}
		return string(b)
	}
	return awkwardStrings[f.r.IntN(len(awkwardStrings))]
}

var awkwardFloats = []float64{
	0, math.Copysign(0, -1), 1, -1, 0.1, 1.5, 1e-7, 1e-6, 9.99e-7, 1e20, 1e21, 1e22, -1e21, 123456789.125,
	math.MaxFloat64, math.SmallestNonzeroFloat64, math.MaxFloat32, math.SmallestNonzeroFloat32,
	math.NaN(), math.Inf(1), math.Inf(-1), 3.4028234663852886e+38, 1.401298464324817e-45, 2.5e-8,
}

func (f *filler) float() float64 {
	if f.r.IntN(2) == 0 {
		return awkwardFloats[f.r.IntN(len(awkwardFloats))]
	}
	return math.Float64frombits(f.r.Uint64())
}

func (f *filler) int64() int64 {
	switch f.r.IntN(4) {
	case 0:
		return []int64{0, 1, -1, math.MaxInt64, math.MinInt64, math.MaxInt32, math.MinInt32}[f.r.IntN(7)]
	case 1:
		return f.r.Int64N(1000) - 500
	}
	return int64(f.r.Uint64())
}

// fill sets a random subset of m's fields.
func (f *filler) fill(m protoreflect.Message, depth int) {
	md := m.Descriptor()
	switch md.FullName() {
	case "google.protobuf.Timestamp":
		secs := f.r.Int64N(253402300799+62135596800+1) - 62135596800
		nanos := f.nanos()
		if f.wild && f.r.IntN(10) == 0 {
			secs, nanos = f.int64(), int64(f.r.Int32())
		}
		m.Set(md.Fields().ByNumber(1), protoreflect.ValueOfInt64(secs))
		m.Set(md.Fields().ByNumber(2), protoreflect.ValueOfInt32(int32(nanos)))
		return
	case "google.protobuf.Duration":
		secs := f.r.Int64N(2*315576000000+1) - 315576000000
		nanos := f.nanos()
		if secs < 0 || (secs == 0 && f.r.IntN(2) == 0) {
			nanos = -nanos
		}
		if f.wild && f.r.IntN(10) == 0 {
			secs, nanos = f.int64(), int64(f.r.Int32())
		}
		m.Set(md.Fields().ByNumber(1), protoreflect.ValueOfInt64(secs))
		m.Set(md.Fields().ByNumber(2), protoreflect.ValueOfInt32(int32(nanos)))
		return
	case "google.protobuf.Value":
		if f.wild && f.r.IntN(10) == 0 {
			return // no kind
		}
		v := f.structValue(depth)
		if !f.wild {
			if n, ok := v.Kind.(*structpb.Value_NumberValue); ok && (math.IsNaN(n.NumberValue) || math.IsInf(n.NumberValue, 0)) {
				v = structpb.NewNumberValue(1.25)
			}
		}
		proto.Merge(m.Interface(), v)
		return
	case "google.protobuf.Any":
		inner := &archimatev1.Element{Id: f.str(), Version: f.r.Int32(), Type: archimatev1.ElementType(f.r.IntN(5))}
		a, err := anypb.New(inner)
		switch f.r.IntN(4) {
		case 0:
			err = errors.New("a timestamp instead")
		}
		if err != nil {
			a, _ = anypb.New(timestamppb.New(time.Unix(f.r.Int64N(1e10), f.r.Int64N(1e9))))
		}
		switch f.r.IntN(4) {
		case 1:
			if f.wild {
				a.TypeUrl = "type.googleapis.com/no.such.Message"
			}
		}
		proto.Merge(m.Interface(), a)
		return
	case "google.protobuf.FieldMask":
		paths := []string{"a", "foo_bar", "meta.tenant_id"}
		proto.Merge(m.Interface(), &fieldmaskpb.FieldMask{Paths: paths[:f.r.IntN(4)]})
		return
	}
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if f.r.IntN(4) == 0 {
			continue
		}
		if fd.Message() != nil && depth >= f.depthLimit() && !wellKnownLeaf(fd.Message()) {
			continue
		}
		switch {
		case fd.IsList():
			l := m.Mutable(fd).List()
			for range f.r.IntN(4) {
				if fd.Message() != nil {
					e := l.NewElement()
					f.fill(e.Message(), depth+1)
					l.Append(e)
				} else {
					l.Append(f.scalar(fd))
				}
			}
		case fd.IsMap():
			mm := m.Mutable(fd).Map()
			for range f.r.IntN(4) {
				k := f.scalar(fd.MapKey()).MapKey()
				if fd.MapValue().Message() != nil {
					v := mm.NewValue()
					f.fill(v.Message(), depth+1)
					mm.Set(k, v)
				} else {
					mm.Set(k, f.scalar(fd.MapValue()))
				}
			}
		case fd.Message() != nil:
			f.fill(m.Mutable(fd).Message(), depth+1)
		default:
			m.Set(fd, f.scalar(fd))
		}
	}
}

func (f *filler) depthLimit() int {
	if f.maxDepth == 0 {
		return 5
	}
	return f.maxDepth
}

// wellKnownLeaf: a well-known type the filler sets without recursing into
// the message's own fields.
func wellKnownLeaf(md protoreflect.MessageDescriptor) bool {
	switch md.FullName() {
	case "google.protobuf.Timestamp", "google.protobuf.Duration", "google.protobuf.Any", "google.protobuf.FieldMask":
		return true
	}
	return false
}

func (f *filler) nanos() int64 {
	switch f.r.IntN(4) {
	case 0:
		return 0
	case 1:
		return f.r.Int64N(1000) * 1e6
	case 2:
		return f.r.Int64N(1e6) * 1e3
	}
	return f.r.Int64N(1e9)
}

func (f *filler) structValue(depth int) *structpb.Value {
	k := f.r.IntN(6)
	if depth > 4 && k >= 4 {
		k = 0
	}
	switch k {
	case 0:
		return structpb.NewNullValue()
	case 1:
		return structpb.NewNumberValue(f.float())
	case 2:
		return structpb.NewStringValue(f.str())
	case 3:
		return structpb.NewBoolValue(f.r.IntN(2) == 0)
	case 4:
		s := &structpb.Struct{Fields: map[string]*structpb.Value{}}
		for range f.r.IntN(4) {
			s.Fields[f.str()] = f.finite(f.structValue(depth + 1))
		}
		return structpb.NewStructValue(s)
	}
	l := &structpb.ListValue{}
	for range f.r.IntN(4) {
		l.Values = append(l.Values, f.finite(f.structValue(depth+1)))
	}
	return structpb.NewListValue(l)
}

// finite keeps nested numbers finite unless wild.
func (f *filler) finite(v *structpb.Value) *structpb.Value {
	if n, ok := v.Kind.(*structpb.Value_NumberValue); ok && !f.wild && (math.IsNaN(n.NumberValue) || math.IsInf(n.NumberValue, 0)) {
		return structpb.NewNumberValue(-2.5)
	}
	return v
}

func (f *filler) scalar(fd protoreflect.FieldDescriptor) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(f.r.IntN(2) == 0)
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(f.str())
	case protoreflect.BytesKind:
		b := make([]byte, f.r.IntN(10))
		for i := range b {
			b[i] = byte(f.r.Uint32())
		}
		return protoreflect.ValueOfBytes(b)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(f.int64()))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(f.int64()))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(f.int64())
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(uint64(f.int64()))
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(f.float()))
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(f.float())
	case protoreflect.EnumKind:
		vs := fd.Enum().Values()
		if f.r.IntN(8) == 0 {
			return protoreflect.ValueOfEnum(protoreflect.EnumNumber(f.r.Int32N(1000) + 100)) // unknown number
		}
		return protoreflect.ValueOfEnum(vs.Get(f.r.IntN(vs.Len())).Number())
	}
	panic("unexpected kind " + fd.Kind().String())
}

// checkSame renders resp both ways and fails on any difference, in bytes
// or in the error.
func checkSame(t testing.TB, what string, resp proto.Message, enums map[string]*impl.EnumTable, jsonNames bool, zeroValues ...runtime.ZeroForTest) bool {
	t.Helper()
	var zero runtime.ZeroForTest
	if len(zeroValues) > 0 {
		zero = zeroValues[0]
	}
	sugg := []string{"Call get_element to read it back.", "unicode \u2028 <tag> & \"q\""}
	ws := []impl.Warning{{Code: "W", Message: "note\nnew line", Field: "name"}, {Code: "X", Message: "é"}}
	got, encoded, gerr := runtime.RenderSuccessForTest(resp, sugg, ws, enums, jsonNames, zero)
	want, werr := runtime.RenderSuccessOracleForTest(resp, sugg, ws, enums, jsonNames, zero)
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("%s (json names %v, zero values %v): error %v, the protojson path's %v", what, jsonNames, zero, gerr, werr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s (json names %v, zero values %v): envelope differs\n got: %s\nwant: %s", what, jsonNames, zero, got, want)
	}
	return encoded
}

// Every response type of the five examples, with random values, renders
// byte for byte as protojson-parse-alias-write renders it, with proto and
// with JSON field names, with and without alias tables, and with and without
// zero values (EmitDefaultValues).
func TestResponseEncoderMatchesProtojsonPath(t *testing.T) {
	for _, svc := range exampleServices() {
		t.Run(svc.name, func(t *testing.T) {
			for _, mt := range responseTypes(t, svc.file) {
				for _, wild := range []bool{false, true} {
					f := &filler{r: rand.New(rand.NewPCG(1, uint64(len(mt.Descriptor().FullName())))), wild: wild}
					encoded, total := 0, 0
					for i := range 300 {
						m := mt.New()
						if i > 0 {
							f.fill(m, 0)
						}
						for _, jsonNames := range []bool{false, true} {
							for _, enums := range []map[string]*impl.EnumTable{svc.enums, nil} {
								total++
								// Zero values (none, all, or every
								// other field) by turns keep the run as
								// short as before.
								if checkSame(t, string(mt.Descriptor().FullName()), m.Interface(), enums, jsonNames, zeroTurn(i, mt.Descriptor())) {
									encoded++
								}
							}
						}
					}
					if !wild && encoded != total {
						t.Errorf("%s: the encoder wrote %d of %d clean responses; the rest took the protojson path", mt.Descriptor().FullName(), encoded, total)
					}
				}
			}
		})
	}
}

// Every message of the examples' files and the well-known types, as a
// response, also matches (top-level well-known types take the protojson
// path by design).
func TestResponseEncoderMatchesOnEveryMessage(t *testing.T) {
	wkt := []proto.Message{
		&timestamppb.Timestamp{}, &durationpb.Duration{}, &structpb.Struct{}, &structpb.Value{}, &structpb.ListValue{},
		&wrapperspb.StringValue{}, &wrapperspb.Int64Value{}, &wrapperspb.BytesValue{}, &wrapperspb.FloatValue{},
		&emptypb.Empty{}, &anypb.Any{}, &fieldmaskpb.FieldMask{},
	}
	for _, svc := range exampleServices() {
		msgs := svc.file.Messages()
		f := &filler{r: rand.New(rand.NewPCG(7, 7))}
		for i := range msgs.Len() {
			mt, err := protoregistryFind(msgs.Get(i).FullName())
			if err != nil {
				t.Fatal(err)
			}
			for range 30 {
				m := mt.New()
				f.fill(m, 0)
				checkSame(t, string(mt.Descriptor().FullName()), m.Interface(), svc.enums, false)
				checkSame(t, string(mt.Descriptor().FullName()), m.Interface(), svc.enums, true)
			}
		}
	}
	f := &filler{r: rand.New(rand.NewPCG(9, 9))}
	for _, w := range wkt {
		for range 30 {
			m := w.ProtoReflect().New()
			f.fill(m, 0)
			checkSame(t, string(m.Descriptor().FullName()), m.Interface(), nil, false)
		}
	}
}

// A response nested deeper than the encoder writes takes the protojson
// path and gets its answer.
func TestResponseEncoderDeepNesting(t *testing.T) {
	v := structpb.NewStringValue("leaf")
	for range 120 {
		v = structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{v}})
	}
	resp, _ := structpb.NewStruct(nil)
	resp.Fields["deep"] = v
	a, _ := anypb.New(resp)
	for _, m := range []proto.Message{resp, a, &archimatev1.CreateElementResponse{Element: &archimatev1.Element{Id: "x"}}} {
		checkSame(t, "deep", m, nil, false)
	}
}

// FuzzResponseEncoder: any wire bytes that decode as an example response,
// rendered by the encoder, equal the protojson path's rendering.
func FuzzResponseEncoder(f *testing.F) {
	svcs := exampleServices()
	type target struct {
		mt    protoreflect.MessageType
		enums map[string]*impl.EnumTable
	}
	var targets []target
	for _, svc := range svcs {
		for _, mt := range responseTypes(f, svc.file) {
			targets = append(targets, target{mt, svc.enums})
		}
	}
	fl := &filler{r: rand.New(rand.NewPCG(3, 3)), wild: true}
	for i, tg := range targets {
		m := tg.mt.New()
		fl.fill(m, 0)
		b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(m.Interface())
		f.Add(uint16(i), false, b)
	}
	f.Fuzz(func(t *testing.T, which uint16, jsonNames bool, wire []byte) {
		tg := targets[int(which)%len(targets)]
		m := tg.mt.New()
		if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(wire, m.Interface()); err != nil {
			return
		}
		checkSame(t, string(tg.mt.Descriptor().FullName()), m.Interface(), tg.enums, jsonNames)
		checkSame(t, string(tg.mt.Descriptor().FullName()), m.Interface(), nil, jsonNames)
	})
}

func protoregistryFind(n protoreflect.FullName) (protoreflect.MessageType, error) {
	return protoregistry.GlobalTypes.FindMessageByName(n)
}

// zeroTurn is the zero-value shape of the i-th message of a run: none, all
// fields, or every other field of md and the messages below it.
func zeroTurn(i int, md protoreflect.MessageDescriptor) runtime.ZeroForTest {
	switch i % 3 {
	case 1:
		return runtime.ZeroForTest{All: true}
	case 2:
		var names []string
		seen := map[protoreflect.FullName]bool{}
		var walk func(md protoreflect.MessageDescriptor)
		walk = func(md protoreflect.MessageDescriptor) {
			if seen[md.FullName()] {
				return
			}
			seen[md.FullName()] = true
			fields := md.Fields()
			for j := range fields.Len() {
				fd := fields.Get(j)
				if j%2 == 0 {
					names = append(names, string(fd.FullName()))
				}
				if fd.IsMap() {
					fd = fd.MapValue()
				}
				if fd.Message() != nil {
					walk(fd.Message())
				}
			}
		}
		walk(md)
		return runtime.ZeroForTest{Fields: names}
	}
	return runtime.ZeroForTest{}
}
