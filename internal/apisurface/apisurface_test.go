package apisurface

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExportedListsWhatGoDocShows(t *testing.T) {
	dir := t.TempDir()
	src := `package p

const (
	A = 1
	b = 2
)

var V, w int

type T struct{}

func NewT() *T { return nil }

func (T) M()  {}
func (T) m()  {}
func (*T) P() {}

type Alias = T

type hidden struct{}

func (hidden) X() {}

func F() {}
`
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p_test.go"), []byte("package p\n\nfunc Exported() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Exported(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := "A Alias F NewT T T.M T.P V"
	if strings.Join(got, " ") != want {
		t.Fatalf("Exported = %q, want %q", strings.Join(got, " "), want)
	}
}

func TestDiffNamesRemovedAndAdded(t *testing.T) {
	if d := Diff([]string{"A", "C"}, []string{"A", "B"}); d != "  - B (removed)\n  + C (added)\n" {
		t.Fatalf("Diff = %q", d)
	}
	if d := Diff([]string{"A", "B"}, []string{"A", "B"}); d != "" {
		t.Fatalf("Diff of equal lists = %q", d)
	}
	if d := Diff([]string{"A", "B"}, []string{"B", "A"}); !strings.Contains(d, "another order") {
		t.Fatalf("Diff of reordered lists = %q", d)
	}
}
