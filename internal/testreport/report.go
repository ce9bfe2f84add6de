package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

type skip struct {
	name   string
	reason string
}

// pkgCount is one package's test outcomes.
type pkgCount struct{ passed, failed, skipped int }

type summary struct {
	passed, failed int
	packages       int
	skips          []skip
	// brokenPackages failed without a failing test: a build or set-up
	// failure, or a panic outside any test.
	brokenPackages []string
	// failedTests are the failed tests in the order they failed, with
	// their output.
	failedTests []failure
	// brokenOutput is the output of each broken package (build output
	// included).
	brokenOutput map[string]string
	// timings are the elapsed times of packages and top-level tests, and
	// the first and last event times of the run.
	timings timings
}

type failure struct {
	name   string
	output string
}

// report prints one line per package as it finishes and counts the
// outcomes; it keeps the output of failed tests and broken packages for
// verdict. Lines that are not test events (a go command error) pass
// through.
func report(r io.Reader, w io.Writer) (*summary, error) {
	s := &summary{brokenOutput: map[string]string{}}
	// The last output line of a test before its skip event is the reason.
	last := map[string]string{}
	outputs := map[string]*strings.Builder{}
	buildOut := map[string]*strings.Builder{}
	counts := map[string]*pkgCount{}
	count := func(pkg string) *pkgCount {
		if counts[pkg] == nil {
			counts[pkg] = &pkgCount{}
		}
		return counts[pkg]
	}
	appendTo := func(m map[string]*strings.Builder, k, text string) {
		if m[k] == nil {
			m[k] = &strings.Builder{}
		}
		m[k].WriteString(text)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var ev event
		if err := json.Unmarshal(line, &ev); err != nil || ev.Action == "" {
			fmt.Fprintln(w, string(line))
			continue
		}
		id := ev.Package + " " + ev.Test
		s.timings.observe(ev)
		switch ev.Action {
		case "build-output":
			// ImportPath is "p" or "p [p.test]".
			pkg, _, _ := strings.Cut(ev.ImportPath, " [")
			appendTo(buildOut, pkg, ev.Output)
		case "output":
			appendTo(outputs, id, ev.Output)
			if ev.Test != "" {
				if t := strings.TrimSpace(ev.Output); t != "" && !strings.HasPrefix(t, "=== ") && !strings.HasPrefix(t, "--- ") {
					last[id] = t
				}
			}
		case "pass", "fail", "skip":
			if ev.Test == "" {
				s.packageDone(w, ev, count(ev.Package), outputs, buildOut)
				continue
			}
			c := count(ev.Package)
			switch ev.Action {
			case "pass":
				s.passed++
				c.passed++
			case "fail":
				s.failed++
				c.failed++
				s.failedTests = append(s.failedTests, failure{name: ev.Package + "." + ev.Test, output: text(outputs[id])})
			case "skip":
				c.skipped++
				s.skips = append(s.skips, skip{name: ev.Package + "." + ev.Test, reason: reason(last[id])})
			}
			delete(outputs, id)
		}
	}
	return s, sc.Err()
}

func text(b *strings.Builder) string {
	if b == nil {
		return ""
	}
	return b.String()
}

// packageDone prints the line of a finished package.
func (s *summary) packageDone(w io.Writer, ev event, c *pkgCount, outputs, buildOut map[string]*strings.Builder) {
	s.packages++
	status := map[string]string{"pass": "ok", "fail": "FAIL", "skip": "-"}[ev.Action]
	var parts []string
	if c.passed > 0 {
		parts = append(parts, fmt.Sprintf("%d passed", c.passed))
	}
	if c.failed > 0 {
		parts = append(parts, fmt.Sprintf("%d failed", c.failed))
	}
	if c.skipped > 0 {
		parts = append(parts, fmt.Sprintf("%d skipped", c.skipped))
	}
	detail := strings.Join(parts, ", ")
	if ev.Action == "skip" {
		detail = "no tests"
	}
	if ev.Action == "fail" && c.failed == 0 {
		s.brokenPackages = append(s.brokenPackages, ev.Package)
		s.brokenOutput[ev.Package] = text(buildOut[ev.Package]) + text(outputs[ev.Package+" "])
		detail = "build or set-up failure"
	}
	fmt.Fprintf(w, "%-4s %-60s %6.1fs  %s\n", status, ev.Package, ev.Elapsed, detail)
}

// printFailures prints the output of every failed test and broken package.
func (s *summary) printFailures(w io.Writer) {
	for _, f := range s.failedTests {
		fmt.Fprintf(w, "\n--- FAIL: %s\n%s", f.name, f.output)
	}
	for _, p := range s.brokenPackages {
		fmt.Fprintf(w, "\n--- FAIL: package %s\n%s", p, s.brokenOutput[p])
	}
}

// reason strips the file:line prefix that t.Skip output carries.
func reason(out string) string {
	if i := strings.Index(out, ": "); i > 0 && strings.Contains(out[:i], ".go:") {
		return out[i+2:]
	}
	if out == "" {
		return "(no reason given)"
	}
	return out
}

func sortStrings(ss []string) { sort.Strings(ss) }
