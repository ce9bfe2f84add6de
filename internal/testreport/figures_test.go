package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The run of main_test.go: 1 passed, 0 failed, 2 skipped in 2 packages.
func TestSummaryFileHoldsTheRunsCounts(t *testing.T) {
	file := filepath.Join(t.TempDir(), "out", "summary.txt")
	got, code := verdictOf(t, run, rules{summaryOut: file})
	if code != 0 || !strings.HasSuffix(got, "tests: 1 passed, 0 failed, 2 skipped in 2 packages\n") {
		t.Fatalf("exit %d, output:\n%s", code, got)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := "make test (passed): 1\nmake test (failed): 0\nmake test (skipped): 2\nmake test (packages): 2\n"
	if string(b) != want {
		t.Fatalf("summary file:\n%s\nwant:\n%s", b, want)
	}
	// The summary file is itself a figures file.
	c, err := readFigures(file)
	if err != nil || c != (Counts{Passed: 1, Skipped: 2, Packages: 2}) {
		t.Fatalf("readFigures(summary) = %+v, %v", c, err)
	}
}

func TestStaleFiguresFailTheRun(t *testing.T) {
	committed := Counts{Passed: 2411, Skipped: 0, Packages: 79}
	for _, tc := range []struct {
		name string
		run  Counts
		want string
	}{
		{"within 2%", Counts{Passed: 2459, Skipped: 0, Packages: 80}, ""},
		{"more tests", Counts{Passed: 2460, Skipped: 0, Packages: 79},
			"commands.txt records 2411 passed for make test; this run has 2460 (more than 2% apart): re-measure with .ci/measure-commands.sh and commit the figures\n"},
		{"a skip, fewer packages", Counts{Passed: 2411, Skipped: 2, Packages: 77},
			"commands.txt records 0 skipped for make test; this run has 2 (more than 2% apart): re-measure with .ci/measure-commands.sh and commit the figures\n" +
				"commands.txt records 79 packages for make test; this run has 77 (more than 2% apart): re-measure with .ci/measure-commands.sh and commit the figures\n"},
	} {
		var out strings.Builder
		stale := compareFigures(&out, "commands.txt", committed, tc.run)
		if out.String() != tc.want || stale != (tc.want != "") {
			t.Errorf("%s: stale %v, output:\n%s\nwant:\n%s", tc.name, stale, out.String(), tc.want)
		}
	}
}

func TestFiguresFileErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ text, want string }{
		{"# only a comment\nmake test: 2 min 6 s\n", `records no "make test (passed): N" line`},
		{"make test (passed): many\n", `"many" is not a count`},
		{"make test (passed): 1\nmake test (flaky): 2\n", `unknown count "flaky"`},
	} {
		f := filepath.Join(dir, "figures.txt")
		if err := os.WriteFile(f, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readFigures(f); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("readFigures(%q) = %v, want an error containing %s", tc.text, err, tc.want)
		}
	}
}

// The committed figures are readable and CI checks the run against them.
func TestCommittedFiguresAreCIs(t *testing.T) {
	if _, err := readFigures("../../bench/results/commands.txt"); err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ci), "-figures bench/results/commands.txt") {
		t.Error(".ci/run does not check make test's counts against bench/results/commands.txt (-figures)")
	}
}
