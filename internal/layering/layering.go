// Package layering measures how the hand-written files of a Go package use
// each other: which files reference which other files' top-level
// definitions (package-level names, methods, struct fields), the pairs of
// files that reference each other, the arrows that run back up a layered
// file order, and the sizes of files and functions. Its test keeps these
// figures from getting worse (testdata/baseline.txt).
package layering

import (
	"encoding/json"
	"errors"
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

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/apisurface"
)

// Report is the structure of one package's hand-written files: not test
// files, not generated files (a "Code generated ... DO NOT EDIT." header).
type Report struct {
	Package string
	// Files are the hand-written files, by name, with their line counts.
	Files map[string]int
	// Uses maps "from -> to" file pairs to the identifiers of to that from
	// references, sorted (a method as T.m, a field as T.f, a field of an
	// unnamed struct as .f).
	Uses map[[2]string][]string
	// Pairs are the pairs of files that reference each other, each pair
	// sorted and the list sorted.
	Pairs [][2]string
	// Cycles are the strongly connected components of the file-to-file
	// reference graph with more than one file: files that reach each
	// other through references, in a pair or a longer cycle (a.go -> b.go
	// -> c.go -> a.go). Each is sorted, the list sorted by first file.
	Cycles [][]string
	// Order is a layered file order, bottom first: each file mostly uses
	// files below it. BackArrows counts the file-to-file arrows that point
	// up in it.
	Order      []string
	BackArrows int
	// Funcs maps every function and method (T.m) to its length in lines.
	Funcs map[string]int
	// FuncFile maps a function to its file.
	FuncFile map[string]string
	// Exported counts the exported names as apisurface.Exported lists them.
	Exported int
}

// Package is one package to analyse: its directory, its Go files (no test
// files) and the export data of every package it imports.
type Package struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Export     string
}

// List runs go list in dir for patterns and returns the listed packages
// (Dir, GoFiles) and the export data file of every dependency.
func List(dir string, patterns ...string) (pkgs []Package, exports map[string]string, err error) {
	args := append([]string{"list", "-export", "-deps", "-json=ImportPath,Dir,GoFiles,Export,DepOnly"}, patterns...)
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("go list: %v: %s", err, stderr.String())
	}
	exports = map[string]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p struct {
			Package
			DepOnly bool
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, nil, fmt.Errorf("go list output: %w", err)
		}
		exports[p.ImportPath] = p.Export
		if !p.DepOnly {
			pkgs = append(pkgs, p.Package)
		}
	}
	return pkgs, exports, nil
}

// Analyze type-checks p against the export data in exports and measures
// its hand-written files.
func Analyze(p Package, exports map[string]string) (*Report, error) {
	fset := token.NewFileSet()
	var files []*ast.File
	r := &Report{
		Package:  p.ImportPath,
		Files:    map[string]int{},
		Uses:     map[[2]string][]string{},
		Funcs:    map[string]int{},
		FuncFile: map[string]string{},
	}
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
		if ast.IsGenerated(f) {
			continue
		}
		src, err := os.ReadFile(filepath.Join(p.Dir, name))
		if err != nil {
			return nil, err
		}
		r.Files[name] = strings.Count(string(src), "\n")
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				fn := funcName(fd)
				r.Funcs[fn] = fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
				r.FuncFile[fn] = name
			}
		}
	}
	pkg, info, err := typeCheck(fset, p.ImportPath, files, exports)
	if err != nil {
		return nil, err
	}
	owners := fieldOwners(pkg)
	uses := map[[2]string]map[string]bool{}
	for id, obj := range info.Uses {
		to, name, ok := topLevel(fset, pkg, obj, owners)
		if !ok {
			continue
		}
		from := filepath.Base(fset.Position(id.Pos()).Filename)
		if _, ok := r.Files[from]; !ok || from == to {
			continue
		}
		if _, ok := r.Files[to]; !ok {
			continue
		}
		k := [2]string{from, to}
		if uses[k] == nil {
			uses[k] = map[string]bool{}
		}
		uses[k][name] = true
	}
	for k, names := range uses {
		r.Uses[k] = sortedKeys(names)
		if k[0] < k[1] && uses[[2]string{k[1], k[0]}] != nil {
			r.Pairs = append(r.Pairs, k)
		}
	}
	sort.Slice(r.Pairs, func(i, j int) bool {
		return r.Pairs[i][0]+" "+r.Pairs[i][1] < r.Pairs[j][0]+" "+r.Pairs[j][1]
	})
	r.Cycles = cycles(r.Files, r.Uses)
	r.Order, r.BackArrows = layer(r.Files, r.Uses)
	names, err := apisurface.Exported(p.Dir)
	if err != nil {
		return nil, err
	}
	r.Exported = len(names)
	return r, nil
}

// topLevel reports the file and display name of obj when it is a top-level
// definition of pkg: a package-level name, a method or a struct field.
func topLevel(fset *token.FileSet, pkg *types.Package, obj types.Object, owners map[*types.Var]string) (file, name string, ok bool) {
	if obj == nil || obj.Pkg() != pkg || !obj.Pos().IsValid() {
		return "", "", false
	}
	name = obj.Name()
	switch o := obj.(type) {
	case *types.Func:
		if recv := o.Signature().Recv(); recv != nil {
			name = typeName(recv.Type()) + "." + name
		} else if o.Parent() != pkg.Scope() {
			return "", "", false
		}
	case *types.Var:
		if !o.IsField() && o.Parent() != pkg.Scope() {
			return "", "", false
		}
		if o.IsField() {
			name = owners[o] + "." + name // "" for a field of an unnamed struct
		}
	default:
		if obj.Parent() != pkg.Scope() {
			return "", "", false
		}
	}
	return filepath.Base(fset.Position(obj.Pos()).Filename), name, true
}

// fieldOwners maps the fields of pkg's package-level struct types to their
// type's name.
func fieldOwners(pkg *types.Package) map[*types.Var]string {
	owners := map[*types.Var]string{}
	for _, n := range pkg.Scope().Names() {
		tn, ok := pkg.Scope().Lookup(n).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		if st, ok := tn.Type().Underlying().(*types.Struct); ok {
			for f := range st.Fields() {
				owners[f] = n
			}
		}
	}
	return owners
}

func typeName(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	switch n := t.(type) {
	case *types.Named:
		return n.Obj().Name()
	case *types.Alias:
		return n.Obj().Name()
	}
	return t.String() // an interface method: its interface literal
}

// funcName is Name for a function, T.Name for a method of T or *T.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fd.Name.Name
		}
		return fd.Name.Name
	}
}

// typeCheck type-checks one package's parsed files against the export data
// of its imports (exports: import path -> export file, as List gives them),
// recording the objects identifiers use.
func typeCheck(fset *token.FileSet, path string, files []*ast.File, exports map[string]string) (*types.Package, *types.Info, error) {
	lookup := func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", lookup)}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	pkg, err := conf.Check(path, fset, files, info)
	if err != nil {
		return nil, nil, fmt.Errorf("type-check %s: %w", path, err)
	}
	return pkg, info, nil
}
