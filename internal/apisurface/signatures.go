package apisurface

import (
	"bytes"
	"go/ast"
	"go/doc"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Signatures lists the exported API of the package in dir as one line per
// exported declaration, sorted by name, so a pinned list catches a changed
// signature or a new exported field, not only a new name:
//
//	Preparer struct (has unexported fields)
//	Limits.MaxBytes int
//	NewPreparer func(svc *mcpwriteimpl.Service, opts ...PreparerOption) (*Preparer, error)
//	(*Preparer).Prepare func(ctx context.Context, ...) (proto.Message, Errors)
//	Option interface (has unexported methods)
//	Observer.CallStart func(ctx context.Context, c CallStart) context.Context
//	CodeNotFound const = impl.CodeNotFound ("NOT_FOUND")
//	Version var
//
// A pointer receiver shows as (*T).M; a struct with unexported fields or an
// interface with unexported methods says so. A struct's exported fields show as
// T.Field type (an embedded field as T.Name embedded), an interface's
// exported methods as T.Method func(...). An alias of a type of another
// package of the same module lists that type's fields and methods, and a
// constant defined as one of that package's its value there (runtime
// re-exports the envelope of runtime/internal/impl this way), so a field
// added behind an alias shows too. Test files are left out.
func Signatures(dir string) ([]string, error) {
	l, err := loadFollowing(dir)
	if err != nil {
		return nil, err
	}
	fset, p := l.fset, l.p
	var ls lines
	values := func(vs []*doc.Value, kind string) {
		for _, v := range vs {
			for _, spec := range v.Decl.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if !ast.IsExported(n.Name) {
						continue
					}
					s := kind
					if vs.Type != nil {
						s += " " + expr(fset, vs.Type)
					}
					if kind == "const" && i < len(vs.Values) {
						s += " = " + l.constValue(vs.Values[i])
					}
					ls.add(n.Name, n.Name+" "+s)
				}
			}
		}
	}
	funcs := func(fs []*doc.Func) {
		for _, f := range fs {
			ls.add(f.Name, f.Name+" "+expr(fset, f.Decl.Type))
		}
	}
	values(p.Consts, "const")
	values(p.Vars, "var")
	funcs(p.Funcs)
	for _, ty := range p.Types {
		l.typeLines(&ls, ty, ty.Name)
		values(ty.Consts, "const")
		values(ty.Vars, "var")
		funcs(ty.Funcs)
	}
	return ls.sorted(), nil
}

// typeLines adds the line of type ty, listed under the name owner, and of
// its exported fields, interface methods and methods. An alias of a type
// of another package of the same module (runtime.ErrorEntry =
// impl.ErrorEntry) lists the fields and methods of its target too, so a
// field added there changes the alias's lines.
func (l *loaded) typeLines(ls *lines, ty *doc.Type, owner string) {
	fset := l.fset
	for _, spec := range ty.Decl.Specs {
		ts := spec.(*ast.TypeSpec)
		if ts.Name.Name != ty.Name {
			continue
		}
		name := owner + typeParams(fset, ts)
		switch t := ts.Type.(type) {
		case *ast.StructType:
			ls.add(owner, name+" struct"+hidden(t.Incomplete, "fields"))
			members(fset, ls, owner, t.Fields)
		case *ast.InterfaceType:
			ls.add(owner, name+" interface"+hidden(t.Incomplete, "methods"))
			members(fset, ls, owner, t.Methods)
		default:
			if !ts.Assign.IsValid() {
				ls.add(owner, name+" "+expr(fset, ts.Type))
				break
			}
			target, ty2 := l.follow(ts.Type)
			if ty2 == nil {
				ls.add(owner, name+" = "+expr(fset, ts.Type))
				break
			}
			var inner lines
			target.typeLines(&inner, ty2, owner)
			for i, k := range inner.keys {
				text := inner.text[i]
				if k == owner && !strings.Contains(text[len(owner):], ".") { // the type's own line
					text = name + " = " + expr(fset, ts.Type) + strings.TrimPrefix(text, owner)
				}
				ls.add(k, text)
			}
		}
	}
	for _, m := range ty.Methods {
		key := owner + "." + m.Name
		recv := key
		if _, ptr := m.Decl.Recv.List[0].Type.(*ast.StarExpr); ptr {
			recv = "(*" + owner + ")." + m.Name
		}
		ls.add(key, recv+" "+expr(fset, m.Decl.Type))
	}
}

// hidden says when a struct has unexported fields (no keyless literal
// outside the package) or an interface unexported methods (no implementation
// outside it), as go doc does.
func hidden(incomplete bool, what string) string {
	if incomplete { // go/doc dropped the unexported ones
		return " (has unexported " + what + ")"
	}
	return ""
}

// members adds the exported fields of a struct or methods of an interface.
func members(fset *token.FileSet, ls *lines, owner string, fl *ast.FieldList) {
	for _, f := range fl.List {
		if len(f.Names) == 0 { // embedded field or interface
			n := embeddedName(f.Type)
			if ast.IsExported(n) || n == "" {
				ls.add(owner+"."+n, owner+"."+expr(fset, f.Type)+" embedded")
			}
			continue
		}
		for _, n := range f.Names {
			if ast.IsExported(n.Name) {
				ls.add(owner+"."+n.Name, owner+"."+n.Name+" "+expr(fset, f.Type))
			}
		}
	}
}

// embeddedName is the field name an embedded type gives: T for T, *T, p.T
// and T[X]; "" for a type set term of an interface.
func embeddedName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.StarExpr:
		return embeddedName(t.X)
	case *ast.SelectorExpr:
		return t.Sel.Name
	case *ast.IndexExpr:
		return embeddedName(t.X)
	case *ast.IndexListExpr:
		return embeddedName(t.X)
	}
	return ""
}

func typeParams(fset *token.FileSet, ts *ast.TypeSpec) string {
	if ts.TypeParams == nil {
		return ""
	}
	var ps []string
	for _, f := range ts.TypeParams.List {
		var ns []string
		for _, n := range f.Names {
			ns = append(ns, n.Name)
		}
		ps = append(ps, strings.Join(ns, ", ")+" "+expr(fset, f.Type))
	}
	return "[" + strings.Join(ps, ", ") + "]"
}

// expr prints e as gofmt would, on one line.
func expr(fset *token.FileSet, e ast.Node) string {
	var b bytes.Buffer
	if err := printer.Fprint(&b, fset, e); err != nil {
		return "<" + err.Error() + ">"
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// lines collects (sort key, line) pairs.
type lines struct{ keys, text []string }

func (l *lines) add(key, line string) {
	l.keys = append(l.keys, key)
	l.text = append(l.text, line)
}

// sorted returns the lines ordered by key, then by text.
func (l *lines) sorted() []string {
	idx := make([]int, len(l.keys))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ia, ib := idx[a], idx[b]
		if l.keys[ia] != l.keys[ib] {
			return l.keys[ia] < l.keys[ib]
		}
		return l.text[ia] < l.text[ib]
	})
	out := make([]string, len(idx))
	for i, j := range idx {
		out[i] = l.text[j]
	}
	return out
}

// loaded is one parsed package, with what its files import (by the name
// they use) and where its module lives, to follow a qualified name into
// another package of the same module.
type loaded struct {
	fset         *token.FileSet
	p            *doc.Package
	imports      map[string]string
	module, root string // module path and directory; "" outside a module
}

func loadFollowing(dir string) (*loaded, error) {
	fset, p, files, err := loadFiles(dir)
	if err != nil {
		return nil, err
	}
	l := &loaded{fset: fset, p: p, imports: map[string]string{}}
	for _, f := range files {
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			name := path[strings.LastIndex(path, "/")+1:]
			if im.Name != nil {
				name = im.Name.Name
			}
			l.imports[name] = path
		}
	}
	l.module, l.root = moduleOf(dir)
	return l, nil
}

// follow resolves pkg.Name, where pkg is a package of the same module, to
// that package and its type Name.
func (l *loaded) follow(e ast.Expr) (*loaded, *doc.Type) {
	target, name := l.pkgOf(e)
	if target == nil {
		return nil, nil
	}
	for _, ty := range target.p.Types {
		if ty.Name == name {
			return target, ty
		}
	}
	return nil, nil
}

// pkgOf loads the package of a qualified name pkg.Name of the same module.
func (l *loaded) pkgOf(e ast.Expr) (*loaded, string) {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok || l.module == "" {
		return nil, ""
	}
	x, ok := sel.X.(*ast.Ident)
	if !ok {
		return nil, ""
	}
	path, ok := l.imports[x.Name]
	if !ok || !strings.HasPrefix(path, l.module+"/") {
		return nil, ""
	}
	target, err := loadFollowing(filepath.Join(l.root, filepath.FromSlash(strings.TrimPrefix(path, l.module+"/"))))
	if err != nil {
		return nil, ""
	}
	return target, sel.Sel.Name
}

// constValue prints a constant's value; a constant of another package of
// the same module (CodeNotFound = impl.CodeNotFound) shows the value it
// has there when that is a literal, so a changed value changes the line.
func (l *loaded) constValue(e ast.Expr) string {
	target, name := l.pkgOf(e)
	if target == nil {
		return expr(l.fset, e)
	}
	var all []*doc.Value
	all = append(all, target.p.Consts...)
	for _, ty := range target.p.Types {
		all = append(all, ty.Consts...)
	}
	for _, v := range all {
		for _, spec := range v.Decl.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if n.Name == name && i < len(vs.Values) {
					if _, lit := vs.Values[i].(*ast.BasicLit); lit {
						return expr(l.fset, e) + " (" + expr(target.fset, vs.Values[i]) + ")"
					}
					if _, sel := vs.Values[i].(*ast.SelectorExpr); sel {
						return expr(l.fset, e) + " (" + target.constValue(vs.Values[i]) + ")"
					}
				}
			}
		}
	}
	return expr(l.fset, e)
}

// moduleOf finds the go.mod at or above dir: the module path and its
// directory, or "" when there is none.
func moduleOf(dir string) (module, root string) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", ""
	}
	for d := abs; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
					return f[1], d
				}
			}
			return "", ""
		}
		if filepath.Dir(d) == d {
			return "", ""
		}
	}
}
