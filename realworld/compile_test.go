package realworld

import (
	"bytes"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
)

const module = "github.com/mcpwrite/protoc-gen-mcpwrite/"

// linked are the proto directories whose Go packages this module already
// depends on; every other file of a request is generated with protoc-gen-go.
var linked = []string{"google/protobuf/", "google/api/", "google/rpc/", "mcpwrite/", "buf/validate/"}

// TestRealworldCodeCompiles generates every adopted corpus file, with
// protoc-gen-go for it and its dependencies, into a directory inside this
// module (under testdata/compile-cache, so ./... never sees it), then builds and vets it
// against this runtime.
func TestRealworldCodeCompiles(t *testing.T) {
	skipWithoutCorpus(t)
	if testing.Short() {
		t.Skip("builds generated code with the go command")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command on PATH: %v", err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	// The same path every run, so the go command's cache keeps what it
	// compiled.
	dir, release, err := plugintest.CompileDir("testdata", "compile-cache")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	base := module + "realworld/" + filepath.ToSlash(dir)
	written := map[string]bool{}
	mcpwrite := 0
	for _, file := range corpus {
		req := request(t, file)
		remap(req, base)
		files, err := plugintest.RunWithGo(req)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for name, content := range files {
			rel, ok := strings.CutPrefix(name, module)
			if !ok {
				t.Fatalf("%s: output %s is outside the module", file, name)
			}
			if strings.HasSuffix(name, ".mcpwrite.go") {
				mcpwrite++
			}
			if written[rel] {
				continue // a dependency shared by two corpus files
			}
			written[rel] = true
			path := filepath.Join(root, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, content, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if mcpwrite != len(corpus) {
		t.Fatalf("%d .mcpwrite.go files for %d corpus files", mcpwrite, len(corpus))
	}
	t.Logf("%d generated files (%d .mcpwrite.go) built and vetted", len(written), mcpwrite)
	pattern := "./realworld/" + filepath.ToSlash(dir) + "/..."
	for _, verb := range []string{"build", "vet"} {
		cmd := exec.Command(goTool, verb, pattern)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s %s: %v\n%s", verb, pattern, err, out)
		}
	}
	serveSecretManager(t, goTool, root, dir, base)
}

// serveSecretManager runs testdata/secretmanager_e2e_test.go.txt in the
// generated Secret Manager package: the adopted API served by the runtime
// and called by the MCP Go SDK client (update identity, masks, server-owned
// fields).
func serveSecretManager(t *testing.T, goTool, root, dir, base string) {
	t.Helper()
	src, err := os.ReadFile("testdata/secretmanager_e2e_test.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	const pkg = "google/cloud/secretmanager/v1/secretmanagerpb"
	src = bytes.ReplaceAll(src, []byte("PBPKG"), []byte(base+"/"+pkg))
	src = bytes.ReplaceAll(src, []byte("GENPKG"), []byte(base+"/"+pkg+"/secretmanagerpbmcpwrite"))
	if err := os.WriteFile(filepath.Join(dir, pkg, "secretmanagerpbmcpwrite", "e2e_test.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	target := "./realworld/" + filepath.ToSlash(dir) + "/" + pkg + "/secretmanagerpbmcpwrite"
	cmd := exec.Command(goTool, "test", "-count=1", "-v", target)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test %s: %v\n%s", target, err, out)
	}
	for _, name := range []string{"TestUpdateNamesItsResource", "TestUpdateDerivesTheMask", "TestUpdateRefusesABadMask", "TestServerOwnedFieldsAreRefusedSayingSo"} {
		if !bytes.Contains(out, []byte("--- PASS: "+name+" ")) {
			t.Errorf("%s did not pass:\n%s", name, out)
		}
	}
}

// remap generates every file of req this module does not link, each in a
// Go package below base named by its proto directory and package name.
func remap(req *pluginpb.CodeGeneratorRequest, base string) {
	req.Parameter = nil
	req.FileToGenerate = nil
	for _, fd := range req.ProtoFile {
		name := fd.GetName()
		skip := false
		for _, p := range linked {
			skip = skip || strings.HasPrefix(name, p)
		}
		if skip {
			continue
		}
		req.FileToGenerate = append(req.FileToGenerate, name)
		goPkg := fd.GetOptions().GetGoPackage()
		pkgName := goPkg[strings.LastIndex(goPkg, ";")+1:]
		if !strings.Contains(goPkg, ";") {
			pkgName = path.Base(goPkg)
		}
		if fd.Options == nil {
			fd.Options = &descriptorpb.FileOptions{}
		}
		// One directory per Go package: google/type's files declare
		// several (dayofweek, timeofday, ...).
		fd.Options.GoPackage = proto.String(base + "/" + path.Dir(name) + "/" + pkgName + ";" + pkgName)
	}
}
