package apisurface

import (
	"bytes"
	"go/ast"
	"go/doc"
	"go/printer"
	"go/token"
	"sort"
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
//	CodeNotFound const = "NOT_FOUND"
//	Version var
//
// A pointer receiver shows as (*T).M; a struct with unexported fields or an
// interface with unexported methods says so. A struct's exported fields show as
// T.Field type (an embedded field as T.Name embedded), an interface's
// exported methods as T.Method func(...). Test files are left out.
func Signatures(dir string) ([]string, error) {
	fset, p, err := load(dir)
	if err != nil {
		return nil, err
	}
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
						s += " = " + expr(fset, vs.Values[i])
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
		typeLines(fset, &ls, ty)
		values(ty.Consts, "const")
		values(ty.Vars, "var")
		funcs(ty.Funcs)
		for _, m := range ty.Methods {
			key := ty.Name + "." + m.Name
			recv := key
			if _, ptr := m.Decl.Recv.List[0].Type.(*ast.StarExpr); ptr {
				recv = "(*" + ty.Name + ")." + m.Name
			}
			ls.add(key, recv+" "+expr(fset, m.Decl.Type))
		}
	}
	return ls.sorted(), nil
}

// typeLines adds the line of type ty and of its exported fields or
// interface methods.
func typeLines(fset *token.FileSet, ls *lines, ty *doc.Type) {
	for _, spec := range ty.Decl.Specs {
		ts := spec.(*ast.TypeSpec)
		if ts.Name.Name != ty.Name {
			continue
		}
		name := ty.Name + typeParams(fset, ts)
		switch t := ts.Type.(type) {
		case *ast.StructType:
			ls.add(ty.Name, name+" struct"+hidden(t.Incomplete, "fields"))
			members(fset, ls, ty.Name, t.Fields)
		case *ast.InterfaceType:
			ls.add(ty.Name, name+" interface"+hidden(t.Incomplete, "methods"))
			members(fset, ls, ty.Name, t.Methods)
		default:
			if ts.Assign.IsValid() {
				ls.add(ty.Name, name+" = "+expr(fset, ts.Type))
			} else {
				ls.add(ty.Name, name+" "+expr(fset, ts.Type))
			}
		}
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
