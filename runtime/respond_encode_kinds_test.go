package runtime_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	_ "google.golang.org/protobuf/types/known/anypb"
	_ "google.golang.org/protobuf/types/known/durationpb"
	_ "google.golang.org/protobuf/types/known/emptypb"
	_ "google.golang.org/protobuf/types/known/fieldmaskpb"
	_ "google.golang.org/protobuf/types/known/structpb"
	_ "google.golang.org/protobuf/types/known/timestamppb"
	_ "google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// kindsMessage builds, at test time, a message with a field of every kind
// protojson writes: each scalar, enums (with an alias table), lists, maps
// with every key kind, every well-known type, a oneof, a proto3 optional,
// a custom json_name and nested messages of its own type.
func kindsMessage(t testing.TB) (protoreflect.MessageType, map[string]*impl.EnumTable) {
	t.Helper()
	T := descriptorpb.FieldDescriptorProto_Type_value
	field := func(name string, num int32, typ string, typeName string, repeated bool) *descriptorpb.FieldDescriptorProto {
		f := &descriptorpb.FieldDescriptorProto{
			Name: proto.String(name), Number: proto.Int32(num),
			Type:  descriptorpb.FieldDescriptorProto_Type(T["TYPE_"+typ]).Enum(),
			Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
		}
		if typeName != "" {
			f.TypeName = proto.String(typeName)
		}
		if repeated {
			f.Label = descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
		}
		return f
	}
	var fields []*descriptorpb.FieldDescriptorProto
	var nested []*descriptorpb.DescriptorProto
	n := int32(0)
	add := func(name, typ, typeName string, repeated bool) *descriptorpb.FieldDescriptorProto {
		n++
		f := field(name, n, typ, typeName, repeated)
		fields = append(fields, f)
		return f
	}
	mapField := func(name, keyType, valType, valTypeName string) {
		name = strings.ToLower(name)
		entry := "Map" + strings.ToUpper(name[:1]) + name[1:] + "Entry"
		nested = append(nested, &descriptorpb.DescriptorProto{
			Name:    proto.String(entry),
			Field:   []*descriptorpb.FieldDescriptorProto{field("key", 1, keyType, "", false), field("value", 2, valType, valTypeName, false)},
			Options: &descriptorpb.MessageOptions{MapEntry: proto.Bool(true)},
		})
		add("map_"+name, "MESSAGE", ".kinds.All."+entry, true)
	}
	for _, s := range []string{"INT32", "INT64", "UINT32", "UINT64", "SINT32", "SINT64", "FIXED32", "FIXED64", "SFIXED32", "SFIXED64", "FLOAT", "DOUBLE", "BOOL", "STRING", "BYTES"} {
		add("f_"+s, s, "", false)
		add("r_"+s, s, "", true)
	}
	add("color", "ENUM", ".kinds.Color", false)
	add("colors", "ENUM", ".kinds.Color", true)
	add("plain", "ENUM", ".kinds.Plain", false)
	add("null_value", "ENUM", ".google.protobuf.NullValue", false)
	add("child", "MESSAGE", ".kinds.All", false)
	add("children", "MESSAGE", ".kinds.All", true)
	for _, k := range []string{"INT32", "INT64", "UINT32", "UINT64", "SINT32", "SINT64", "FIXED32", "FIXED64", "SFIXED32", "SFIXED64", "BOOL", "STRING"} {
		mapField("k"+k, k, "ENUM", ".kinds.Color")
	}
	mapField("msg", "STRING", "MESSAGE", ".kinds.All")
	mapField("dbl", "INT32", "DOUBLE", "")
	mapField("byt", "BOOL", "BYTES", "")
	for _, w := range []string{"Timestamp", "Duration", "Struct", "Value", "ListValue", "Any", "FieldMask", "Empty",
		"StringValue", "Int64Value", "UInt64Value", "Int32Value", "UInt32Value", "BoolValue", "BytesValue", "FloatValue", "DoubleValue"} {
		add("wk_"+w, "MESSAGE", ".google.protobuf."+w, false)
	}
	add("wk_values", "MESSAGE", ".google.protobuf.Value", true)
	add("wk_times", "MESSAGE", ".google.protobuf.Timestamp", true)
	mapField("wk", "STRING", "MESSAGE", ".google.protobuf.Value")
	for _, f := range []*descriptorpb.FieldDescriptorProto{add("one_s", "STRING", "", false), add("one_c", "ENUM", ".kinds.Color", false), add("one_m", "MESSAGE", ".kinds.All", false)} {
		f.OneofIndex = proto.Int32(0)
	}
	opt := add("opt", "INT32", "", false)
	opt.OneofIndex, opt.Proto3Optional = proto.Int32(1), proto.Bool(true)
	add("json_named", "STRING", "", false).JsonName = proto.String("custom<Name>\u00e9")
	add("warnings", "STRING", "", true)
	add("success", "BOOL", "", false)
	enumVals := func(names ...string) []*descriptorpb.EnumValueDescriptorProto {
		var out []*descriptorpb.EnumValueDescriptorProto
		for i, n := range names {
			out = append(out, &descriptorpb.EnumValueDescriptorProto{Name: proto.String(n), Number: proto.Int32(int32(i))})
		}
		return out
	}
	fdp := &descriptorpb.FileDescriptorProto{
		Name:    proto.String("kinds/kinds.proto"),
		Package: proto.String("kinds"),
		Syntax:  proto.String("proto3"),
		Dependency: []string{"google/protobuf/timestamp.proto", "google/protobuf/duration.proto", "google/protobuf/struct.proto",
			"google/protobuf/any.proto", "google/protobuf/field_mask.proto", "google/protobuf/empty.proto", "google/protobuf/wrappers.proto"},
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("All"), Field: fields, NestedType: nested,
			OneofDecl: []*descriptorpb.OneofDescriptorProto{{Name: proto.String("pick")}, {Name: proto.String("_opt")}},
		}},
		EnumType: []*descriptorpb.EnumDescriptorProto{
			{Name: proto.String("Color"), Value: enumVals("COLOR_UNSPECIFIED", "COLOR_RED", "COLOR_DARK_BLUE", "COLOR_GREEN")},
			{Name: proto.String("Plain"), Value: enumVals("PLAIN_UNSPECIFIED", "PLAIN_A")},
		},
	}
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatalf("kinds descriptor: %v", err)
	}
	enums := map[string]*impl.EnumTable{
		"kinds.Color": impl.NewEnumTable("kinds.Color", []impl.EnumValue{
			{Number: 1, Name: "COLOR_RED", Alias: "Red"},
			{Number: 2, Name: "COLOR_DARK_BLUE", Alias: "Dark \"blue\"\n\u2028"},
			{Number: 3, Name: "COLOR_GREEN"},
		}, ""),
	}
	return dynamicpb.NewMessageType(fd.Messages().Get(0)), enums
}

// Every kind protojson writes, random values: the encoder's envelope is
// the protojson path's, byte for byte.
func TestResponseEncoderEveryKind(t *testing.T) {
	mt, enums := kindsMessage(t)
	for _, wild := range []bool{false, true} {
		f := &filler{r: rand.New(rand.NewPCG(11, 13)), wild: wild, maxDepth: 2}
		encoded, total := 0, 0
		for i := range 400 {
			m := mt.New()
			f.fill(m, 0)
			for _, jsonNames := range []bool{false, true} {
				for _, tables := range []map[string]*impl.EnumTable{enums, nil} {
					total++
					if checkSame(t, "kinds.All", m.Interface(), tables, jsonNames, zeroTurn(i, mt.Descriptor())) {
						encoded++
					}
				}
			}
		}
		t.Logf("wild %v: the encoder wrote %d of %d", wild, encoded, total)
		if !wild && encoded != total {
			t.Errorf("the encoder wrote %d of %d clean responses; the rest took the protojson path", encoded, total)
		}
		if wild && encoded == 0 {
			t.Errorf("the encoder wrote none of the responses")
		}
	}
}
