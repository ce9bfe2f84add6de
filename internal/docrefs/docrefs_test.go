package docrefs

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// packages maps the package names the docs qualify identifiers with to
// their directories, relative to the module root.
var packages = map[string]string{
	"runtime":      "runtime",
	"mcpwriteimpl": "runtime/mcpwriteimpl",
	"mcphttp":      "runtime/mcphttp",
	"impl":         "runtime/internal/impl",
	"callmeta":     "runtime/internal/callmeta",
	"mcpgo":        "runtime/mcpgo",
	"pvcheck":      "runtime/pvcheck",
	"schemadoc":    "runtime/schemadoc",
	"suggest":      "runtime/suggest",
	"idempotency":  "runtime/idempotency",
	"proposal":     "runtime/proposal",
	"connectmcp":   "runtime/connectmcp",
	"otelmcp":      "runtime/otelmcp",
	"mcptest":      "runtime/mcptest",
	"secret":       "runtime/secret",
	"outbox":       "runtime/outbox",
	"gen":          "internal/gen",
	"naming":       "internal/naming",
}

// skipDirs are not scanned: installed tools and vendored sources.
var skipDirs = map[string]bool{"node_modules": true, "third_party": true}

const allowFile = "testdata/allow.txt"

// readAllow reads "FILE PKG.NAME reason" lines: a mention that is meant to
// name something that is not (or no longer) in the package.
func readAllow(t *testing.T) map[string]bool {
	t.Helper()
	f, err := os.Open(allowFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	allow := map[string]bool{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) < 3 {
			t.Fatalf("%s:%d: want \"FILE PKG.NAME reason\", got %q", allowFile, n, line)
		}
		allow[fs[0]+" "+fs[1]] = true
	}
	return allow
}

// Every identifier qualified by a package of the runtime or the plugin (as
// in runtime.NewPreparer, mcpwriteimpl.Call.ContentHash, impl.Parse) named in
// README.md, docs/*.md and the comments of hand-written Go files exists in
// that package, unless testdata/allow.txt lists the mention with a reason.
func TestDocsAndCommentsNameExistingIdentifiers(t *testing.T) {
	root := "../.."
	names := map[string]*Names{}
	for pkg, dir := range packages {
		n, err := LoadNames(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		names[pkg] = n
	}
	mds, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	for _, md := range mds {
		files = append(files, "docs/"+filepath.Base(md))
	}
	mentions, err := Scan(root, files, skipDirs)
	if err != nil {
		t.Fatal(err)
	}
	if len(mentions) < 100 {
		t.Fatalf("found %d mentions; the scan is not reading the docs and comments", len(mentions))
	}
	allow := readAllow(t)
	used := map[string]bool{}
	for _, m := range mentions {
		key := m.File + " " + m.Pkg + "." + m.Name
		if names[m.Pkg].Has(m.Name) {
			continue
		}
		if allow[key] {
			used[key] = true
			continue
		}
		t.Errorf("%s:%d names %s.%s, which package %s (%s) does not declare: name it where it is now, or list the mention in internal/docrefs/%s with the reason", m.File, m.Line, m.Pkg, m.Name, m.Pkg, packages[m.Pkg], allowFile)
	}
	for key := range allow {
		if !used[key] {
			t.Errorf("%s lists %q, which is no longer a missing name: remove the line", allowFile, key)
		}
	}
}

func TestFindAndHas(t *testing.T) {
	text := "calls runtime.Register and mcpwriteimpl.Call.ContentHash,\nnot otelruntime.X, runtime/mcphttp or `runtime.Option`; mcpwriteimpl.Context* keys.\nimpl.Parse and callmeta.RequestMetadata.TenantID, not impl.go or a proposal.store"
	got := Find("f.md", text, 10)
	want := []Mention{
		{"f.md", 10, "runtime", "Register"},
		{"f.md", 10, "mcpwriteimpl", "Call.ContentHash"},
		{"f.md", 11, "runtime", "Option"},
		{"f.md", 11, "mcpwriteimpl", "Context*"},
		{"f.md", 12, "impl", "Parse"},
		{"f.md", 12, "callmeta", "RequestMetadata.TenantID"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Find = %+v, want %+v", got, want)
	}
	dir := t.TempDir()
	src := "package p\n\ntype T struct{ F int }\n\nfunc (*T) M() {}\n\ntype A = T\n\nvar V T\n\nfunc f() {}\n"
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := LoadNames(dir)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{
		"T": true, "T.F": true, "T.M": true, "T.X": false, "A": true, "A.M": true,
		"V": true, "f": true, "g": false, "Gone.M": false, "T*": true, "X*": false,
	} {
		if got := n.Has(name); got != want {
			t.Errorf("Has(%q) = %v, want %v", name, got, want)
		}
	}
}
