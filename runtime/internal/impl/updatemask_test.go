package impl

import (
	"reflect"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	_ "google.golang.org/protobuf/types/known/timestamppb" // room.proto depends on it
)

// shelfDesc is library.v1.Shelf: name (IDENTIFIER), theme, floor
// (IMMUTABLE), dusted (OUTPUT_ONLY), sign (a message with text), labels
// (a map) and tags (repeated).
func shelfDesc(t *testing.T) protoreflect.MessageDescriptor {
	t.Helper()
	behave := func(bs ...annotations.FieldBehavior) *descriptorpb.FieldOptions {
		o := &descriptorpb.FieldOptions{}
		proto.SetExtension(o, annotations.E_FieldBehavior, bs)
		return o
	}
	str := descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum()
	opt := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()
	rep := descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
	field := func(name string, n int32, o *descriptorpb.FieldOptions) *descriptorpb.FieldDescriptorProto {
		return &descriptorpb.FieldDescriptorProto{Name: proto.String(name), Number: proto.Int32(n), Type: str, Label: opt, Options: o}
	}
	tags := field("tags", 7, nil)
	tags.Label = rep
	fdp := &descriptorpb.FileDescriptorProto{
		Name: proto.String("shelf.proto"), Package: proto.String("library.v1"), Syntax: proto.String("proto3"),
		Dependency: []string{"google/api/field_behavior.proto"},
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("Shelf"),
			Field: []*descriptorpb.FieldDescriptorProto{
				field("name", 1, behave(annotations.FieldBehavior_IDENTIFIER)),
				field("theme", 2, nil),
				field("floor", 3, behave(annotations.FieldBehavior_IMMUTABLE)),
				field("dusted", 4, behave(annotations.FieldBehavior_OUTPUT_ONLY)),
				{Name: proto.String("sign"), Number: proto.Int32(5), Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), TypeName: proto.String(".library.v1.Sign"), Label: opt},
				{Name: proto.String("labels"), Number: proto.Int32(6), Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), TypeName: proto.String(".library.v1.Shelf.LabelsEntry"), Label: rep},
				tags,
			},
			NestedType: []*descriptorpb.DescriptorProto{{
				Name:    proto.String("LabelsEntry"),
				Field:   []*descriptorpb.FieldDescriptorProto{field("key", 1, nil), field("value", 2, nil)},
				Options: &descriptorpb.MessageOptions{MapEntry: proto.Bool(true)},
			}},
		}, {
			Name:  proto.String("Sign"),
			Field: []*descriptorpb.FieldDescriptorProto{field("text", 1, nil), field("painted", 2, behave(annotations.FieldBehavior_OUTPUT_ONLY))},
		}},
	}
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	return fd.Messages().ByName("Shelf")
}

func TestCheckUpdateMaskReportsEveryBadPath(t *testing.T) {
	md := shelfDesc(t)
	d := NewDecoder(Limits{})
	mask := &fieldmaskpb.FieldMask{Paths: []string{"theme", "themee", "floor", "dusted", "name", "sign.text", "sign.painted", "sign.txt", "labels.shelf_a", "tags.x", "theme.x"}}
	got := CheckUpdateMask(d, "update_mask", mask, dynamicpb.NewMessage(md), "name")
	if got != mask {
		t.Fatalf("a given mask must reach the handler as given, got %v", got)
	}
	var lines []string
	for _, e := range d.Errors() {
		line := e.Field + " | " + e.Code + " | " + e.Message
		if e.Suggestions != nil {
			line += " | " + strings.Join(e.Suggestions.DidYouMean, ",")
		}
		lines = append(lines, line)
	}
	want := []string{
		`update_mask | VALIDATION_ERROR | update_mask path "themee": library.v1.Shelf has no field "themee"; did you mean "theme"? | theme`,
		`update_mask | VALIDATION_ERROR | update_mask path "floor": field library.v1.Shelf.floor is IMMUTABLE: it cannot change after the resource is created; leave it out of the mask`,
		`update_mask | VALIDATION_ERROR | update_mask path "dusted": field library.v1.Shelf.dusted is OUTPUT_ONLY: the server sets it; leave it out of the mask`,
		`update_mask | VALIDATION_ERROR | update_mask path "name": field library.v1.Shelf.name names the resource to update; leave it out of the mask`,
		`update_mask | VALIDATION_ERROR | update_mask path "sign.painted": field library.v1.Sign.painted is OUTPUT_ONLY: the server sets it; leave it out of the mask`,
		`update_mask | VALIDATION_ERROR | update_mask path "sign.txt": library.v1.Sign has no field "txt"; did you mean "sign.text"? | sign.text`,
		`update_mask | VALIDATION_ERROR | update_mask path "tags.x": tags is a repeated field, which has no fields to name`,
		`update_mask | VALIDATION_ERROR | update_mask path "theme.x": theme is not a message, which has no fields to name`,
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("errors:\n got %q\nwant %q", lines, want)
	}
}

// roomDesc is library.v1.Room: a frame (Frame: wood (Wood: grain, a
// room back to Room), painted_at a Timestamp) and a parent Room.
func roomDesc(t *testing.T) protoreflect.MessageDescriptor {
	t.Helper()
	opt := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()
	msg := func(name string, n int32, typ string) *descriptorpb.FieldDescriptorProto {
		return &descriptorpb.FieldDescriptorProto{Name: proto.String(name), Number: proto.Int32(n), Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), TypeName: proto.String(typ), Label: opt}
	}
	str := func(name string, n int32) *descriptorpb.FieldDescriptorProto {
		return &descriptorpb.FieldDescriptorProto{Name: proto.String(name), Number: proto.Int32(n), Type: descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum(), Label: opt}
	}
	fdp := &descriptorpb.FileDescriptorProto{
		Name: proto.String("room.proto"), Package: proto.String("library.v1"), Syntax: proto.String("proto3"),
		Dependency: []string{"google/protobuf/timestamp.proto"},
		MessageType: []*descriptorpb.DescriptorProto{
			{Name: proto.String("Room"), Field: []*descriptorpb.FieldDescriptorProto{str("name", 1), msg("frame", 2, ".library.v1.Frame"), msg("parent", 3, ".library.v1.Room")}},
			{Name: proto.String("Frame"), Field: []*descriptorpb.FieldDescriptorProto{msg("wood", 1, ".library.v1.Wood"), msg("painted_at", 2, ".google.protobuf.Timestamp")}},
			{Name: proto.String("Wood"), Field: []*descriptorpb.FieldDescriptorProto{str("grain", 1), msg("room", 2, ".library.v1.Room")}},
		},
	}
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	return fd.Messages().ByName("Room")
}

// A path passes through every message once and ends at a well-known type,
// as the schema's update_mask pattern lists the paths: deep paths through
// different messages are taken, a path on into a recursive message or a
// well-known type's fields is refused with the path to end at.
func TestCheckUpdateMaskEndsAtRecursionAndWellKnownTypes(t *testing.T) {
	md := roomDesc(t)
	d := NewDecoder(Limits{})
	ok := []string{"frame", "frame.wood", "frame.wood.grain", "frame.wood.room", "frame.painted_at", "parent"}
	CheckUpdateMask(d, "update_mask", &fieldmaskpb.FieldMask{Paths: ok}, dynamicpb.NewMessage(md), "name")
	if es := d.Errors(); len(es) != 0 {
		t.Fatalf("paths through each message once: %v", es)
	}
	bad := []string{"parent.frame", "frame.wood.room.frame", "frame.painted_at.seconds"}
	CheckUpdateMask(d, "update_mask", &fieldmaskpb.FieldMask{Paths: bad}, dynamicpb.NewMessage(md), "name")
	var lines []string
	for _, e := range d.Errors() {
		lines = append(lines, e.Field+" | "+e.Code+" | "+e.Message)
	}
	want := []string{
		`update_mask | VALIDATION_ERROR | update_mask path "parent.frame": parent is a library.v1.Room again (a recursive message), which an update replaces whole; end the path at "parent"`,
		`update_mask | VALIDATION_ERROR | update_mask path "frame.wood.room.frame": room is a library.v1.Room again (a recursive message), which an update replaces whole; end the path at "frame.wood.room"`,
		`update_mask | VALIDATION_ERROR | update_mask path "frame.painted_at.seconds": painted_at is a google.protobuf.Timestamp, which an update replaces whole; end the path at "frame.painted_at"`,
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("errors:\n got %q\nwant %q", lines, want)
	}
}

func TestCheckUpdateMaskStar(t *testing.T) {
	md := shelfDesc(t)
	d := NewDecoder(Limits{})
	CheckUpdateMask(d, "update_mask", &fieldmaskpb.FieldMask{Paths: []string{"*"}}, dynamicpb.NewMessage(md), "name")
	if es := d.Errors(); len(es) != 0 {
		t.Fatalf(`"*" alone is a full replacement; got %v`, es)
	}
	CheckUpdateMask(d, "update_mask", &fieldmaskpb.FieldMask{Paths: []string{"*", "theme"}}, dynamicpb.NewMessage(md), "name")
	es := d.Errors()
	if len(es) != 1 || es[0].Message != `path "*" replaces the whole resource and must be the only path` {
		t.Fatalf("errors: %v", es)
	}
}

func TestCheckUpdateMaskDerivesFromSetFields(t *testing.T) {
	md := shelfDesc(t)
	m := dynamicpb.NewMessage(md)
	m.Set(md.Fields().ByName("name"), protoreflect.ValueOfString("branches/b/shelves/s"))
	m.Set(md.Fields().ByName("tags"), protoreflect.ValueOfList(m.NewField(md.Fields().ByName("tags")).List()))
	l := m.Mutable(md.Fields().ByName("tags")).List()
	l.Append(protoreflect.ValueOfString("x"))
	m.Set(md.Fields().ByName("theme"), protoreflect.ValueOfString("poetry"))
	d := NewDecoder(Limits{})
	got := CheckUpdateMask(d, "update_mask", nil, m, "name")
	if want := []string{"theme", "tags"}; !reflect.DeepEqual(got.GetPaths(), want) {
		t.Errorf("derived mask %v, want %v", got.GetPaths(), want)
	}
	if es := d.Errors(); len(es) != 0 {
		t.Errorf("errors: %v", es)
	}
	// No resource at all: nothing to derive, the mask stays absent.
	if got := CheckUpdateMask(d, "update_mask", nil, dynamicpb.NewMessageType(md).Zero().Interface(), "name"); got != nil {
		t.Errorf("mask without a resource: %v", got)
	}
}

func TestKnownOwnedSaysTheServerOwnsTheField(t *testing.T) {
	obj, _ := Parse([]byte(`{"name":"n","dusted":"x","themee":"y"}`), Limits{})
	d := NewDecoder(Limits{})
	d.KnownOwned(obj, []string{"name", "theme"}, map[string]string{"dusted": "OUTPUT_ONLY: the server sets it"})
	var got []string
	for _, e := range d.Errors() {
		got = append(got, e.Field+" | "+e.Code+" | "+e.Message)
	}
	want := []string{
		`dusted | UNKNOWN_FIELD | field "dusted" is owned by the server (OUTPUT_ONLY: the server sets it); leave it out`,
		`themee | UNKNOWN_FIELD | unknown field "themee"; did you mean "theme"?`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n got %q\nwant %q", got, want)
	}
}

// Fields the server fills by the project's own annotations (owned) are
// refused by name, "set by the server", and never in a derived mask, even
// when the resource carries a value for them; a resource whose identity is
// not "name" keeps its identity out of the derived mask too.
func TestCheckUpdateMaskOwnedRefusesAndNeverDerivesServerFields(t *testing.T) {
	md := shelfDesc(t)
	owned := map[string]string{"library.v1.Shelf.theme": "is generated: set by the server", "library.v1.Sign.text": "is hidden: set by the server"}
	d := NewDecoder(Limits{})
	CheckUpdateMaskOwned(d, "update_mask", &fieldmaskpb.FieldMask{Paths: []string{"theme", "sign.text", "tags"}}, dynamicpb.NewMessage(md), "name", owned)
	var got []string
	for _, e := range d.Errors() {
		got = append(got, e.Field+" | "+e.Message)
	}
	want := []string{
		`update_mask | update_mask path "theme": field library.v1.Shelf.theme is generated: set by the server; leave it out of the mask`,
		`update_mask | update_mask path "sign.text": field library.v1.Sign.text is hidden: set by the server; leave it out of the mask`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n got %q\nwant %q", got, want)
	}
	m := dynamicpb.NewMessage(md)
	m.Set(md.Fields().ByName("name"), protoreflect.ValueOfString("n"))
	m.Set(md.Fields().ByName("theme"), protoreflect.ValueOfString("filled"))
	m.Set(md.Fields().ByName("floor"), protoreflect.ValueOfString("2"))
	d = NewDecoder(Limits{})
	if got := CheckUpdateMaskOwned(d, "update_mask", nil, m, "floor", owned); !reflect.DeepEqual(got.GetPaths(), []string{"name"}) {
		t.Errorf("derived mask %v, want [name] (theme owned, floor the identity)", got.GetPaths())
	}
}
