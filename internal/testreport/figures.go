package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Counts are the closing counts of a run, as the summary file and the
// committed figures (bench/results/commands.txt) state them.
type Counts struct {
	Passed, Failed, Skipped, Packages int
}

// counts of the summary.
func (s *summary) counts() Counts {
	return Counts{Passed: s.passed, Failed: s.failed, Skipped: len(s.skips), Packages: s.packages}
}

// figureNames are the labels of the counts, in the summary file and in
// commands.txt ("make test (passed): 2411").
var figureNames = []string{"passed", "failed", "skipped", "packages"}

func (c Counts) get(name string) int {
	switch name {
	case "passed":
		return c.Passed
	case "failed":
		return c.Failed
	case "skipped":
		return c.Skipped
	}
	return c.Packages
}

// writeSummary writes the counts, one "make test (name): n" line each,
// the format commands.txt records them in.
func writeSummary(file string, c Counts) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	var b strings.Builder
	for _, n := range figureNames {
		fmt.Fprintf(&b, "make test (%s): %d\n", n, c.get(n))
	}
	return os.WriteFile(file, []byte(b.String()), 0o644)
}

// readFigures reads the committed counts of make test from a file of
// "command: value" lines (comments start with #); each of passed,
// skipped and packages must be there.
func readFigures(file string) (Counts, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return Counts{}, err
	}
	var c Counts
	seen := map[string]bool{}
	for i, line := range strings.Split(string(b), "\n") {
		label, value, ok := strings.Cut(line, ": ")
		name, isCount := strings.CutPrefix(label, "make test (")
		if !ok || strings.HasPrefix(line, "#") || !isCount || !strings.HasSuffix(name, ")") {
			continue
		}
		name = strings.TrimSuffix(name, ")")
		if name == "first run" || name == "warm" {
			continue // a duration, checked against the README by internal/readmecheck
		}
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 {
			return Counts{}, fmt.Errorf("%s:%d: %q is not a count", file, i+1, value)
		}
		switch name {
		case "passed":
			c.Passed = n
		case "failed":
			c.Failed = n
		case "skipped":
			c.Skipped = n
		case "packages":
			c.Packages = n
		default:
			return Counts{}, fmt.Errorf("%s:%d: unknown count %q (want one of %v)", file, i+1, name, figureNames)
		}
		seen[name] = true
	}
	for _, n := range []string{"passed", "skipped", "packages"} {
		if !seen[n] {
			return Counts{}, fmt.Errorf("%s records no \"make test (%s): N\" line", file, n)
		}
	}
	return c, nil
}

// FigureTolerance is how far, as a fraction of the committed figure, a
// run's count may be from it.
const FigureTolerance = 0.02

// compareFigures prints every count of the run that is more than
// FigureTolerance from the committed one and reports whether any is.
func compareFigures(w io.Writer, file string, committed, run Counts) bool {
	stale := false
	for _, n := range []string{"passed", "skipped", "packages"} {
		want, got := committed.get(n), run.get(n)
		diff := got - want
		if diff < 0 {
			diff = -diff
		}
		if float64(diff) <= FigureTolerance*float64(want) {
			continue
		}
		stale = true
		fmt.Fprintf(w, "%s records %d %s for make test; this run has %d (more than 2%% apart): re-measure with .ci/measure-commands.sh and commit the figures\n", file, want, n, got)
	}
	return stale
}
