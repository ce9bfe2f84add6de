package compat_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/compat"
)

// recorder is a compat.TB that keeps what a test would print.
type recorder struct{ errors, logs []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

func TestCheckGolden(t *testing.T) {
	dir := t.TempDir()
	golden, current := filepath.Join(dir, "testdata", "b.mcpwrite.json"), filepath.Join(dir, "gen", "b.mcpwrite.json")
	put := func(schema string) {
		if err := os.MkdirAll(filepath.Dir(current), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(current, doc(tool("book_room", "SAFE_CREATE", "DIRECT", schema), ""), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(update string) *recorder {
		t.Setenv(compat.UpdateEnv, update)
		r := &recorder{}
		compat.CheckGolden(r, golden, current)
		return r
	}
	expect := func(step string, r *recorder, errors, logs string) {
		t.Helper()
		if got := strings.Join(r.errors, "|"); got != errors {
			t.Errorf("%s: errors\n%s\nwant\n%s", step, got, errors)
		}
		if got := strings.Join(r.logs, "|"); got != logs {
			t.Errorf("%s: logs\n%s\nwant\n%s", step, got, logs)
		}
	}
	v1 := `{"type":"object","required":["room"],"properties":{"room":{"type":"string","enum":["Boardroom","Focus"]}}}`
	put(v1)
	expect("no golden", check(""), "tool surface: no golden document "+golden+"; record it with MCPWRITE_UPDATE_SURFACE=1 go test", "")
	expect("record", check("1"), "", "tool surface: recorded "+golden)
	expect("unchanged", check(""), "", "")

	v2 := `{"type":"object","required":["room"],"properties":{"room":{"type":"string","enum":["Boardroom","Focus"]},"notes":{"type":"string"}}}`
	put(v2)
	expect("compatible", check(""), "tool surface "+current+" differs from "+golden+", compatibly:\ncompatible: tool book_room: notes: new optional field\nrecord it with MCPWRITE_UPDATE_SURFACE=1 go test", "")
	expect("accept", check("1"), "", "tool surface: recorded "+golden+":\ncompatible: tool book_room: notes: new optional field")
	expect("accepted", check(""), "", "")

	put(`{"type":"object","required":["room"],"properties":{"room":{"type":"string","enum":["Boardroom","Focus room"]},"notes":{"type":"string"}}}`)
	expect("breaking", check(""), "tool surface "+current+" differs from "+golden+" and breaks agents prompted with it:\nBREAKING: tool book_room: room: value renamed Focus -> Focus room\n"+
		"keep the old tool, field or value beside the new one; if the break is intended, record it with MCPWRITE_UPDATE_SURFACE=1 go test", "")
	if b, err := os.ReadFile(golden); err != nil || !strings.Contains(string(b), `"notes"`) || strings.Contains(string(b), "Focus room") {
		t.Fatalf("a failing check changed the golden document: %s %v", b, err)
	}

	r := &recorder{}
	compat.CheckGolden(r, golden, filepath.Join(dir, "none.json"))
	expect("missing current", r, "tool surface: open "+filepath.Join(dir, "none.json")+": no such file or directory", "")
}

func TestReport(t *testing.T) {
	if got := compat.Report(nil); got != "no changes to the tools agents see" {
		t.Fatalf("Report(nil) = %q", got)
	}
	got := compat.Report([]compat.Change{{Breaking: true, Tool: "t", Message: "removed"}, {Message: "service tool x added"}})
	if got != "BREAKING: tool t: removed\ncompatible: service tool x added" {
		t.Fatalf("Report = %q", got)
	}
}
