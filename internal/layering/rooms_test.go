package layering

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// roomFigures renders what MeasureRooms found: each type with methods in
// more than one file, and each file with methods on more than one type.
func roomFigures(r *Rooms) string {
	var b strings.Builder
	var types []string
	for t := range r.TypeFiles {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		fmt.Fprintf(&b, "type %s: %d methods in %d files\n", t, r.Methods[t], len(r.TypeFiles[t]))
	}
	var files []string
	for f := range r.FileTypes {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		if len(r.FileTypes[f]) > 1 {
			fmt.Fprintf(&b, "file %s: methods on %s\n", f, strings.Join(r.FileTypes[f], ", "))
		}
	}
	return b.String()
}

// TestRuntimeRooms prints where the methods of package runtime live (go
// test -v -run TestRuntimeRooms) and the exported names go doc shows only
// as aliases.
func TestRuntimeRooms(t *testing.T) {
	dir := filepath.Join("..", "..", "runtime")
	r, err := MeasureRooms(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + roomFigures(r))
	aliases, err := ExportedAliases(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("exported aliases (go doc shows no fields): %d %v", len(aliases), aliases)
}

// The limits of package runtime's rooms, computed by MeasureRooms: no type
// has methods in more than maxFilesPerType files, no file defines methods
// on more than maxTypesPerFile types. Never raise them: a type that needs
// a seventh file holds two things, and what it holds needs a type of its
// own (as the registry's answers, service tools and call did).
const (
	maxFilesPerType = 6
	maxTypesPerFile = 3
)

func TestRuntimeRoomLimits(t *testing.T) {
	r, err := MeasureRooms(filepath.Join("..", "..", "runtime"))
	if err != nil {
		t.Fatal(err)
	}
	for typ, files := range r.TypeFiles {
		if len(files) > maxFilesPerType {
			t.Errorf("type %s has methods in %d files, at most %d: give what it holds a type of its own (%s)", typ, len(files), maxFilesPerType, strings.Join(files, " "))
		}
	}
	for file, types := range r.FileTypes {
		if len(types) > maxTypesPerFile {
			t.Errorf("file %s defines methods on %d types, at most %d: %s", file, len(types), maxTypesPerFile, strings.Join(types, ", "))
		}
	}
}

// MeasureRooms counts methods by receiver in hand-written non-test files
// only: the fixture's one method, A.grow, in a.go.
func TestMeasureRoomsCountsHandWrittenMethods(t *testing.T) {
	r, err := MeasureRooms(filepath.Join("testdata", "cycle"))
	if err != nil {
		t.Fatal(err)
	}
	if got := roomFigures(r); got != "type A: 1 methods in 1 files\n" {
		t.Errorf("figures = %q", got)
	}
}

// Every option of package runtime (an exported function With* returning
// Option, PreparerOption or AdapterOption) is declared in options.go, as
// connect keeps all of its options in option.go.
func TestRuntimeOptionsLiveInOptionsGo(t *testing.T) {
	dir := filepath.Join("..", "..", "runtime")
	fset := token.NewFileSet()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || !strings.HasPrefix(fd.Name.Name, "With") || fd.Type.Results == nil || len(fd.Type.Results.List) != 1 {
				continue
			}
			id, ok := fd.Type.Results.List[0].Type.(*ast.Ident)
			if !ok || (id.Name != "Option" && id.Name != "PreparerOption" && id.Name != "AdapterOption") {
				continue
			}
			n++
			if filepath.Base(path) != "options.go" {
				t.Errorf("option %s is declared in %s: declare it in options.go with the others", fd.Name.Name, filepath.Base(path))
			}
		}
	}
	if n < 20 {
		t.Errorf("found %d options, want every one of runtime's (at least 20)", n)
	}
}

// docs/architecture.md's table of runtime's types (| `type` | holds |
// methods | files |) says what MeasureRooms finds: each row's method count
// and files, and a row for registry, answers and call at least.
func TestArchitectureTableOfRuntimeTypes(t *testing.T) {
	r, err := MeasureRooms(filepath.Join("..", "..", "runtime"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `(\\w+)` \\| [^|]+ \\| (\\d+) \\| ([^|]+) \\|$")
	rows := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		typ := m[1]
		rows[typ] = true
		var files []string
		for _, f := range strings.Split(m[3], ",") {
			files = append(files, strings.Trim(strings.TrimSpace(f), "`"))
		}
		sort.Strings(files)
		if got := fmt.Sprint(r.Methods[typ]); got != m[2] {
			t.Errorf("docs/architecture.md: %s has %s methods, MeasureRooms finds %s", typ, m[2], got)
		}
		if got, want := strings.Join(r.TypeFiles[typ], " "), strings.Join(files, " "); got != want {
			t.Errorf("docs/architecture.md: %s's methods are in %s, MeasureRooms finds %s", typ, want, got)
		}
	}
	for _, typ := range []string{"registry", "answers", "call"} {
		if !rows[typ] {
			t.Errorf("docs/architecture.md has no row for %s in the table of runtime's types", typ)
		}
	}
}
