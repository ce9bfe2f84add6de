package runtime_test

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

// maxRuntimeAPI bounds the exported names of package runtime: it is what
// users call, and what only generated code needs lives in mcpwriteimpl.
const maxRuntimeAPI = 60

// runtimeAPI is the exported API of package runtime, sorted.
var runtimeAPI = []string{
	"CallEnd",
	"CallStart",
	"CodeAlreadyExists",
	"CodeInvalidEnumValue",
	"CodeNotFound",
	"CodeUnknownField",
	"CodeValidation",
	"ConfirmDirect",
	"ConfirmElicit",
	"ConfirmProposal",
	"Confirmation",
	"EntityState",
	"ErrorEntry",
	"Errors",
	"IdempotencyOptions",
	"IsAtLeastVersion0_1_0",
	"Limits",
	"NewPreparer",
	"NewVocabulary",
	"Observer",
	"Option",
	"Outcome",
	"Outcome.Recorded",
	"Outcome.Render",
	"OutcomeFrom",
	"PolicyCall",
	"Preparer",
	"Preparer.Decode",
	"Preparer.Prepare",
	"Previews",
	"Reference",
	"Referent",
	"Register",
	"RequestContext",
	"RequestContextFrom",
	"StaticRequestContext",
	"Suggestions",
	"Version",
	"Vocabulary",
	"Vocabulary.Invalidate",
	"Vocabulary.InvalidateAll",
	"Vocabulary.Values",
	"VocabularyOptions",
	"VocabularyValue",
	"WithClock",
	"WithElicitationTimeout",
	"WithErrorHook",
	"WithIdempotency",
	"WithLimits",
	"WithLogger",
	"WithObserver",
	"WithPolicy",
	"WithPreviews",
	"WithProposals",
	"WithRand",
	"WithRequestContext",
	"WithRequestContextFunc",
	"WithSecrets",
	"WithVocabulary",
	"WithoutRequestCheck",
}

// The exported API of package runtime is exactly runtimeAPI, at most
// maxRuntimeAPI names. A change to it is deliberate: a name only generated
// code needs belongs in runtime/mcpwriteimpl, and a new user-facing name
// goes into runtimeAPI (sorted) in the same change, within the bound
// (group rarely used knobs into one option instead of adding options).
func TestRuntimeAPISurface(t *testing.T) {
	got := exportedAPI(t, ".")
	if len(runtimeAPI) > maxRuntimeAPI {
		t.Errorf("runtimeAPI lists %d names, at most %d are allowed", len(runtimeAPI), maxRuntimeAPI)
	}
	if strings.Join(got, "\n") != strings.Join(runtimeAPI, "\n") {
		t.Errorf("package runtime exports %d names, runtimeAPI lists %d:\n%sUpdate runtimeAPI in runtime/api_surface_test.go to the new list (sorted) if the change is intended.", len(got), len(runtimeAPI), diffAPI(got, runtimeAPI))
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
