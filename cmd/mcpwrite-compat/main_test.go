package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestOutputAndExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	surface := func(source, tool, required string) string {
		return `{"source":"` + source + `","services":[{"name":"S","tools":[{"name":"` + tool + `","input_schema":{"type":"object","required":[` + required + `],"properties":{"a":{"type":"string"}}}}]}]}`
	}
	old := write("old.json", surface("b.proto", "t", ``))
	same := write("same.json", surface("b.proto", "t", ``))
	stricter := write("stricter.json", surface("b.proto", "t", `"a"`))
	bad := write("bad.json", `{`)
	notSurface := write("other.json", `{"name":"x"}`)
	write("v1/gen/b.mcpwrite.json", surface("b.proto", "t", ``))
	write("v2/gen/b.mcpwrite.json", surface("b.proto", "t", ``))
	write("v2/gen/c.mcpwrite.json", surface("c.proto", "u", ``))
	write("v2/gen/notes.txt", `not a surface`)
	write("dup/b.mcpwrite.json", surface("b.proto", "t", ``))
	write("dup/c.mcpwrite.json", surface("c.proto", "t", ``))
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name           string
		args           []string
		code           int
		stdout, stderr string
	}{
		{"compatible", []string{old, same}, 0, "mcpwrite-compat: compatible (0 changes)\n", ""},
		{"breaking", []string{old, stricter}, 1, "BREAKING: tool t: a: now required\nmcpwrite-compat: the new surface breaks agents prompted with the old one\n", ""},
		{"directories", []string{filepath.Join(dir, "v1"), filepath.Join(dir, "v2")}, 0, "compatible: tool u: added\nmcpwrite-compat: compatible (1 changes)\n", ""},
		{"removed document", []string{filepath.Join(dir, "v2"), old}, 1, "BREAKING: tool u: removed\nmcpwrite-compat: the new surface breaks agents prompted with the old one\n", ""},
		{"not JSON", []string{old, bad}, 2, "", "mcpwrite-compat: new surface: unexpected end of JSON input\n"},
		{"not a surface", []string{notSurface, old}, 2, "", "mcpwrite-compat: old surface: not a .mcpwrite.json document (no \"source\")\n"},
		{"missing file", []string{old, filepath.Join(dir, "none.json")}, 2, "", "mcpwrite-compat: stat " + filepath.Join(dir, "none.json") + ": no such file or directory\n"},
		{"empty directory", []string{filepath.Join(dir, "empty"), old}, 2, "", "mcpwrite-compat: " + filepath.Join(dir, "empty") + ": no *.mcpwrite.json documents in the directory\n"},
		{"tool twice", []string{old, filepath.Join(dir, "dup")}, 2, "", "mcpwrite-compat: new surface: tool t is in both b.proto and c.proto\n"},
		{"usage", []string{old}, 2, "", "usage: mcpwrite-compat OLD NEW  (each a .mcpwrite.json document or a directory of them)\n"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tt.args, &stdout, &stderr)
		if code != tt.code || stdout.String() != tt.stdout || stderr.String() != tt.stderr {
			t.Errorf("%s: exit %d, stdout %q, stderr %q\nwant exit %d, stdout %q, stderr %q", tt.name, code, stdout.String(), stderr.String(), tt.code, tt.stdout, tt.stderr)
		}
	}
}
