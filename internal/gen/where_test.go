package gen

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"
)

// where prints buf's 1-based file:line:col from the 0-based source info,
// and the file alone when the request carries no source info.
func TestWhereIsOneBasedAndFallsBackToTheFile(t *testing.T) {
	fdp := &descriptorpb.FileDescriptorProto{
		Name:    proto.String("a/b.proto"),
		Package: proto.String("a"),
		Syntax:  proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name:  proto.String("M"),
			Field: []*descriptorpb.FieldDescriptorProto{{Name: proto.String("f"), Number: proto.Int32(1), Type: descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum(), JsonName: proto.String("f")}},
		}},
		SourceCodeInfo: &descriptorpb.SourceCodeInfo{Location: []*descriptorpb.SourceCodeInfo_Location{
			{Path: []int32{4, 0}, Span: []int32{3, 0, 5, 1}},
			{Path: []int32{4, 0, 2, 0}, Span: []int32{4, 2, 13}},
		}},
	}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := fd.Messages().Get(0)
	for _, c := range []struct {
		got, want string
	}{
		{where(m), "a/b.proto:4:1"},
		{where(m.Fields().Get(0)), "a/b.proto:5:3"},
	} {
		if c.got != c.want {
			t.Errorf("where = %q, want %q", c.got, c.want)
		}
	}
	fdp.SourceCodeInfo = nil
	bare, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := where(bare.Messages().Get(0).Fields().Get(0)); got != "a/b.proto" {
		t.Errorf("without source info: where = %q, want %q", got, "a/b.proto")
	}
}
