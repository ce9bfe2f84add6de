// Package answerscan_test checks that every answer the example suites and
// the golden end-to-end suites receive is scanned for the tenant and
// principal IDs their callers carry (runtime/mcptest.ForbidInAnswers), by
// construction: a test makes its MCP clients with mcptest.Connect or
// mcptest.NewClient (never mcp.NewClient), checks what another client
// receives with mcptest.CheckAnswer, and its package forbids, in TestMain,
// every tenant and principal ID its tests and the servers they start use.
package answerscan_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const (
	goSDK   = "github.com/modelcontextprotocol/go-sdk/mcp"
	mcpGo   = "github.com/mark3labs/mcp-go/client"
	mcptest = "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// identityLiteral is a tenant or principal ID as the suites spell them.
var identityLiteral = regexp.MustCompile(`^(tenant|user)-[A-Za-z0-9_-]+$`)

// devIdentity is the default -tenant or -principal of an example binary,
// which a test starting it without those flags acts as.
var devIdentity = regexp.MustCompile(`flag\.String\("(?:tenant|principal)", "([^"]+)"`)

// suite is what the scan needs to know of one test package.
type suite struct {
	dir        string
	speaksMCP  bool     // imports an MCP client or mcptest
	forbidden  []string // the literal arguments of mcptest.ForbidInAnswers
	identities []string // tenant and principal IDs its tests spell
	problems   []string
}

func TestEveryAnswerOfTheSuitesIsScanned(t *testing.T) {
	suites := scanSuites(t, "../../examples", "../../golden/e2e")
	if len(suites) < 10 {
		t.Fatalf("found %d test packages under examples and golden/e2e; the walk is broken", len(suites))
	}
	for _, s := range suites {
		for _, p := range s.problems {
			t.Error(p)
		}
		if !s.speaksMCP {
			continue
		}
		if len(s.forbidden) == 0 {
			t.Errorf("%s: no TestMain calls mcptest.ForbidInAnswers with the tenant and principal IDs its tests use, so its answers are not scanned", s.dir)
			continue
		}
		for _, id := range s.identities {
			if !slices.Contains(s.forbidden, id) {
				t.Errorf("%s: its tests act as %q, which its mcptest.ForbidInAnswers does not name", s.dir, id)
			}
		}
	}
}

// A suite that makes its own client, reads an mcp-go client's answers
// unchecked, forbids nothing, or acts as an identity it does not forbid is
// reported; one that does none of these is not.
func TestTheScanReportsASuiteThatEscapesIt(t *testing.T) {
	root := t.TempDir()
	write := func(dir, name, src string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("good", "main_test.go", `package good_test
import ("testing"; "`+mcptest+`")
func TestMain(m *testing.M) { mcptest.ForbidInAnswers("tenant-a", "user-1", "user-dev") }
func TestX(t *testing.T) { _ = mcptest.NewClient(t, nil, nil); _ = "tenant-a" }
`)
	write("good/cmd/server", "main.go", `package main
import "flag"
var p = flag.String("principal", "user-dev", "")
`)
	write("own", "own_test.go", `package own_test
import ("testing"; "`+goSDK+`"; "`+mcptest+`")
func TestMain(m *testing.M) { mcptest.ForbidInAnswers("tenant-a") }
func TestX(t *testing.T) { _ = mcp.NewClient(nil, nil); _ = "tenant-a"; _ = "user-2" }
`)
	write("mcpgo", "mcpgo_test.go", `package mcpgo_test
import ("testing"; mgo "`+mcpGo+`")
func TestX(t *testing.T) { _, _ = mgo.NewInProcessClient(nil) }
`)
	var got []string
	for _, s := range scanSuites(t, root) {
		got = append(got, s.problems...)
		if s.speaksMCP && len(s.forbidden) == 0 {
			got = append(got, s.dir+": forbids nothing")
		}
		for _, id := range s.identities {
			if !slices.Contains(s.forbidden, id) {
				got = append(got, s.dir+": does not forbid "+id)
			}
		}
	}
	want := []string{
		"mcpgo/mcpgo_test.go: imports " + mcpGo + " but never calls mcptest.CheckAnswer on what its client receives",
		"mcpgo: forbids nothing",
		"own/own_test.go:4: mcp.NewClient makes a client whose answers are not scanned; use mcptest.NewClient or mcptest.Connect",
		"own: does not forbid user-2",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("problems\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// scanSuites parses the test files of every package under roots.
func scanSuites(t *testing.T, roots ...string) []*suite {
	t.Helper()
	byDir := map[string]*suite{}
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
				return err
			}
			dir, _ := filepath.Rel(root, filepath.Dir(path))
			if len(roots) > 1 {
				dir = filepath.Join(strings.TrimPrefix(root, "../../"), dir)
			}
			s := byDir[dir]
			if s == nil {
				s = &suite{dir: dir, identities: binaryIdentities(t, root, dir, len(roots) > 1)}
				byDir[dir] = s
			}
			scanFile(t, s, path, filepath.Join(dir, filepath.Base(path)))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var out []*suite
	for _, s := range byDir {
		slices.Sort(s.identities)
		s.identities = slices.Compact(s.identities)
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].dir < out[j].dir })
	return out
}

// binaryIdentities are the default identities of the binaries under the
// example that holds dir (examples/<name>/cmd/*/main.go).
func binaryIdentities(t *testing.T, root, dir string, prefixed bool) []string {
	t.Helper()
	if prefixed {
		dir = strings.TrimPrefix(dir, strings.TrimPrefix(root, "../../")+string(filepath.Separator))
	}
	example := strings.Split(dir, string(filepath.Separator))[0]
	mains, err := filepath.Glob(filepath.Join(root, example, "cmd", "*", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range mains {
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, sm := range devIdentity.FindAllStringSubmatch(string(b), -1) {
			ids = append(ids, sm[1])
		}
	}
	return ids
}

// scanFile adds what one test file shows to s.
func scanFile(t *testing.T, s *suite, path, name string) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{} // import path -> name in the file
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		n := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			n = imp.Name.Name
		}
		names[p] = n
	}
	_, sdk := names[goSDK]
	_, mgo := names[mcpGo]
	_, harness := names[mcptest]
	s.speaksMCP = s.speaksMCP || sdk || mgo || harness
	checked := false
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BasicLit:
			if v, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && identityLiteral.MatchString(v) {
				s.identities = append(s.identities, v)
			}
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			switch {
			case sdk && pkg.Name == names[goSDK] && sel.Sel.Name == "NewClient":
				s.problems = append(s.problems, name+":"+strconv.Itoa(fset.Position(n.Pos()).Line)+
					": mcp.NewClient makes a client whose answers are not scanned; use mcptest.NewClient or mcptest.Connect")
			case harness && pkg.Name == names[mcptest] && sel.Sel.Name == "CheckAnswer":
				checked = true
			case harness && pkg.Name == names[mcptest] && sel.Sel.Name == "ForbidInAnswers":
				for _, a := range n.Args {
					if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						v, _ := strconv.Unquote(lit.Value)
						s.forbidden = append(s.forbidden, v)
					}
				}
			}
		}
		return true
	})
	if mgo && !checked {
		s.problems = append(s.problems, name+": imports "+mcpGo+" but never calls mcptest.CheckAnswer on what its client receives")
	}
}
