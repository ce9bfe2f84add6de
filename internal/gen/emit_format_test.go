package gen_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/pluginpb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/gen"
	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
)

// formatCase is one request of the formatting test: protos under dir with
// the plugin parameter.
type formatCase struct {
	name, dir, param string
	files            []string
}

// protoFiles lists the .proto files under dir, relative to it.
func protoFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".proto") {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

var mcpwriteOpt = regexp.MustCompile(`protoc-gen-mcpwrite\n\s+out: .*\n\s+opt: \[?([^\]\n]*)`)

// formatCases are every golden case and every example and end-to-end
// golden module, with their parameters, and an example under module=.
func formatCases(t *testing.T) []formatCase {
	t.Helper()
	var cases []formatCase
	golden, err := filepath.Glob("../../golden/testdata/*/input")
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range golden {
		param := "paths=source_relative"
		if raw, err := os.ReadFile(filepath.Join(filepath.Dir(in), "param.txt")); err == nil {
			param = strings.TrimSpace(string(raw))
		}
		cases = append(cases, formatCase{name: filepath.Base(filepath.Dir(in)), dir: in, param: param})
	}
	modules, err := filepath.Glob("../../examples/*/buf.gen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e2e, err := filepath.Glob("../../golden/e2e/*/buf.gen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, y := range append(modules, e2e...) {
		raw, err := os.ReadFile(y)
		if err != nil {
			t.Fatal(err)
		}
		m := mcpwriteOpt.FindSubmatch(raw)
		if m == nil {
			t.Fatalf("%s: no protoc-gen-mcpwrite opt", y)
		}
		param := strings.ReplaceAll(string(m[1]), " ", "")
		cases = append(cases, formatCase{name: y, dir: filepath.Join(filepath.Dir(y), "proto"), param: param})
	}
	cases = append(cases, formatCase{name: "crm under module=", dir: "../../examples/crm/proto", param: "module=github.com/mcpwrite/protoc-gen-mcpwrite/examples"})
	for i := range cases {
		cases[i].files = protoFiles(t, cases[i].dir)
	}
	if len(cases) < 40 {
		t.Fatalf("found %d cases, want the goldens, examples and end-to-end modules", len(cases))
	}
	return cases
}

// generateWith runs the plugin on req, the Go files formatted by protogen
// (reference) or by the generator itself.
func generateWith(t *testing.T, req *pluginpb.CodeGeneratorRequest, reference bool) *pluginpb.CodeGeneratorResponse {
	t.Helper()
	cfg := gen.Config{}
	p, err := protogen.Options{ParamFunc: cfg.Set}.New(req)
	if err != nil {
		t.Fatal(err)
	}
	if reference {
		cfg = gen.ProtogenFormats(cfg)
	}
	if err := gen.Generate(p, cfg); err != nil {
		p.Error(err)
	}
	if reference {
		return p.Response()
	}
	return gen.Response(p)
}

// The Go files the generator formats itself are byte for byte those
// protogen's GeneratedFile.Content writes, listed in the same place of the
// response, on every golden case, example and end-to-end module.
func TestFormatGoAsProtogen(t *testing.T) {
	goFiles := 0
	for _, c := range formatCases(t) {
		req, err := plugintest.Request([]string{c.dir, "../../annotations", "../../third_party/protovalidate"}, c.files, c.param)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		want := generateWith(t, req, true)
		got := generateWith(t, req, false)
		if want.GetError() != "" {
			t.Fatalf("%s: %s", c.name, want.GetError())
		}
		if len(got.File) != len(want.File) {
			t.Fatalf("%s: %d files, protogen writes %d", c.name, len(got.File), len(want.File))
		}
		for i, f := range want.File {
			if got.File[i].GetName() != f.GetName() || got.File[i].GetContent() != f.GetContent() {
				t.Errorf("%s: file %d is %s (%d bytes), protogen writes %s (%d bytes)", c.name, i, got.File[i].GetName(), len(got.File[i].GetContent()), f.GetName(), len(f.GetContent()))
			}
			if strings.HasSuffix(f.GetName(), ".mcpwrite.go") {
				goFiles++
			}
		}
		if !proto.Equal(got, want) {
			t.Errorf("%s: the responses differ", c.name)
		}
	}
	if goFiles < 40 {
		t.Errorf("compared %d Go files, want every golden's and example's", goFiles)
	}
}
