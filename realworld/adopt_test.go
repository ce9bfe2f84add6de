package realworld

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"google.golang.org/protobuf/types/pluginpb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
)

// protosDir is where `make realworld-deps` installs google-proto-files.
const protosDir = "node_modules/google-proto-files"

// Import paths beside the corpus: the annotations and protovalidate.
const (
	annotationsDir   = "../annotations"
	protovalidateDir = "../third_party/protovalidate"
)

// adoptLines are the only lines an adopter adds to a file: the import and,
// in each service, expose: ALL.
const (
	importLine = `import "mcpwrite/v1/mcpwrite.proto";`
	exposeLine = `  option (mcpwrite.v1.service) = {expose: ALL};`
)

var (
	packageRE = regexp.MustCompile(`(?m)^package [A-Za-z0-9_.]+;\n`)
	serviceRE = regexp.MustCompile(`(?m)^service ([A-Za-z0-9_]+) \{\n`)
)

// adopt returns src with the two adoption lines: the import after the
// package statement and the expose option first in every service.
func adopt(src []byte) ([]byte, error) {
	loc := packageRE.FindIndex(src)
	if loc == nil {
		return nil, fmt.Errorf("no package statement")
	}
	out := append(append(append([]byte{}, src[:loc[1]]...), []byte("\n"+importLine+"\n")...), src[loc[1]:]...)
	if !serviceRE.Match(out) {
		return nil, fmt.Errorf("no service")
	}
	return serviceRE.ReplaceAll(out, []byte("${0}"+exposeLine+"\n")), nil
}

// request adopts file in a copy under a temporary directory (which shadows
// the installed file) and compiles it into a CodeGeneratorRequest.
func request(t *testing.T, file string) *pluginpb.CodeGeneratorRequest {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(protosDir, file))
	if err != nil {
		t.Fatal(err)
	}
	adopted, err := adopt(src)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	// A blank line and the import, and one line per service.
	if n := bytes.Count(adopted, []byte("\n")) - bytes.Count(src, []byte("\n")); n != 2+len(serviceRE.FindAll(src, -1)) {
		t.Fatalf("%s: adoption added %d lines", file, n)
	}
	overlay := t.TempDir()
	dst := filepath.Join(overlay, file)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, adopted, 0o644); err != nil {
		t.Fatal(err)
	}
	req, err := plugintest.Request([]string{overlay, protosDir, annotationsDir, protovalidateDir}, []string{file}, "paths=source_relative")
	if err != nil {
		t.Fatalf("compile %s: %v", file, err)
	}
	return req
}
