// Command mcpwrite-compat compares two versions of a tool surface (the
// .mcpwrite.json documents protoc-gen-mcpwrite writes) and exits 1 when the
// new one breaks agents prompted with the old one, printing every change.
// Each side is a document or a directory searched for *.mcpwrite.json (a
// capability repo's gen/ tree, or a checkout of its previous release).
//
//	mcpwrite-compat old.mcpwrite.json new.mcpwrite.json
//	mcpwrite-compat release-1.0/gen gen
//
// Exit status: 0 compatible, 1 breaking, 2 unusable input.
package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpwrite/protoc-gen-mcpwrite/compat"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) != 2 {
		fmt.Fprintln(stderr, "usage: mcpwrite-compat OLD NEW  (each a .mcpwrite.json document or a directory of them)")
		return 2
	}
	old, err := load(args[0])
	if err != nil {
		fmt.Fprintln(stderr, "mcpwrite-compat:", err)
		return 2
	}
	cur, err := load(args[1])
	if err != nil {
		fmt.Fprintln(stderr, "mcpwrite-compat:", err)
		return 2
	}
	changes, err := compat.CompareDocuments(old, cur)
	if err != nil {
		fmt.Fprintln(stderr, "mcpwrite-compat:", err)
		return 2
	}
	for _, c := range changes {
		fmt.Fprintln(stdout, c)
	}
	if compat.Breaking(changes) {
		fmt.Fprintln(stdout, "mcpwrite-compat: the new surface breaks agents prompted with the old one")
		return 1
	}
	fmt.Fprintf(stdout, "mcpwrite-compat: compatible (%d changes)\n", len(changes))
	return 0
}

// load reads a document, or every *.mcpwrite.json under a directory in
// path order.
func load(path string) ([][]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		return [][]byte{b}, nil
	}
	var files []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".mcpwrite.json") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no *.mcpwrite.json documents in the directory", path)
	}
	sort.Strings(files)
	out := make([][]byte, 0, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}
