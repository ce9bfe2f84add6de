// Package fidelitycheck reads the repository's test functions for the
// examples' tests that hold each FIDELITY.md table to tests that exist.
package fidelitycheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

var funcRE = regexp.MustCompile(`(?m)^func (Test\w+)\(`)

// TestFuncs walks the _test.go files below root (skipping node_modules and
// dot directories) and returns the names of the Test functions they define,
// and the text of the test files directly in dir (a path below root, as
// root joins it), where subtest names are looked up.
func TestFuncs(root, dir string) (defined map[string]bool, local string, err error) {
	defined = map[string]bool{}
	var b strings.Builder
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range funcRE.FindAllSubmatch(src, -1) {
			defined[string(m[1])] = true
		}
		if filepath.Dir(path) == filepath.Clean(dir) {
			b.Write(src)
		}
		return nil
	})
	return defined, b.String(), err
}
