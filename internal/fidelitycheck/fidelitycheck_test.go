package fidelitycheck

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTestFuncsFindsTestsAndTheLocalFiles(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/a_test.go", "package a\n\nfunc TestA(t *testing.T) {}\nfunc helper() {}\n")
	write("b/b_test.go", "package b\n\nfunc TestB(t *testing.T) {}\n")
	write("b/b.go", "package b\n\nfunc TestNotATest(t *testing.T) {}\n")
	write("node_modules/x/x_test.go", "func TestHidden(t *testing.T) {}\n")
	write(".git/y_test.go", "func TestDot(t *testing.T) {}\n")
	defined, local, err := TestFuncs(root, filepath.Join(root, "b"))
	if err != nil {
		t.Fatal(err)
	}
	if len(defined) != 2 || !defined["TestA"] || !defined["TestB"] {
		t.Errorf("defined = %v, want TestA and TestB", defined)
	}
	if local != "package b\n\nfunc TestB(t *testing.T) {}\n" {
		t.Errorf("local = %q", local)
	}
}
