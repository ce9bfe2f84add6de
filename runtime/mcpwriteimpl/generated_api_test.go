package mcpwriteimpl_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/apisurface"
)

const (
	root     = "../.."
	implPath = "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
)

// testsOfGeneratedCode are the hand-written test files outside the runtime
// that may name mcpwriteimpl: they build or drive the bindings generated
// code builds (a Service of stub Tools, a Decoder handed to a generated
// decode function), or hold the plugin to what the runtime derives. A new
// file is added here only for that reason; example code, servers and
// their tests use package runtime.
var testsOfGeneratedCode = map[string]bool{
	"bench/compact_test.go":                 true,
	"golden/aip_schema_tool_test.go":        true,
	"golden/committed_test.go":              true,
	"golden/schema_version_test.go":         true,
	"golden/service_schema_bytes_test.go":   true,
	"golden/update_mask_paths_test.go":      true,
	"internal/gen/vocabulary_agree_test.go": true,
	"realworld/realworld_test.go":           true,
}

// goFiles walks the module's Go files (not node_modules, not testdata
// inputs of other tools) and calls fn with each path relative to root and
// its parsed file.
func goFiles(t *testing.T, mode parser.Mode, fn func(rel string, f *ast.File)) {
	t.Helper()
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "node_modules" || n == ".git" || n == ".tools" || n == "third_party" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, mode|parser.ParseComments)
		if err != nil {
			return nil // a deliberately broken fixture
		}
		rel, _ := filepath.Rel(root, path)
		fn(filepath.ToSlash(rel), f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// imports reports whether f imports mcpwriteimpl, and under which name.
func imports(f *ast.File) (string, bool) {
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == implPath {
			if im.Name != nil {
				return im.Name.Name, true
			}
			return "mcpwriteimpl", true
		}
	}
	return "", false
}

// Every name mcpwriteimpl exports is used by generated code: the committed
// .mcpwrite.go files of the examples and of golden/testdata (what the
// emitters write for every golden case). A name only the runtime uses
// belongs in runtime/internal/impl or runtime/internal/callmeta.
func TestEveryNameIsUsedByGeneratedCode(t *testing.T) {
	exported, err := apisurface.Exported(".")
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]int{}
	files := 0
	goFiles(t, 0, func(rel string, f *ast.File) {
		if !strings.HasSuffix(rel, ".mcpwrite.go") || !ast.IsGenerated(f) {
			return
		}
		name, ok := imports(f)
		if !ok {
			return
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == name {
					used[sel.Sel.Name]++
				}
			}
			return true
		})
	})
	if files < 20 {
		t.Fatalf("found %d generated files that import mcpwriteimpl, want at least 20", files)
	}
	named := namedBySignatures(t, used)
	var unused []string
	for _, n := range exported {
		if used[n] == 0 && !named[n] {
			unused = append(unused, n)
		}
	}
	if len(unused) > 0 {
		t.Errorf("mcpwriteimpl exports %d names no generated code uses: %s; move them into runtime/internal/impl (or callmeta) and import that from the runtime", len(unused), strings.Join(unused, ", "))
	}
	var missing []string
	for n := range used {
		if !contains(exported, n) {
			missing = append(missing, n)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("generated code uses names mcpwriteimpl does not export: %s", strings.Join(missing, ", "))
	}
	if len(exported) != wantNames {
		t.Errorf("mcpwriteimpl exports %d names, want %d: %s", len(exported), wantNames, strings.Join(exported, " "))
	}
}

// wantNames is the number of names mcpwriteimpl exports; docs/architecture.md
// states it (TestArchitectureStatesTheNameCount).
const wantNames = 41

// namedBySignatures reports the exported types that the signatures of the
// names generated code uses name (NewPairTable returns a *PairTable,
// runtime.AdapterOption is a ForwardOption): generated code can name what
// it is given, though it need not.
func namedBySignatures(t *testing.T, used map[string]int) map[string]bool {
	t.Helper()
	sigs, err := apisurface.Signatures(".")
	if err != nil {
		t.Fatal(err)
	}
	word := regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	named := map[string]bool{}
	for _, s := range sigs {
		owner := strings.TrimPrefix(strings.Fields(s)[0], "(*")
		owner, _, _ = strings.Cut(strings.TrimSuffix(owner, ")"), ".")
		if used[owner] == 0 {
			continue
		}
		for _, w := range word.FindAllString(s[len(strings.Fields(s)[0]):], -1) {
			named[w] = true
		}
	}
	return named
}

// docs/architecture.md states how many names mcpwriteimpl exports, and the
// figure is this package's.
func TestArchitectureStatesTheNameCount(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := "exactly the " + strconv.Itoa(wantNames) + " names generated code uses"
	if !strings.Contains(string(b), want) {
		t.Errorf("docs/architecture.md does not say %q: state mcpwriteimpl's name count there", want)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Only generated code and the runtime's own packages import mcpwriteimpl
// (and the tests of generated code in testsOfGeneratedCode): example
// domains, servers, their tests and the plugin use package runtime.
func TestOnlyGeneratedCodeAndTheRuntimeImportIt(t *testing.T) {
	var bad []string
	seen := map[string]bool{}
	goFiles(t, parser.ImportsOnly, func(rel string, f *ast.File) {
		if _, ok := imports(f); !ok {
			return
		}
		seen[rel] = true
		switch {
		case strings.HasPrefix(rel, "runtime/"):
		case strings.HasSuffix(rel, ".mcpwrite.go") && ast.IsGenerated(f):
		case testsOfGeneratedCode[rel]:
		default:
			bad = append(bad, rel)
		}
	})
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("mcpwriteimpl is for generated code only; these files import it: %s. Use package runtime (every error code, ContentHash, Excerpt), runtime/mcphttp (TokenIdentity) or the generated constructors instead", strings.Join(bad, ", "))
	}
	for rel := range testsOfGeneratedCode {
		if !seen[rel] {
			t.Errorf("%s no longer imports mcpwriteimpl: drop it from testsOfGeneratedCode", rel)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "examples")); err != nil {
		t.Fatal(err)
	}
}
