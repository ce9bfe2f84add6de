// Command testreport reads `go test -json` on standard input, prints the
// ordinary test output, and closes with a count of passed, failed and skipped
// tests and the reason of every skip, so a run that skipped tests never looks
// like a run that ran them.
//
// With -require-stores (CI sets it) a test skipped because a store
// (PostgreSQL or Redis) was not configured fails the run.
//
//	go test -json ./... | go run ./internal/testreport -require-stores
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

// storeSkip matches the skip messages of tests that need a configured store.
var storeSkip = regexp.MustCompile(`MCPWRITE_TEST_(POSTGRES_DSN|REDIS_ADDR)`)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

type skip struct {
	name   string
	reason string
}

type summary struct {
	passed, failed int
	skips          []skip
	// brokenPackages failed without a failing test: a build or set-up
	// failure, or a panic outside any test.
	brokenPackages []string
}

func main() {
	requireStores := flag.Bool("require-stores", false, "fail when a test skipped because PostgreSQL or Redis was not configured")
	flag.Parse()
	s, err := report(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
	os.Exit(s.verdict(os.Stdout, *requireStores))
}

// report copies the test output to w and counts the outcomes.
func report(r io.Reader, w io.Writer) (*summary, error) {
	s := &summary{}
	// The last output line of a test before its skip event is the reason.
	last := map[string]string{}
	failedTests := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var ev event
		if err := json.Unmarshal(line, &ev); err != nil || ev.Action == "" {
			// Non-JSON lines pass through unchanged.
			fmt.Fprintln(w, string(line))
			continue
		}
		id := ev.Package + " " + ev.Test
		switch ev.Action {
		case "output", "build-output":
			io.WriteString(w, ev.Output)
			if ev.Test != "" {
				if t := strings.TrimSpace(ev.Output); t != "" && !strings.HasPrefix(t, "=== ") && !strings.HasPrefix(t, "--- ") {
					last[id] = t
				}
			}
		case "pass":
			if ev.Test != "" {
				s.passed++
			}
		case "fail":
			if ev.Test != "" {
				s.failed++
				failedTests[ev.Package]++
			} else if failedTests[ev.Package] == 0 {
				s.brokenPackages = append(s.brokenPackages, ev.Package)
			}
		case "skip":
			if ev.Test != "" {
				s.skips = append(s.skips, skip{name: ev.Package + "." + ev.Test, reason: reason(last[id])})
			}
		}
	}
	return s, sc.Err()
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

// verdict prints the closing lines and returns the exit code.
func (s *summary) verdict(w io.Writer, requireStores bool) int {
	code := 0
	if s.failed > 0 || len(s.brokenPackages) > 0 {
		code = 1
	}
	if len(s.skips) > 0 {
		byReason := map[string][]string{}
		for _, sk := range s.skips {
			byReason[sk.reason] = append(byReason[sk.reason], sk.name)
		}
		reasons := make([]string, 0, len(byReason))
		for r := range byReason {
			reasons = append(reasons, r)
		}
		sort.Strings(reasons)
		fmt.Fprintf(w, "\nskipped tests, by reason:\n")
		for _, r := range reasons {
			fmt.Fprintf(w, "  %d × %s\n", len(byReason[r]), r)
			if requireStores && storeSkip.MatchString(r) {
				for _, n := range byReason[r] {
					fmt.Fprintf(w, "    %s\n", n)
				}
				code = 1
			}
		}
	}
	if requireStores && s.storeSkips() > 0 {
		fmt.Fprintf(w, "%d store tests skipped: set MCPWRITE_TEST_POSTGRES_DSN and MCPWRITE_TEST_REDIS_ADDR\n", s.storeSkips())
	}
	for _, p := range s.brokenPackages {
		fmt.Fprintf(w, "package %s failed outside any test (build or set-up failure)\n", p)
	}
	fmt.Fprintf(w, "tests: %d passed, %d failed, %d skipped\n", s.passed, s.failed, len(s.skips))
	return code
}

// storeSkips counts the tests skipped for want of a configured store.
func (s *summary) storeSkips() int {
	n := 0
	for _, sk := range s.skips {
		if storeSkip.MatchString(sk.reason) {
			n++
		}
	}
	return n
}
