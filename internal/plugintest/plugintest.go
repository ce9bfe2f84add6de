// Package plugintest runs protoc-gen-mcpwrite in process: it compiles proto
// files with protocompile into a CodeGeneratorRequest (round-tripped through
// its wire form, as protoc delivers it on stdin) and returns the response.
package plugintest

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/linker"
	gengo "google.golang.org/protobuf/cmd/protoc-gen-go/internal_gengo"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"

	// Registers google/api/field_behavior.proto for protos that import it.
	_ "google.golang.org/genproto/googleapis/api/annotations"
	// Registers google/api/httpbody.proto (webhook and raw-body requests).
	_ "google.golang.org/genproto/googleapis/api/httpbody"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/gen"
)

// Request compiles files (paths relative to one of importPaths) and builds
// the CodeGeneratorRequest protoc would send, with parameter.
func Request(importPaths, files []string, parameter string) (*pluginpb.CodeGeneratorRequest, error) {
	return RequestWith(nil, importPaths, files, parameter)
}

// RequestWith is Request taking the imports it compiled before from
// imports, and keeping there those it compiles now (nil: no cache).
func RequestWith(imports *Imports, importPaths, files []string, parameter string) (*pluginpb.CodeGeneratorRequest, error) {
	comp := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
			ImportPaths: importPaths,
			// The resolver joins import paths itself; path is ready to open.
			Accessor: func(path string) (io.ReadCloser, error) { return os.Open(path) },
		}),
		SourceInfoMode: protocompile.SourceInfoStandard,
	}
	comp.Resolver = registryFallback{comp.Resolver}
	if imports != nil {
		comp.Resolver = newCachedResolver(imports, files, comp.Resolver)
	}
	res, err := comp.Compile(context.Background(), files...)
	if err != nil {
		return nil, err
	}
	if imports != nil {
		imports.keep(res, files)
	}
	req := &pluginpb.CodeGeneratorRequest{FileToGenerate: files}
	if parameter != "" {
		req.Parameter = proto.String(parameter)
	}
	seen := map[string]bool{}
	var add func(fd protoreflect.FileDescriptor)
	add = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		imps := fd.Imports()
		for i := 0; i < imps.Len(); i++ {
			add(imps.Get(i).FileDescriptor)
		}
		var fdp *descriptorpb.FileDescriptorProto
		if lf, ok := fd.(linker.Result); ok {
			fdp = lf.FileDescriptorProto()
		} else {
			fdp = protodesc.ToFileDescriptorProto(fd)
		}
		req.ProtoFile = append(req.ProtoFile, fdp)
	}
	for _, f := range res {
		add(f)
	}
	// Round-trip through the wire form so options become the registered
	// extension types, exactly as protoc delivers them.
	raw, err := proto.Marshal(req)
	if err != nil {
		return nil, err
	}
	out := &pluginpb.CodeGeneratorRequest{}
	if err := proto.Unmarshal(raw, out); err != nil {
		return nil, err
	}
	return out, nil
}

// registryFallback resolves files the Go registry knows (google/api/*.proto)
// when no import path has them.
type registryFallback struct{ next protocompile.Resolver }

func (r registryFallback) FindFileByPath(path string) (protocompile.SearchResult, error) {
	res, err := r.next.FindFileByPath(path)
	if err == nil {
		return res, nil
	}
	if fd, ferr := protoregistry.GlobalFiles.FindFileByPath(path); ferr == nil {
		return protocompile.SearchResult{Proto: protodesc.ToFileDescriptorProto(fd)}, nil
	}
	return res, err
}

// Run runs the plugin on req and returns its response; annotation mistakes
// are in the response's Error, as protoc would see them.
func Run(req *pluginpb.CodeGeneratorRequest) (*pluginpb.CodeGeneratorResponse, error) {
	cfg := gen.Config{}
	opts := protogen.Options{ParamFunc: cfg.Set}
	p, err := opts.New(req)
	if err != nil {
		return nil, err
	}
	p.SupportedFeatures = uint64(pluginpb.CodeGeneratorResponse_FEATURE_PROTO3_OPTIONAL | pluginpb.CodeGeneratorResponse_FEATURE_SUPPORTS_EDITIONS)
	p.SupportedEditionsMinimum = descriptorpb.Edition_EDITION_PROTO2
	p.SupportedEditionsMaximum = descriptorpb.Edition_EDITION_2023
	if err := gen.Generate(p, cfg); err != nil {
		p.Error(err)
	}
	return gen.Response(p), nil
}

// RunWithGo runs protoc-gen-go and the plugin over req in one protogen run,
// as `buf generate` with both plugins does, and returns every output file
// by name. A plugin error is returned as an error.
func RunWithGo(req *pluginpb.CodeGeneratorRequest) (map[string][]byte, error) {
	cfg := gen.Config{}
	p, err := protogen.Options{ParamFunc: cfg.Set}.New(req)
	if err != nil {
		return nil, err
	}
	p.SupportedFeatures = gengo.SupportedFeatures
	p.SupportedEditionsMinimum = descriptorpb.Edition_EDITION_PROTO2
	p.SupportedEditionsMaximum = descriptorpb.Edition_EDITION_2023
	for _, f := range p.Files {
		if f.Generate {
			gengo.GenerateFile(p, f)
		}
	}
	if err := gen.Generate(p, cfg); err != nil {
		return nil, fmt.Errorf("plugin: %v", err)
	}
	resp := gen.Response(p)
	if resp.Error != nil {
		return nil, fmt.Errorf("response: %s", resp.GetError())
	}
	out := map[string][]byte{}
	for _, f := range resp.File {
		out[f.GetName()] = []byte(f.GetContent())
	}
	return out, nil
}
