package plugintest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/bufbuild/protocompile/linker"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/pluginpb"
)

func writeProtos(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Requests sharing Imports get the same request as uncached ones; an
// import is compiled once while not shadowed, and afresh (with what the
// overlay holds) once a volatile directory shadows it or one of its
// imports.
func TestImportsReusedUntilShadowed(t *testing.T) {
	root, overlay := t.TempDir(), t.TempDir()
	writeProtos(t, root, map[string]string{
		"base.proto": "syntax = \"proto3\";\npackage p;\nmessage Base { string id = 1; }\n",
		"mid.proto":  "syntax = \"proto3\";\npackage p;\nimport \"base.proto\";\nmessage Mid { Base base = 1; }\n",
		"one.proto":  "syntax = \"proto3\";\npackage p;\nimport \"mid.proto\";\nmessage One { Mid mid = 1; }\n",
		"two.proto":  "syntax = \"proto3\";\npackage p;\nimport \"mid.proto\";\nimport \"base.proto\";\nmessage Two { Mid mid = 1; Base base = 2; }\n",
	})
	paths := []string{overlay, root}
	imports := NewImports(overlay)
	same := func(file string) *pluginpb.CodeGeneratorRequest {
		t.Helper()
		got, err := RequestWith(imports, paths, []string{file}, "p=1")
		if err != nil {
			t.Fatalf("%s with imports: %v", file, err)
		}
		want, err := Request(paths, []string{file}, "p=1")
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if !proto.Equal(got, want) {
			t.Fatalf("%s: request with kept imports differs:\n got: %v\nwant: %v", file, got, want)
		}
		return got
	}
	same("one.proto")
	kept := imports.files["mid.proto"].file
	if kept == nil || imports.files["base.proto"].file == nil {
		t.Fatalf("kept %v after one request, want base.proto and mid.proto", imports.files)
	}
	if _, ok := imports.files["one.proto"]; ok {
		t.Fatal("the compiled file itself was kept as an import")
	}
	same("two.proto")
	if imports.files["mid.proto"].file != kept {
		t.Fatal("mid.proto was compiled again, want the kept one reused")
	}
	if f, ok := imports.lookup("mid.proto", map[string]linker.File{}); !ok || f != kept {
		t.Fatalf("lookup(mid.proto) = %v, %v; want the kept file", f, ok)
	}

	// The overlay now shadows base.proto: mid.proto, which imports it,
	// is no longer served from the cache.
	writeProtos(t, overlay, map[string]string{
		"base.proto": "syntax = \"proto3\";\npackage p;\nmessage Base { string id = 1; string shadow = 2; }\n",
	})
	if _, ok := imports.lookup("mid.proto", map[string]linker.File{}); ok {
		t.Fatal("mid.proto served although base.proto, its import, is shadowed")
	}
	req := same("two.proto")
	for _, f := range req.ProtoFile {
		if f.GetName() == "base.proto" && len(f.MessageType[0].Field) != 2 {
			t.Fatalf("base.proto has %d fields, want the overlay's 2", len(f.MessageType[0].Field))
		}
	}
}
