// Command testreport reads `go test -json` on standard input and prints one
// line per package as it finishes, then the output of every failed test, the
// skipped tests by reason and a closing count, so a run that skipped tests
// never looks like a run that ran them. The complete event stream goes to the
// -json file, for the verbose output of any test.
//
// CI makes the run strict with explicit flags (nothing is read from the
// environment):
//
//	-require-stores      a test skipped because PostgreSQL or Redis was not configured fails the run
//	-allow-skips FILE    any skip whose reason matches no line of FILE (a regular expression a line) fails the run
//	-min-tests FILE|N    fewer tests run (passed or failed) than the floor fails the run
//	-figures FILE        a count (passed, skipped, packages) more than 2% from the one FILE records fails the run
//
// -summary FILE writes the closing counts in the format FILE of -figures
// records them ("make test (passed): 2411").
//
//	go test -json ./... | go run ./internal/testreport -json .test-output/test.json -require-stores
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// storeSkip matches the skip messages of tests that need a configured store.
var storeSkip = regexp.MustCompile(`MCPWRITE_TEST_(POSTGRES_DSN|REDIS_ADDR)`)

// rules are what makes a run strict.
type rules struct {
	requireStores bool
	// allowSkips are the reasons a skip may have; nil allows every skip.
	allowSkips []*regexp.Regexp
	// minTests is the least number of tests a run must run; 0: no floor.
	minTests int
	// jsonOut is where the complete output went, named before the count.
	jsonOut string
	// figuresFile, when set, holds the committed counts (figures) the
	// run's must be within FigureTolerance of.
	figuresFile string
	figures     Counts
	// summaryOut, when set, receives the run's counts.
	summaryOut string
	// slowest is how many of the slowest packages and tests to list; 0:
	// none.
	slowest int
}

func main() {
	requireStores := flag.Bool("require-stores", false, "fail when a test skipped because PostgreSQL or Redis was not configured")
	allowSkips := flag.String("allow-skips", "", "file of regular expressions, one a line: fail on a skip whose reason matches none")
	minTests := flag.String("min-tests", "", "a number, or a file holding one: fail when fewer tests ran")
	jsonOut := flag.String("json", "", "write the complete go test -json stream to this file")
	figures := flag.String("figures", "", "file of committed make test counts (bench/results/commands.txt): fail when a count of this run is more than 2% from it")
	summaryOut := flag.String("summary", "", "write this run's counts to this file, in the format of -figures")
	slowest := flag.Int("slowest", 0, "list the run's wall-clock time and this many of its slowest packages and top-level tests")
	flag.Parse()
	r := rules{requireStores: *requireStores, jsonOut: *jsonOut, figuresFile: *figures, summaryOut: *summaryOut, slowest: *slowest}
	var err error
	if *figures != "" {
		if r.figures, err = readFigures(*figures); err != nil {
			fail(err)
		}
	}
	if *allowSkips != "" {
		if r.allowSkips, err = readPatterns(*allowSkips); err != nil {
			fail(err)
		}
	}
	if *minTests != "" {
		if r.minTests, err = readFloor(*minTests); err != nil {
			fail(err)
		}
	}
	in := io.Reader(os.Stdin)
	if *jsonOut != "" {
		if err := os.MkdirAll(filepath.Dir(*jsonOut), 0o755); err != nil {
			fail(err)
		}
		f, err := os.Create(*jsonOut)
		if err != nil {
			fail(err)
		}
		defer f.Close()
		in = io.TeeReader(os.Stdin, f)
	}
	s, err := report(in, os.Stdout)
	if err != nil {
		fail(err)
	}
	os.Exit(s.verdict(os.Stdout, r))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "testreport:", err)
	os.Exit(2)
}

// readPatterns reads one regular expression a line; blank lines and lines
// starting with # are comments.
func readPatterns(file string) ([]*regexp.Regexp, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	out := []*regexp.Regexp{}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		re, err := regexp.Compile(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", file, i+1, err)
		}
		out = append(out, re)
	}
	return out, nil
}

// readFloor reads the test floor: a number, or a file whose first line
// that is not a comment is one.
func readFloor(arg string) (int, error) {
	if n, err := strconv.Atoi(arg); err == nil {
		if n < 1 {
			return 0, fmt.Errorf("-min-tests %d: the floor must be at least 1", n)
		}
		return n, nil
	}
	b, err := os.ReadFile(arg)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		n, err := strconv.Atoi(line)
		if err != nil || n < 1 {
			return 0, fmt.Errorf("%s: %q is not a test floor (a number of at least 1)", arg, line)
		}
		return n, nil
	}
	return 0, fmt.Errorf("%s holds no test floor", arg)
}

// verdict prints the failures, the skips and the closing count, and
// returns the exit code.
func (s *summary) verdict(w io.Writer, r rules) int {
	code := 0
	if s.failed > 0 || len(s.brokenPackages) > 0 {
		code = 1
	}
	s.timings.printSlowest(w, r.slowest)
	s.printFailures(w)
	if s.skipVerdict(w, r) {
		code = 1
	}
	if ran := s.passed + s.failed; r.minTests > 0 && ran < r.minTests {
		fmt.Fprintf(w, "only %d tests ran; the floor is %d (an empty or mis-selected run, or lost tests; lower the floor only when tests were removed on purpose)\n", ran, r.minTests)
		code = 1
	}
	for _, p := range s.brokenPackages {
		fmt.Fprintf(w, "package %s failed outside any test (build or set-up failure)\n", p)
	}
	if r.figuresFile != "" && compareFigures(w, r.figuresFile, r.figures, s.counts()) {
		code = 1
	}
	if r.summaryOut != "" {
		if err := writeSummary(r.summaryOut, s.counts()); err != nil {
			fmt.Fprintf(w, "summary: %v\n", err)
			code = 1
		}
	}
	if r.jsonOut != "" {
		fmt.Fprintf(w, "full output: %s (go test -json events)\n", r.jsonOut)
	}
	fmt.Fprintf(w, "tests: %d passed, %d failed, %d skipped in %d packages\n", s.passed, s.failed, len(s.skips), s.packages)
	return code
}

// skipVerdict lists the skips by reason, marks those the rules do not
// allow, and reports whether any of them fails the run.
func (s *summary) skipVerdict(w io.Writer, r rules) bool {
	if len(s.skips) == 0 {
		return false
	}
	bad := false
	byReason := map[string][]string{}
	var reasons []string
	for _, sk := range s.skips {
		if byReason[sk.reason] == nil {
			reasons = append(reasons, sk.reason)
		}
		byReason[sk.reason] = append(byReason[sk.reason], sk.name)
	}
	sortStrings(reasons)
	fmt.Fprintf(w, "\nskipped tests, by reason:\n")
	stores := 0
	for _, reason := range reasons {
		names := byReason[reason]
		var why string
		switch {
		case r.requireStores && storeSkip.MatchString(reason):
			why, stores = "store tests must run", stores+len(names)
		case r.allowSkips != nil && !allowed(r.allowSkips, reason):
			why = "not an expected skip"
		}
		if why == "" {
			fmt.Fprintf(w, "  %d × %s\n", len(names), reason)
			continue
		}
		bad = true
		fmt.Fprintf(w, "  %d × %s  [FAIL: %s]\n", len(names), reason, why)
		for _, n := range names {
			fmt.Fprintf(w, "    %s\n", n)
		}
	}
	if stores > 0 {
		fmt.Fprintf(w, "%d store tests skipped: set MCPWRITE_TEST_POSTGRES_DSN and MCPWRITE_TEST_REDIS_ADDR\n", stores)
	}
	return bad
}

func allowed(res []*regexp.Regexp, reason string) bool {
	for _, re := range res {
		if re.MatchString(reason) {
			return true
		}
	}
	return false
}
