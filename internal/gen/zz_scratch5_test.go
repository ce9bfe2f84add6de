package gen_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"
	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
)

const oorSrc = `syntax = "proto3";
package oor.v1;
import "google/protobuf/timestamp.proto";
import "mcpwrite/v1/mcpwrite.proto";
option go_package = "example.com/oor/v1;oorv1";
service S {
  option (mcpwrite.v1.service) = {tool_naming: SNAKE_CASE};
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE}; }
}
enum Color { COLOR_UNSPECIFIED = 0; COLOR_RED = 1; }
message Req {
  string tenant = 1 [(mcpwrite.v1.field).derived = {context: TENANT_ID}];
  string id = 2 [(mcpwrite.v1.field).generated = {kind: UUID_V7}];
  Color color = 3 [(mcpwrite.v1.field).enum_alias = {style: PASCAL}];
}
message Resp { string id = 1; }
`

func TestScratchOutOfRange(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "oor.proto"), []byte(oorSrc), 0o644)
	base, err := plugintest.Request([]string{dir, "../../annotations"}, []string{"oor.proto"}, "")
	if err != nil { t.Fatal(err) }
	fdOf := func(r *pluginpb.CodeGeneratorRequest) *descriptorpb.FileDescriptorProto { return r.ProtoFile[len(r.ProtoFile)-1] }
	muts := map[string]func(fd *descriptorpb.FileDescriptorProto){
		"tool kind 9": func(fd *descriptorpb.FileDescriptorProto) { r := proto.GetExtension(fd.Service[0].Method[0].Options, mcpwritev1.E_Tool).(*mcpwritev1.ToolRules); r.Kind = mcpwritev1.ToolRules_Kind(9).Enum() },
		"classification 9": func(fd *descriptorpb.FileDescriptorProto) { r := proto.GetExtension(fd.Service[0].Method[0].Options, mcpwritev1.E_Tool).(*mcpwritev1.ToolRules); r.Classification = mcpwritev1.ToolRules_Classification(9).Enum() },
		"confirmation 9": func(fd *descriptorpb.FileDescriptorProto) { r := proto.GetExtension(fd.Service[0].Method[0].Options, mcpwritev1.E_Tool).(*mcpwritev1.ToolRules); r.Confirmation = mcpwritev1.ToolRules_Confirmation(9).Enum() },
		"tool_naming 9": func(fd *descriptorpb.FileDescriptorProto) { r := proto.GetExtension(fd.Service[0].Options, mcpwritev1.E_Service).(*mcpwritev1.ServiceRules); r.ToolNaming = mcpwritev1.ServiceRules_ToolNaming(9).Enum() },
		"expose 9": func(fd *descriptorpb.FileDescriptorProto) { r := proto.GetExtension(fd.Service[0].Options, mcpwritev1.E_Service).(*mcpwritev1.ServiceRules); r.Expose = mcpwritev1.ServiceRules_Expose(9).Enum() },
		"default_confirmation 9": func(fd *descriptorpb.FileDescriptorProto) { r := proto.GetExtension(fd.Service[0].Options, mcpwritev1.E_Service).(*mcpwritev1.ServiceRules); r.DefaultConfirmation = mcpwritev1.ToolRules_Confirmation(9).Enum() },
		"context 9": func(fd *descriptorpb.FileDescriptorProto) { r := proto.GetExtension(fd.MessageType[0].Field[0].Options, mcpwritev1.E_Field).(*mcpwritev1.FieldRules); r.GetDerived().Source = &mcpwritev1.Derived_Context{Context: 9} },
		"generated kind 9": func(fd *descriptorpb.FileDescriptorProto) { r := proto.GetExtension(fd.MessageType[0].Field[1].Options, mcpwritev1.E_Field).(*mcpwritev1.FieldRules); r.GetGenerated().Kind = mcpwritev1.Generated_Kind(9).Enum() },
		"style 9": func(fd *descriptorpb.FileDescriptorProto) { r := proto.GetExtension(fd.MessageType[0].Field[2].Options, mcpwritev1.E_Field).(*mcpwritev1.FieldRules); r.GetEnumAlias().Style = mcpwritev1.EnumAlias_Style(9).Enum() },
	}
	for name, mut := range muts {
		req := proto.Clone(base).(*pluginpb.CodeGeneratorRequest)
		mut(fdOf(req))
		raw, _ := proto.Marshal(req)
		req = &pluginpb.CodeGeneratorRequest{}
		proto.Unmarshal(raw, req)
		func() {
			defer func() { if e := recover(); e != nil { t.Logf("%s: PANIC %v", name, e) } }()
			resp, ok := fzRun(req)
			if !ok { t.Logf("%s: refused", name); return }
			if resp.Error != nil { t.Logf("%s: error %s", name, resp.GetError()); return }
			probs := fzCheck(req, resp)
			var hits []string
			for _, f := range resp.File { for _, l := range strings.Split(f.GetContent(), "\n") { if strings.Contains(l, "9") && !strings.Contains(l, "19") { hits = append(hits, strings.TrimSpace(l)) } } }
			t.Logf("%s: OK probs=%v lines with 9: %q", name, probs, hits)
		}()
	}
}
