package gen

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"testing"
)

// The emitters and the schema builders read the resolved model only: the
// annotations are interpreted once, in the walk.
func TestEmittersAndSchemaBuildersDoNotReadAnnotations(t *testing.T) {
	const annotations = "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
	var files []string
	for _, pattern := range []string{"emit*.go", "schema*.go"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 7 {
		t.Fatalf("found %d emitter and schema files, want at least 7: %v", len(files), files)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == annotations {
				t.Errorf("%s imports %s; read the resolved model instead", name, annotations)
			}
		}
	}
}
