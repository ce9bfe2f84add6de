package gen

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/layering"
)

const annotationsPkg = "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"

// postModelFiles are the files of the model itself (its types, own enums,
// queries and names) and of the stages that run on it: the emitters, the
// schema builders and the checks over the model.
var postModelFiles = []string{"model*.go", "names.go", "emit*.go", "schema*.go", "lint.go", "lint_ids.go", "lint_identity.go", "strict.go", "vendors.go", "validate_docs.go"}

// typeCheckGen type-checks this package's non-test files against the export
// data of its dependencies (go list -export).
func typeCheckGen(t *testing.T) (*token.FileSet, []*ast.File, *types.Package, *types.Info) {
	t.Helper()
	out, err := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Export,GoFiles,DepOnly", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	exports := map[string]string{}
	var goFiles []string
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath, Export string
			GoFiles            []string
			DepOnly            bool
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
		if !p.DepOnly {
			goFiles = p.GoFiles
		}
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range goFiles {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	lookup := func(path string) (io.ReadCloser, error) {
		if exports[path] == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(exports[path])
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", lookup)}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Types: map[ast.Expr]types.TypeAndValue{}}
	pkg, err := conf.Check("github.com/mcpwrite/protoc-gen-mcpwrite/internal/gen", fset, files, info)
	if err != nil {
		t.Fatalf("type-check: %v", err)
	}
	return fset, files, pkg, info
}

// annotationType names the first type of the annotations package that typ
// mentions (through pointers, slices, arrays, maps, channels and
// signatures; not through the fields of this package's named types), or "".
func annotationType(typ types.Type) string {
	switch u := types.Unalias(typ).(type) {
	case *types.Named:
		if p := u.Obj().Pkg(); p != nil && p.Path() == annotationsPkg {
			return u.Obj().Name()
		}
	case *types.Pointer:
		return annotationType(u.Elem())
	case *types.Slice:
		return annotationType(u.Elem())
	case *types.Array:
		return annotationType(u.Elem())
	case *types.Chan:
		return annotationType(u.Elem())
	case *types.Map:
		if n := annotationType(u.Key()); n != "" {
			return n
		}
		return annotationType(u.Elem())
	case *types.Signature:
		for _, tup := range []*types.Tuple{u.Params(), u.Results()} {
			for i := range tup.Len() {
				if n := annotationType(tup.At(i).Type()); n != "" {
					return n
				}
			}
		}
	case *types.Tuple:
		for i := range u.Len() {
			if n := annotationType(u.At(i).Type()); n != "" {
				return n
			}
		}
	}
	return ""
}

// annotationReads lists, sorted, every place in files (base names) that
// reads an annotation: a use of a name declared in the annotations package
// (type, constant, getter, field), or an expression whose type is or
// mentions an annotation type (a model field holding one, a helper taking
// or returning one).
func annotationReads(fset *token.FileSet, info *types.Info, files map[string]bool) []string {
	seen := map[string]bool{}
	add := func(pos token.Pos, what string) {
		p := fset.Position(pos)
		if files[filepath.Base(p.Filename)] {
			seen[fmt.Sprintf("%s:%d: %s", filepath.Base(p.Filename), p.Line, what)] = true
		}
	}
	for id, obj := range info.Uses {
		if obj.Pkg() != nil && obj.Pkg().Path() == annotationsPkg {
			add(id.Pos(), "uses "+obj.Name()+" of the annotations package")
		}
	}
	for e, tv := range info.Types {
		if tv.IsType() {
			continue
		}
		if n := annotationType(tv.Type); n != "" {
			add(e.Pos(), fmt.Sprintf("%s has annotation type %s", types.ExprString(e), n))
		}
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// The emitters, the schema builders and the checks over the resolved model
// read the model only: the annotations are interpreted once, in the walk.
// A read through any path (the annotations package's names, a model field
// of annotation type, a helper taking or returning one) fails.
func TestPostModelStagesReadNoAnnotations(t *testing.T) {
	fset, _, _, info := typeCheckGen(t)
	files := map[string]bool{}
	for _, pattern := range postModelFiles {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range m {
			if !strings.HasSuffix(name, "_test.go") {
				files[name] = true
			}
		}
	}
	if len(files) < 12 {
		t.Fatalf("found %d post-model files, want at least 12: %v", len(files), files)
	}
	for _, r := range annotationReads(fset, info, files) {
		t.Errorf("%s; read the resolved model instead", r)
	}
}

// annotationMessage reports whether typ is, or holds through pointers,
// slices, arrays and maps, a message of the annotations package.
func annotationMessage(typ types.Type) bool {
	switch u := types.Unalias(typ).(type) {
	case *types.Named:
		_, isStruct := u.Underlying().(*types.Struct)
		return isStruct && u.Obj().Pkg() != nil && u.Obj().Pkg().Path() == annotationsPkg
	case *types.Pointer:
		return annotationMessage(u.Elem())
	case *types.Slice:
		return annotationMessage(u.Elem())
	case *types.Array:
		return annotationMessage(u.Elem())
	case *types.Map:
		return annotationMessage(u.Key()) || annotationMessage(u.Elem())
	}
	return false
}

// The resolved model holds typed values only: no type declared in model.go
// has a field holding an annotation message (the walk keeps those, in
// fieldRules, and resolves them into the model).
func TestModelHoldsNoAnnotations(t *testing.T) {
	fset, _, pkg, _ := typeCheckGen(t)
	structs := 0
	for _, name := range pkg.Scope().Names() {
		tn, ok := pkg.Scope().Lookup(name).(*types.TypeName)
		if !ok || filepath.Base(fset.Position(tn.Pos()).Filename) != "model.go" {
			continue
		}
		st, ok := tn.Type().Underlying().(*types.Struct)
		if !ok {
			continue
		}
		structs++
		for i := range st.NumFields() {
			if f := st.Field(i); annotationMessage(f.Type()) {
				t.Errorf("model.go: %s.%s holds an annotation (%s); resolve it into a typed value in the walk", name, f.Name(), types.TypeString(f.Type(), nil))
			}
		}
	}
	if structs < 10 {
		t.Fatalf("found %d struct types in model.go, want at least 10", structs)
	}
}

// The package's files reference each other one way: types and helpers at
// the bottom (model.go, builder.go, emitter.go...), the walk, schema and
// emit steps in the middle, Generate on top. A cycle of any length
// between hand-written files fails, naming the arrows that run back up.
func TestFilesReferenceOneWay(t *testing.T) {
	pkgs, exports, err := layering.List(".", ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 1 {
		t.Fatalf("go list found %d packages, want 1", len(pkgs))
	}
	r, err := layering.Analyze(pkgs[0], exports)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Files) < 40 {
		t.Fatalf("measured %d files, want at least 40", len(r.Files))
	}
	for _, p := range r.Pairs {
		t.Errorf("%s and %s reference each other: %s uses %v; %s uses %v", p[0], p[1], p[0], r.Uses[p], p[1], r.Uses[[2]string{p[1], p[0]}])
	}
	pos := map[string]int{}
	for i, f := range r.Order {
		pos[f] = i
	}
	for k, names := range r.Uses {
		if pos[k[1]] > pos[k[0]] {
			t.Errorf("%s uses %v of %s, a file above it (a cycle through other files)", k[0], names, k[1])
		}
	}
	if r.BackArrows != 0 {
		t.Errorf("%d arrows run back up the file order %v", r.BackArrows, r.Order)
	}
}
