// Package docrefs finds qualified identifiers (runtime.NewPreparer,
// mcpwriteimpl.Call.ContentHash) in Markdown and Go comments and checks
// that they exist, so docs and comments name things where they are.
package docrefs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Mention is one qualified identifier in a file.
type Mention struct {
	File string // slash-separated, relative to the scanned root
	Line int
	Pkg  string // the package name as written: runtime, mcpwriteimpl, impl, ...
	Name string // Name or Type.Member
}

// Names are the declared names of a package: top-level names (exported or
// not) and, per type, its methods and struct fields.
type Names struct {
	Top     map[string]bool
	Members map[string]map[string]bool
}

// Has reports whether name (X or X.Y) exists: X a top-level name, Y a method
// or field of type X; a final "*" (Context*) asks for some name with that
// prefix. A member of a name that is not a type of the package
// (a variable's method, an alias's target's method) is not checked.
func (n *Names) Has(name string) bool {
	if prefix, ok := strings.CutSuffix(name, "*"); ok {
		names, want := n.Top, prefix
		if typ, member, isMember := strings.Cut(prefix, "."); isMember {
			names, want = n.Members[typ], member
		}
		for x := range names {
			if x != "" && strings.HasPrefix(x, want) {
				return true
			}
		}
		return false
	}
	top, member, ok := strings.Cut(name, ".")
	if !n.Top[top] {
		return false
	}
	if !ok {
		return true
	}
	ms, isType := n.Members[top]
	return !isType || ms[member]
}

// LoadNames reads the non-test Go files of dir.
func LoadNames(dir string) (*Names, error) {
	n := &Names{Top: map[string]bool{}, Members: map[string]map[string]bool{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	member := func(typ, name string) {
		if n.Members[typ] == nil {
			n.Members[typ] = map[string]bool{}
		}
		n.Members[typ][name] = true
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					n.Top[d.Name.Name] = true
				} else {
					member(recvName(d.Recv.List[0].Type), d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.ValueSpec:
						for _, id := range s.Names {
							n.Top[id.Name] = true
						}
					case *ast.TypeSpec:
						n.Top[s.Name.Name] = true
						if s.Assign.IsValid() {
							continue // an alias: its members are its target's
						}
						member(s.Name.Name, "") // a type, perhaps without members
						if st, ok := s.Type.(*ast.StructType); ok {
							for _, fl := range st.Fields.List {
								for _, id := range fl.Names {
									member(s.Name.Name, id.Name)
								}
							}
						}
						if it, ok := s.Type.(*ast.InterfaceType); ok {
							for _, fl := range it.Methods.List {
								for _, id := range fl.Names {
									member(s.Name.Name, id.Name)
								}
							}
						}
					}
				}
			}
		}
	}
	return n, nil
}

func recvName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// mentionRE matches pkg.Name and pkg.Type.Member for the runtime's and the
// plugin's packages, not inside a longer name (otelruntime.X) or a path
// (runtime/x). runtime, mcpwriteimpl and mcphttp are matched with any
// name; the other packages, whose names are also words (impl.go, a
// proposal.), only with an exported one.
var mentionRE = regexp.MustCompile(`(^|[^A-Za-z0-9_./-])(?:(runtime|mcpwriteimpl|mcphttp)\.([A-Za-z_][A-Za-z0-9_]*)|(impl|callmeta|mcpgo|pvcheck|schemadoc|suggest|idempotency|proposal|connectmcp|otelmcp|mcptest|secret|outbox|gen|naming)\.([A-Z][A-Za-z0-9_]*))(\.[A-Za-z_][A-Za-z0-9_]*)?(\*)?`)

// Find returns the mentions in text, whose first line is line first.
func Find(file, text string, first int) []Mention {
	var out []Mention
	for i, line := range strings.Split(text, "\n") {
		for _, m := range mentionRE.FindAllStringSubmatch(line, -1) {
			pkg, name := m[2], m[3]
			if pkg == "" {
				pkg, name = m[4], m[5]
			}
			if m[6] != "" && ast.IsExported(name) {
				name += m[6]
			}
			name += m[7] // Prefix* names a family of names
			out = append(out, Mention{File: file, Line: first + i, Pkg: pkg, Name: name})
		}
	}
	return out
}

// Scan returns the mentions in the Markdown files mds and in the comments
// of every hand-written Go file under root (not generated, not under a
// directory in skip), sorted by file and line.
func Scan(root string, mds []string, skip map[string]bool) ([]Mention, error) {
	var out []Mention
	for _, md := range mds {
		b, err := os.ReadFile(filepath.Join(root, md))
		if err != nil {
			return nil, err
		}
		out = append(out, Find(md, string(b), 1)...)
	}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if skip[d.Name()] || (strings.HasPrefix(d.Name(), ".") && rel != ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil || ast.IsGenerated(f) {
			return nil // not Go this tool can read (a fixture), or generated
		}
		stdRuntime := false // then a runtime mention in its comments is Go's
		for _, im := range f.Imports {
			stdRuntime = stdRuntime || (im.Path.Value == `"runtime"` && im.Name == nil)
		}
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				for _, m := range Find(rel, c.Text, fset.Position(c.Pos()).Line) {
					if !(stdRuntime && m.Pkg == "runtime") {
						out = append(out, m)
					}
				}
			}
		}
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Line < out[j].Line
	})
	return out, err
}
