// Package apisurface lists the exported API of a Go package as go doc -all
// shows it, for tests that pin a package's API name by name (Exported) and
// declaration by declaration (Signatures).
package apisurface

import (
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Exported lists the exported identifiers of the package in dir (test files
// left out), sorted: every const and var name, func, type, and method of an
// exported type as Type.Method. A type alias lists no methods.
func Exported(dir string) ([]string, error) {
	_, p, err := load(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			for _, n := range v.Names {
				if ast.IsExported(n) {
					names = append(names, n)
				}
			}
		}
	}
	values(p.Consts)
	values(p.Vars)
	for _, f := range p.Funcs {
		names = append(names, f.Name)
	}
	for _, ty := range p.Types {
		names = append(names, ty.Name)
		values(ty.Consts)
		values(ty.Vars)
		for _, f := range ty.Funcs {
			names = append(names, f.Name)
		}
		for _, m := range ty.Methods {
			names = append(names, ty.Name+"."+m.Name)
		}
	}
	sort.Strings(names)
	return names, nil
}

// load parses the non-test Go files of dir into their go/doc package.
func load(dir string) (*token.FileSet, *doc.Package, error) {
	fset, p, _, err := loadFiles(dir)
	return fset, p, err
}

// loadFiles is load, with the parsed files.
func loadFiles(dir string) (*token.FileSet, *doc.Package, []*ast.File, error) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, nil, err
	}
	var files []*ast.File
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			return nil, nil, nil, err
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "example.com/pkg")
	if err != nil {
		return nil, nil, nil, err
	}
	return fset, p, files, nil
}

// Diff says which names of want are missing from got and which names of got
// are new, one per line ("  - X (removed)", "  + Y (added)"); "" when the
// lists are equal.
func Diff(got, want []string) string {
	in := func(xs []string) map[string]bool {
		m := make(map[string]bool, len(xs))
		for _, x := range xs {
			m[x] = true
		}
		return m
	}
	g, w := in(got), in(want)
	var b strings.Builder
	for _, x := range want {
		if !g[x] {
			fmt.Fprintf(&b, "  - %s (removed)\n", x)
		}
	}
	for _, x := range got {
		if !w[x] {
			fmt.Fprintf(&b, "  + %s (added)\n", x)
		}
	}
	if b.Len() == 0 && strings.Join(got, "\n") != strings.Join(want, "\n") {
		b.WriteString("  the same names in another order or repeated; keep the list sorted and unique\n")
	}
	return b.String()
}
