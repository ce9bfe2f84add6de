package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"sort"
)

// Calls type-checks the package and reports, for every function and method
// of its hand-written and generated non-test files (named as Report.Funcs
// names them: f, T.m), the functions and methods of the same package it
// calls or refers to (a method value counts), sorted. A closure's calls
// belong to the function that holds it. Functions and methods of the
// packages whose import paths are listed in also count too, named with
// their package's name (proposal.Store.FinishApply; an interface's method
// is named by the interface).
func Calls(p Package, exports map[string]string, also ...string) (map[string][]string, error) {
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	pkg, info, err := typeCheck(fset, p.ImportPath, files, exports)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			caller := funcName(fd)
			seen := map[string]bool{}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				id, ok := n.(*ast.Ident)
				if !ok {
					return true
				}
				fn, ok := info.Uses[id].(*types.Func)
				if !ok || fn.Pkg() == nil || fn.Pkg() != pkg && !slices.Contains(also, fn.Pkg().Path()) {
					return true
				}
				name := fn.Name()
				if recv := fn.Signature().Recv(); recv != nil {
					t := recv.Type()
					if ptr, ok := t.(*types.Pointer); ok {
						t = ptr.Elem()
					}
					if named, ok := t.(*types.Named); ok {
						name = named.Obj().Name() + "." + name
					}
				}
				if fn.Pkg() != pkg {
					name = fn.Pkg().Name() + "." + name
				}
				if !seen[name] {
					seen[name] = true
					out[caller] = append(out[caller], name)
				}
				return true
			})
			sort.Strings(out[caller])
		}
	}
	return out, nil
}
