package layering

import (
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestRuntimeFileNamesAreUnique fails when two hand-written files of
// different packages under runtime/ share a name, so that a file's name
// alone says which job it holds (doc.go, Go's place for a package's
// documentation, excepted).
func TestRuntimeFileNamesAreUnique(t *testing.T) {
	dups := duplicateFileNames(t, filepath.Join("..", "..", "runtime"))
	if len(dups) > 0 {
		t.Errorf("files sharing a name in different packages of runtime (name each by its job):\n%s", strings.Join(dups, "\n"))
	}
}

// TestDuplicateFileNamesAreFound proves the check on a tree with a repeated
// name.
func TestDuplicateFileNamesAreFound(t *testing.T) {
	got := duplicateFileNames(t, filepath.Join("testdata", "dupnames"))
	want := []string{"quota.go: a/quota.go b/quota.go"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("duplicates = %q, want %q", got, want)
	}
}

// duplicateFileNames lists each non-test .go file name (but doc.go) found
// more than once under root, with its paths relative to root.
func duplicateFileNames(t *testing.T, root string) []string {
	t.Helper()
	byName := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" && p != root {
			return filepath.SkipDir
		}
		n := d.Name()
		if d.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") || n == "doc.go" {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		byName[n] = append(byName[n], filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for n, ps := range byName {
		if len(ps) > 1 {
			sort.Strings(ps)
			out = append(out, n+": "+strings.Join(ps, " "))
		}
	}
	sort.Strings(out)
	return out
}
