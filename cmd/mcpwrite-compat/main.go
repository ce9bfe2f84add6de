// Command mcpwrite-compat compares two versions of a tool surface (the
// .mcpwrite.json documents protoc-gen-mcpwrite writes) and exits 1 when the
// new one breaks agents prompted with the old one, printing every change.
//
//	mcpwrite-compat old.mcpwrite.json new.mcpwrite.json
package main

import (
	"fmt"
	"os"

	"github.com/mcpwrite/protoc-gen-mcpwrite/compat"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: mcpwrite-compat old.mcpwrite.json new.mcpwrite.json")
		os.Exit(2)
	}
	os.Exit(run(os.Args[1], os.Args[2]))
}

func run(oldPath, newPath string) int {
	old, err := os.ReadFile(oldPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpwrite-compat:", err)
		return 2
	}
	cur, err := os.ReadFile(newPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpwrite-compat:", err)
		return 2
	}
	changes, err := compat.Compare(old, cur)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpwrite-compat:", err)
		return 2
	}
	for _, c := range changes {
		fmt.Println(c)
	}
	if compat.Breaking(changes) {
		fmt.Println("mcpwrite-compat: the new surface breaks agents prompted with the old one")
		return 1
	}
	fmt.Printf("mcpwrite-compat: compatible (%d changes)\n", len(changes))
	return 0
}
