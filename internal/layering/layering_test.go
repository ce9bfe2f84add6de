package layering

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var (
	update = flag.Bool("update", false, "rewrite testdata/baseline.txt from the current code (with -reason)")
	reason = flag.String("reason", "", "why -update rewrites the baseline, recorded in it")
)

// module is the import path of the module the ratchet measures.
const module = "github.com/mcpwrite/protoc-gen-mcpwrite"

const baselineFile = "testdata/baseline.txt"

func analyzeAll(t *testing.T, root string, paths []string) map[string]*Report {
	t.Helper()
	var patterns []string
	for _, p := range paths {
		patterns = append(patterns, "./"+p)
	}
	pkgs, exports, err := List(root, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != len(paths) {
		t.Fatalf("go list found %d packages for %v", len(pkgs), paths)
	}
	out := map[string]*Report{}
	for _, p := range pkgs { // go list lists dependencies first
		for _, path := range paths {
			if strings.HasSuffix(filepath.ToSlash(p.Dir), "/"+path) {
				r, err := Analyze(p, exports)
				if err != nil {
					t.Fatal(err)
				}
				out[path] = r
			}
		}
	}
	if len(out) != len(paths) {
		t.Fatalf("analysed %d of the packages %v", len(out), paths)
	}
	return out
}

// analyzeModule measures every package of the module that has a
// hand-written file, keyed by its path inside the module.
func analyzeModule(t *testing.T) (map[string]*Report, []string) {
	t.Helper()
	pkgs, exports, err := List("../..", "./...")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*Report{}
	var paths []string
	for _, p := range pkgs {
		r, err := Analyze(p, exports)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Files) == 0 { // generated only
			continue
		}
		path := strings.TrimPrefix(p.ImportPath, module+"/")
		out[path] = r
		paths = append(paths, path)
	}
	if len(paths) < 50 {
		t.Fatalf("measured %d packages, want every hand-written package of the module (at least 50)", len(paths))
	}
	return out, paths
}

// The structure of every hand-written package of the module does not get
// worse than testdata/baseline.txt: no new cycle between hand-written files
// (a pair that uses each other or a longer loop), no new file over 500
// lines, no new function over 100 lines. go test ./internal/layering
// -update -reason 'why' rewrites the baseline (after a merge, or to lower
// it), recording the reason in it; go test -v
// prints the figures.
func TestStructureRatchet(t *testing.T) {
	reports, measured := analyzeModule(t)
	for _, pkg := range measured {
		t.Log(Figures(pkg, reports[pkg]))
		r := reports[pkg]
		t.Logf("%s: files bottom first: %s", pkg, strings.Join(r.Order, " "))
		for _, c := range r.Cycles {
			t.Logf("%s: cycle %s: %s", pkg, strings.Join(c, " "), strings.Join(arrowsWithin(c, r.Uses), "; "))
		}
	}
	if *update {
		old, err := os.ReadFile(baselineFile)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		text, err := WithReason(Format(reports), string(old), *reason)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(baselineFile, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", baselineFile)
		return
	}
	text, err := os.ReadFile(baselineFile)
	if err != nil {
		t.Fatalf("%v (go test ./internal/layering -update writes it)", err)
	}
	b, err := ParseBaseline(string(text))
	if err != nil {
		t.Fatal(err)
	}
	failures, notes := Check(b, reports)
	for _, n := range notes {
		t.Log("note: " + n)
	}
	for _, f := range failures {
		t.Error(f)
	}
	if len(failures) > 0 {
		t.Log("if the change is intended (e.g. after a merge), go test ./internal/layering -update -reason '...' rewrites the baseline")
	}
}

// The fixture: a.go and b.go use each other (one pair), c.go uses a.go and
// the generated gen.go (not counted), test files are not measured.
func TestAnalyzeFindsMutualPairsAndSizes(t *testing.T) {
	r := analyzeAll(t, ".", []string{"testdata/cycle"})["testdata/cycle"]
	if want := map[string]int{"a.go": 17, "b.go": 6, "c.go": 3}; !reflect.DeepEqual(r.Files, want) {
		t.Errorf("Files = %v, want %v", r.Files, want)
	}
	if want := [][2]string{{"a.go", "b.go"}}; !reflect.DeepEqual(r.Pairs, want) {
		t.Errorf("Pairs = %v, want %v", r.Pairs, want)
	}
	if want := [][]string{{"a.go", "b.go"}}; !reflect.DeepEqual(r.Cycles, want) {
		t.Errorf("Cycles = %v, want %v", r.Cycles, want)
	}
	wantUses := map[[2]string][]string{
		{"a.go", "b.go"}: {"B"},
		{"b.go", "a.go"}: {"A", "A.grow"},
		{"c.go", "a.go"}: {"A", "A.N"},
	}
	if !reflect.DeepEqual(r.Uses, wantUses) {
		t.Errorf("Uses = %v, want %v", r.Uses, wantUses)
	}
	if want := []string{"b.go", "a.go", "c.go"}; !reflect.DeepEqual(r.Order, want) || r.BackArrows != 1 {
		t.Errorf("Order = %v with %d back-arrows, want %v with 1", r.Order, r.BackArrows, want)
	}
	if want := map[string]int{"A.grow": 1, "Long": 7, "useA": 1, "useField": 1}; !reflect.DeepEqual(r.Funcs, want) {
		t.Errorf("Funcs = %v, want %v", r.Funcs, want)
	}
	if r.Exported != 4 { // A, B, Generated, Long
		t.Errorf("Exported = %d, want 4", r.Exported)
	}
}

// A cycle of three files, none of which uses the one that uses it (no
// mutual pair), is found as one strongly connected component, and a
// baseline without it fails naming every arrow of the loop.
func TestThreeFileCycleFails(t *testing.T) {
	r := analyzeAll(t, ".", []string{"testdata/cycle3"})["testdata/cycle3"]
	if len(r.Pairs) != 0 {
		t.Errorf("Pairs = %v, want none", r.Pairs)
	}
	if want := [][]string{{"x.go", "y.go", "z.go"}}; !reflect.DeepEqual(r.Cycles, want) {
		t.Fatalf("Cycles = %v, want %v", r.Cycles, want)
	}
	failures, notes := Check(newBaseline(), map[string]*Report{"p": r})
	want := []string{"p: new cycle between files x.go y.go z.go: x.go -> y.go (Y); y.go -> z.go (Z); z.go -> x.go (X). Make the references run one way (move what they share into a file below them)."}
	if !reflect.DeepEqual(failures, want) || len(notes) != 0 {
		t.Errorf("failures = %q, notes = %q; want %q", failures, notes, want)
	}
	b, err := ParseBaseline("cycle p x.go y.go z.go\n")
	if err != nil {
		t.Fatal(err)
	}
	if f, n := Check(b, map[string]*Report{"p": r}); len(f)+len(n) != 0 {
		t.Errorf("with the cycle in the baseline: failures %q, notes %q", f, n)
	}
}

// A new cycle fails with its files and the identifiers each arrow uses; a
// cycle, file or function the baseline allows that is gone is a note.
func TestCheckNamesNewCyclesAndNotesLowerBaseline(t *testing.T) {
	r := &Report{
		Files: map[string]int{"a.go": 600, "b.go": 10, "c.go": 10},
		Uses: map[[2]string][]string{
			{"a.go", "b.go"}: {"B"},
			{"b.go", "a.go"}: {"A", "A.grow"},
		},
		Pairs:  [][2]string{{"a.go", "b.go"}},
		Cycles: [][]string{{"a.go", "b.go"}},
		Funcs:  map[string]int{"big": 150, "T.huge": 101, "ok": 100},
	}
	b, err := ParseBaseline("# c\ncycle p b.go c.go\nbigfile p c.go 501\nlongfunc p T.huge 120\nlongfunc p gone 200\n")
	if err != nil {
		t.Fatal(err)
	}
	failures, notes := Check(b, map[string]*Report{"p": r})
	wantF := []string{
		"p: new cycle between files a.go b.go: a.go -> b.go (B); b.go -> a.go (A, A.grow). Make the references run one way (move what they share into a file below them).",
		"p: file a.go has 600 lines, over the limit of 500 for new code: split it.",
		"p: function big has 150 lines, over the limit of 100 for new code: split it.",
	}
	wantN := []string{
		"p: b.go c.go no longer form a cycle: lower the baseline (go test ./internal/layering -update).",
		"p: file c.go is no longer over 500 lines (or is gone): lower the baseline (go test ./internal/layering -update).",
		"p: function gone is no longer over 100 lines (or is gone): lower the baseline (go test ./internal/layering -update).",
	}
	if !reflect.DeepEqual(failures, wantF) {
		t.Errorf("failures =\n%s\nwant\n%s", strings.Join(failures, "\n"), strings.Join(wantF, "\n"))
	}
	if !reflect.DeepEqual(notes, wantN) {
		t.Errorf("notes =\n%s\nwant\n%s", strings.Join(notes, "\n"), strings.Join(wantN, "\n"))
	}
	// The baseline written from r passes it.
	b2, err := ParseBaseline(Format(map[string]*Report{"p": r}))
	if err != nil {
		t.Fatal(err)
	}
	if f, n := Check(b2, map[string]*Report{"p": r}); len(f)+len(n) != 0 {
		t.Errorf("own baseline: failures %q, notes %q", f, n)
	}
}

func TestParseBaselineRejectsBadLines(t *testing.T) {
	for _, line := range []string{"pair p a.go b.go", "bigfile p a.go many", "cycle p a.go", "longfunc p f 1 2"} {
		if _, err := ParseBaseline(line + "\n"); err == nil || !strings.Contains(err.Error(), "baseline line 1") {
			t.Errorf("ParseBaseline(%q) = %v, want a baseline line 1 error", line, err)
		}
	}
}

// The baseline is rewritten only with a reason, kept with the earlier ones.
func TestBaselineRewriteNeedsAReason(t *testing.T) {
	formatted := "# header\n\n# p: figures\ncycle p a.go b.go\n"
	if _, err := WithReason(formatted, "", "  "); err == nil || !strings.Contains(err.Error(), "-reason") {
		t.Errorf("blank reason: %v, want an error naming -reason", err)
	}
	if _, err := WithReason(formatted, "", "two\nlines"); err == nil {
		t.Error("a reason of two lines was accepted")
	}
	old := "# header\n# reason: merge of rooms\n\n# p: figures\n"
	got, err := WithReason(formatted, old, "split registry")
	if err != nil {
		t.Fatal(err)
	}
	want := "# header\n# reason: merge of rooms\n# reason: split registry\n\n# p: figures\ncycle p a.go b.go\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := ParseBaseline(got); err != nil {
		t.Errorf("the baseline with reasons does not parse: %v", err)
	}
}
