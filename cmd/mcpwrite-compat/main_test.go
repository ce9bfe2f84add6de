package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	surface := func(required string) string {
		return `{"source":"b.proto","services":[{"name":"S","tools":[{"name":"t","input_schema":{"type":"object","required":[` + required + `],"properties":{"a":{"type":"string"}}}}]}]}`
	}
	old := write("old.json", surface(``))
	same := write("same.json", surface(``))
	stricter := write("stricter.json", surface(`"a"`))
	bad := write("bad.json", `{`)
	for _, tt := range []struct {
		name, a, b string
		want       int
	}{
		{"compatible", old, same, 0},
		{"breaking", old, stricter, 1},
		{"not a surface", old, bad, 2},
		{"missing file", old, filepath.Join(dir, "none.json"), 2},
	} {
		if got := run(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: exit %d, want %d", tt.name, got, tt.want)
		}
	}
}
