package golden

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/pluginpb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
)

const module = "github.com/mcpwrite/protoc-gen-mcpwrite/"

// TestGoldenCodeCompiles generates every golden case together with
// protoc-gen-go into a directory inside this module (under testdata, so
// ./... never sees it) and builds and vets it against this runtime: proto2
// pointers, proto3 optional, editions presence, oneofs, maps and every
// well-known type must produce code that compiles, not only code that
// matches its golden file.
func TestGoldenCodeCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds generated code with the go command")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root, dir, packages := GenerateCases(t)
	pattern := "./golden/" + filepath.ToSlash(dir) + "/..."
	list := exec.Command(goTool, "list", pattern)
	list.Dir = root
	out, err := list.CombinedOutput()
	if err != nil || len(strings.Fields(string(out))) < 20 {
		t.Fatalf("go list %s found too few packages (%v):\n%s", pattern, err, out)
	}
	for _, verb := range []string{"build", "vet"} {
		cmd := exec.Command(goTool, verb, pattern)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go %s %s: %v\n%s", verb, pattern, err, out)
		}
	}
	t.Logf("%d generated Go files compiled and vetted", packages)
}

// generated is the one generation of the golden cases the tests of this
// package build on, so the go command compiles each generated package once.
var generated struct {
	once      sync.Once
	root, dir string
	packages  int
	ok        bool   // the generation finished
	release   func() // removes dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if generated.release != nil {
		generated.release()
	}
	os.Exit(code)
}

// GenerateCases generates every golden case together with protoc-gen-go,
// once per test binary, into testdata/compile-cache (plugintest.CompileDir:
// the same path every run, so the go command's cache keeps what it
// compiled; removed when the tests end), each at a Go package below module+"golden/"+dir, and
// returns the module root, that directory and how many Go files it wrote.
func GenerateCases(t *testing.T) (root, dir string, packages int) {
	t.Helper()
	generated.once.Do(func() {
		generated.root, generated.dir, generated.packages = generateCases(t)
		generated.ok = true
	})
	if !generated.ok {
		t.Fatal("generating the golden cases failed (see the first test that asked for them)")
	}
	return generated.root, generated.dir, generated.packages
}

func generateCases(t *testing.T) (root, dir string, packages int) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir, release, err := plugintest.CompileDir("testdata", "compile-cache")
	if err != nil {
		t.Fatal(err)
	}
	generated.dir, generated.release = dir, release
	base := module + "golden/" + filepath.ToSlash(dir)
	cases, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if !c.IsDir() || strings.HasPrefix(c.Name(), "compile-") {
			continue
		}
		req := request(t, filepath.Join("testdata", c.Name()))
		remap(req, base+"/"+c.Name())
		files, err := plugintest.RunWithGo(req)
		if err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		for name, content := range files {
			rel, ok := strings.CutPrefix(name, module)
			if !ok {
				t.Fatalf("%s: output %s is outside the module", c.Name(), name)
			}
			path := filepath.Join(root, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, content, 0o644); err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_grpc.pb.go") {
				packages++
			}
		}
	}
	return root, dir, packages
}

// remap points every file to generate at a Go package below base, keeping
// its package name, and writes by import path, so the output lands inside
// this module.
func remap(req *pluginpb.CodeGeneratorRequest, base string) {
	var params []string
	for _, p := range strings.Split(req.GetParameter(), ",") {
		if p != "" && !strings.HasPrefix(p, "paths=") {
			params = append(params, p)
		}
	}
	req.Parameter = proto.String(strings.Join(params, ","))
	gen := map[string]bool{}
	for _, f := range req.FileToGenerate {
		gen[f] = true
	}
	for _, fd := range req.ProtoFile {
		if !gen[fd.GetName()] {
			continue
		}
		goPkg := fd.GetOptions().GetGoPackage()
		name := goPkg[strings.LastIndex(goPkg, ";")+1:]
		path := strings.TrimPrefix(goPkg[:max(strings.LastIndex(goPkg, ";"), 0)], "example.com/golden/")
		fd.Options.GoPackage = proto.String(base + "/" + path + ";" + name)
	}
}
