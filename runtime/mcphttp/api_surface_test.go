package mcphttp_test

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
	"testing"
)

// mcphttpAPI is the exported API of package mcphttp, sorted.
var mcphttpAPI = []string{
	"AuthHook",
	"BearerAuth",
	"CheckLoopback",
	"DefaultIdleTimeout",
	"DefaultMaxHeaderBytes",
	"DefaultMaxRequestBodyBytes",
	"DefaultMaxSessions",
	"DefaultMaxSessionsPerIdentity",
	"DefaultReadHeaderTimeout",
	"DefaultRequestReadTimeout",
	"DefaultSessionIdleTimeout",
	"Handler",
	"NewServer",
	"Option",
	"RequestContextFromCall",
	"ServeLoopback",
	"SessionUserID",
	"StaticTokens",
	"TraceHeaders",
	"WithIdleTimeout",
	"WithLogger",
	"WithMaxHeaderBytes",
	"WithMaxRequestBodyBytes",
	"WithMaxSessions",
	"WithMaxSessionsPerIdentity",
	"WithReadHeaderTimeout",
	"WithRequestReadTimeout",
	"WithSessionIdleTimeout",
	"WithStateless",
}

// The exported API of package mcphttp is exactly mcphttpAPI. A change to it
// is deliberate: update mcphttpAPI (sorted) in the same change.
func TestMCPHTTPAPISurface(t *testing.T) {
	got := exportedAPI(t, ".")
	if strings.Join(got, "\n") != strings.Join(mcphttpAPI, "\n") {
		t.Errorf("package mcphttp exports %d names, mcphttpAPI lists %d:\n%sUpdate mcphttpAPI in runtime/mcphttp/api_surface_test.go to the new list (sorted) if the change is intended.", len(got), len(mcphttpAPI), diffAPI(got, mcphttpAPI))
	}
}

// exportedAPI lists the exported identifiers of the package in dir as go
// doc -all shows them: every const and var name, func, type, and method of
// an exported type as Type.Method. A type alias lists no methods.
func exportedAPI(t *testing.T, dir string) []string {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "example.com/pkg")
	if err != nil {
		t.Fatal(err)
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
	return names
}

// diffAPI says which names are missing and which are new.
func diffAPI(got, want []string) string {
	in := func(xs []string) map[string]bool {
		m := map[string]bool{}
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
	return b.String()
}
