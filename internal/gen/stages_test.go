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
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/layering"
)

const annotationsPkg = "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"

// typeChecked is this package's type-check, done once per test binary
// (it runs go list): the tests only read it.
var typeChecked struct {
	once  sync.Once
	fset  *token.FileSet
	files []*ast.File
	pkg   *types.Package
	info  *types.Info
	err   error
}

// typeCheckGen type-checks this package's non-test files against the export
// data of its dependencies (go list -export).
func typeCheckGen(t *testing.T) (*token.FileSet, []*ast.File, *types.Package, *types.Info) {
	t.Helper()
	tc := &typeChecked
	tc.once.Do(func() { tc.fset, tc.files, tc.pkg, tc.info, tc.err = typeCheck() })
	if tc.err != nil {
		t.Fatal(tc.err)
	}
	return tc.fset, tc.files, tc.pkg, tc.info
}

func typeCheck() (*token.FileSet, []*ast.File, *types.Package, *types.Info, error) {
	out, err := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Export,GoFiles,DepOnly", ".").Output()
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("go list: %v", err)
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
			return nil, nil, nil, nil, err
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
			return nil, nil, nil, nil, err
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
		return nil, nil, nil, nil, fmt.Errorf("type-check: %v", err)
	}
	return fset, files, pkg, info, nil
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

// Only the walk reads the annotations: the model (its types, own enums,
// queries and names), the words, the schema builders, the emitters, the
// lints and Generate read the model, into which the walk converted them
// once. A read through any path (the annotations package's names, a model
// field of annotation type, a helper taking or returning one) in a file
// of any stage but the walk fails.
func TestPostModelStagesReadNoAnnotations(t *testing.T) {
	fset, parsed, _, info := typeCheckGen(t)
	notWalk := map[string]bool{}
	for _, f := range parsed {
		name := filepath.Base(fset.Position(f.Pos()).Filename)
		if stageOf(name) != 1 {
			notWalk[name] = true
		}
	}
	if len(notWalk) < 35 {
		t.Fatalf("found %d files outside the walk, want at least 35: %v", len(notWalk), notWalk)
	}
	for _, r := range annotationReads(fset, info, notWalk) {
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

// The resolved model holds typed values only, in its own words: no type
// declared in a file of the model stage has a field holding an annotation
// message or enum (the walk keeps the messages, in fieldRules, and
// converts the enums into the model's, model_enums.go).
func TestModelHoldsNoAnnotations(t *testing.T) {
	fset, _, pkg, _ := typeCheckGen(t)
	structs := 0
	for _, name := range pkg.Scope().Names() {
		tn, ok := pkg.Scope().Lookup(name).(*types.TypeName)
		if !ok || stageOf(filepath.Base(fset.Position(tn.Pos()).Filename)) != 0 {
			continue
		}
		st, ok := tn.Type().Underlying().(*types.Struct)
		if !ok {
			continue
		}
		structs++
		for i := range st.NumFields() {
			if f := st.Field(i); annotationMessage(f.Type()) || annotationType(f.Type()) != "" {
				t.Errorf("%s: %s.%s holds an annotation (%s); resolve it into a typed value of the model in the walk", filepath.Base(fset.Position(tn.Pos()).Filename), name, f.Name(), types.TypeString(f.Type(), nil))
			}
		}
	}
	if structs < 10 {
		t.Fatalf("found %d struct types in the model's files, want at least 10", structs)
	}
}

// The package's files reference each other one way: types and helpers at
// the bottom of each stage (model.go, walk_builder.go, emit_emitter.go...),
// the steps above them, Generate on top. A cycle of any length
// between hand-written files fails, naming the arrows that run back up.
func TestFilesReferenceOneWay(t *testing.T) {
	r := analyzeGen(t)
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

// stages are the stages of the package, bottom first, each the prefix of
// its files' names (model.go and model_*.go...): the model's types, own
// enums, queries and names; the walk over descriptors and annotations that
// builds the model; the words the schemas and the generated code print;
// the JSON schemas and the getWriteSchema document; the Go emitters; the
// checks over what was generated; Generate on top. A file uses names of
// its own stage and the stages below it only.
var stages = []string{"model", "walk", "doc", "schema", "emit", "lint", "gen"}

// stageOf is the index in stages of a file's stage, -1 when its name has
// no stage prefix.
func stageOf(file string) int {
	base := strings.TrimSuffix(file, ".go")
	for i, s := range stages {
		if base == s || strings.HasPrefix(base, s+"_") {
			return i
		}
	}
	return -1
}

// analyzeGen measures the package's hand-written files (internal/layering).
func analyzeGen(t *testing.T) *layering.Report {
	t.Helper()
	a := &analyzed
	a.once.Do(func() {
		pkgs, exports, err := layering.List(".", ".")
		switch {
		case err != nil:
			a.err = err
		case len(pkgs) != 1:
			a.err = fmt.Errorf("go list found %d packages, want 1", len(pkgs))
		default:
			a.report, a.err = layering.Analyze(pkgs[0], exports)
		}
	})
	if a.err != nil {
		t.Fatal(a.err)
	}
	return a.report
}

// analyzed is this package's layering analysis, made once per test
// binary (it runs go list): the tests only read it.
var analyzed struct {
	once   sync.Once
	report *layering.Report
	err    error
}

// stageFiles lists the package's hand-written files by stage index, and
// the files with no stage prefix.
func stageFiles(files map[string]int) (byStage [][]string, loose []string) {
	byStage = make([][]string, len(stages))
	for f := range files {
		if i := stageOf(f); i >= 0 {
			byStage[i] = append(byStage[i], f)
		} else {
			loose = append(loose, f)
		}
	}
	for _, fs := range byStage {
		sort.Strings(fs)
	}
	sort.Strings(loose)
	return byStage, loose
}

// Every hand-written file is named by its stage, and no file uses a name
// of a later stage: the walk never reaches into the schema builders or
// the emitters, the model into the walk.
func TestFilesAreGroupedByStage(t *testing.T) {
	r := analyzeGen(t)
	byStage, loose := stageFiles(r.Files)
	for _, f := range loose {
		t.Errorf("%s is named by no stage; prefix it with its stage (%s_), the stage of what it reads and makes (docs/architecture.md)", f, strings.Join(stages, "_, "))
	}
	for i, fs := range byStage {
		if len(fs) == 0 {
			t.Errorf("stage %s has no files", stages[i])
		}
	}
	arrows := 0
	for k, names := range r.Uses {
		from, to := stageOf(k[0]), stageOf(k[1])
		if from < 0 || to < 0 {
			continue
		}
		arrows++
		if from < to {
			t.Errorf("%s (stage %s) uses %v of %s (stage %s), a later stage; move the names to the stage below both", k[0], stages[from], names, k[1], stages[to])
		}
	}
	if arrows < 300 {
		t.Fatalf("measured %d file-to-file arrows, want at least 300", arrows)
	}
}

// The stage check fails on a file without a stage prefix and names the
// stage of each prefixed one.
func TestStageOfNamesEveryStage(t *testing.T) {
	for file, want := range map[string]int{
		"model.go": 0, "model_enums.go": 0, "walk.go": 1, "walk_fields.go": 1, "doc_limit_words.go": 2,
		"schema.go": 3, "schema_json.go": 3, "emit_decode.go": 4, "lint_strict.go": 5, "gen.go": 6,
		"fields.go": -1, "walker.go": -1, "models.go": -1, "emitter.go": -1, "generate.go": -1,
	} {
		if got := stageOf(file); got != want {
			t.Errorf("stageOf(%q) = %d, want %d", file, got, want)
		}
	}
}

// docs/architecture.md draws the stages as a table, bottom first, one row
// per stage with its file count: the table matches the files.
func TestArchitectureDrawsTheStages(t *testing.T) {
	raw, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z]+)` \\| `[a-z_*.]+`(?:, `[a-z_*.]+`)? \\| ([0-9]+) \\|")
	var got []string
	for _, m := range row.FindAllStringSubmatch(string(raw), -1) {
		got = append(got, m[1]+" "+m[2])
	}
	byStage, _ := stageFiles(analyzeGen(t).Files)
	var want []string
	for i, fs := range byStage {
		want = append(want, fmt.Sprintf("%s %d", stages[i], len(fs)))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("docs/architecture.md's stage table lists (stage, files)\n%q\nthe package has\n%q", got, want)
	}
}
