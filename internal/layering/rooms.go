package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Rooms is where the methods of a package's types live: for each type with
// methods, how many methods and in which files; for each file, the types
// it defines methods on. Test files and generated files are not counted.
type Rooms struct {
	// Methods maps a receiver type to its method count.
	Methods map[string]int
	// TypeFiles maps a receiver type to the sorted files holding its methods.
	TypeFiles map[string][]string
	// FileTypes maps a file to the sorted receiver types it has methods on.
	FileTypes map[string][]string
}

// MeasureRooms parses the hand-written Go files of dir (not _test.go, not
// generated) and counts the methods per receiver type and file.
func MeasureRooms(dir string) (*Rooms, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	r := &Rooms{Methods: map[string]int{}, TypeFiles: map[string][]string{}, FileTypes: map[string][]string{}}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		if ast.IsGenerated(f) {
			continue
		}
		seen := map[string]bool{}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) == 0 {
				continue
			}
			t := receiverName(fd.Recv.List[0].Type)
			r.Methods[t]++
			if !seen[t] {
				seen[t] = true
				r.TypeFiles[t] = append(r.TypeFiles[t], name)
				r.FileTypes[name] = append(r.FileTypes[name], t)
			}
		}
	}
	for _, fs := range r.TypeFiles {
		sort.Strings(fs)
	}
	for _, ts := range r.FileTypes {
		sort.Strings(ts)
	}
	return r, nil
}

// receiverName is the type name of a receiver expression (*T, T, T[P]).
func receiverName(x ast.Expr) string {
	for {
		switch t := x.(type) {
		case *ast.StarExpr:
			x = t.X
		case *ast.ParenExpr:
			x = t.X
		case *ast.IndexExpr:
			x = t.X
		case *ast.IndexListExpr:
			x = t.X
		case *ast.Ident:
			return t.Name
		default:
			return "?"
		}
	}
}

// ExportedAliases lists the exported type names of the package in dir
// declared as aliases (type T = other.T): go doc shows no fields or
// methods for them, only the aliased name.
func ExportedAliases(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, s := range gd.Specs {
				ts := s.(*ast.TypeSpec)
				if ts.Assign.IsValid() && ts.Name.IsExported() {
					out = append(out, ts.Name.Name)
				}
			}
		}
	}
	sort.Strings(out)
	return out, nil
}
