package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const run = `{"Action":"start","Package":"p/a"}
{"Action":"run","Package":"p/a","Test":"TestOK"}
{"Action":"output","Package":"p/a","Test":"TestOK","Output":"=== RUN   TestOK\n"}
{"Action":"pass","Package":"p/a","Test":"TestOK"}
{"Action":"run","Package":"p/a","Test":"TestPG"}
{"Action":"output","Package":"p/a","Test":"TestPG","Output":"    pg_test.go:12: set MCPWRITE_TEST_POSTGRES_DSN to run the PostgreSQL store tests\n"}
{"Action":"output","Package":"p/a","Test":"TestPG","Output":"--- SKIP: TestPG (0.00s)\n"}
{"Action":"skip","Package":"p/a","Test":"TestPG"}
{"Action":"run","Package":"p/a","Test":"TestBin"}
{"Action":"output","Package":"p/a","Test":"TestBin","Output":"    bin_test.go:3: builds the server binary\n"}
{"Action":"skip","Package":"p/a","Test":"TestBin"}
{"Action":"output","Package":"p/a","Output":"ok  \tp/a\t0.1s\n"}
{"Action":"pass","Package":"p/a","Elapsed":0.14}
{"Action":"output","Package":"p/none","Output":"?   \tp/none\t[no test files]\n"}
{"Action":"skip","Package":"p/none","Elapsed":0}
`

// lines is the per-package part of the report of run.
const lines = "ok   p/a                                                             0.1s  1 passed, 2 skipped\n" +
	"-    p/none                                                          0.0s  no tests\n"

func verdictOf(t *testing.T, in string, r rules) (string, int) {
	t.Helper()
	var out bytes.Buffer
	s, err := report(strings.NewReader(in), &out)
	if err != nil {
		t.Fatal(err)
	}
	code := s.verdict(&out, r)
	return out.String(), code
}

func TestOneLinePerPackageThenSummary(t *testing.T) {
	got, code := verdictOf(t, run, rules{})
	want := lines +
		"\nskipped tests, by reason:\n" +
		"  1 × builds the server binary\n" +
		"  1 × set MCPWRITE_TEST_POSTGRES_DSN to run the PostgreSQL store tests\n" +
		"tests: 1 passed, 0 failed, 2 skipped in 2 packages\n"
	if got != want {
		t.Fatalf("output:\n%q\nwant:\n%q", got, want)
	}
	if code != 0 {
		t.Fatalf("exit code %d, want 0", code)
	}
}

func TestRequireStoresFailsOnStoreSkip(t *testing.T) {
	got, code := verdictOf(t, run, rules{requireStores: true})
	want := lines +
		"\nskipped tests, by reason:\n" +
		"  1 × builds the server binary\n" +
		"  1 × set MCPWRITE_TEST_POSTGRES_DSN to run the PostgreSQL store tests  [FAIL: store tests must run]\n" +
		"    p/a.TestPG\n" +
		"1 store tests skipped: set MCPWRITE_TEST_POSTGRES_DSN and MCPWRITE_TEST_REDIS_ADDR\n" +
		"tests: 1 passed, 0 failed, 2 skipped in 2 packages\n"
	if got != want {
		t.Fatalf("output:\n%q\nwant:\n%q", got, want)
	}
	if code != 1 {
		t.Fatalf("exit code %d, want 1", code)
	}
}

func TestUnexpectedSkipFails(t *testing.T) {
	allow := []*regexp.Regexp{regexp.MustCompile(`^set MCPWRITE_TEST_`)}
	got, code := verdictOf(t, run, rules{allowSkips: allow})
	want := lines +
		"\nskipped tests, by reason:\n" +
		"  1 × builds the server binary  [FAIL: not an expected skip]\n" +
		"    p/a.TestBin\n" +
		"  1 × set MCPWRITE_TEST_POSTGRES_DSN to run the PostgreSQL store tests\n" +
		"tests: 1 passed, 0 failed, 2 skipped in 2 packages\n"
	if got != want {
		t.Fatalf("output:\n%q\nwant:\n%q", got, want)
	}
	if code != 1 {
		t.Fatalf("exit code %d, want 1", code)
	}
	// Every skip expected: the run passes.
	allow = append(allow, regexp.MustCompile(`^builds the server binary$`))
	if _, code := verdictOf(t, run, rules{allowSkips: allow}); code != 0 {
		t.Fatalf("every skip expected: exit code %d, want 0", code)
	}
	// An empty allow list (the file holds only comments) allows no skip.
	if _, code := verdictOf(t, run, rules{allowSkips: []*regexp.Regexp{}}); code != 1 {
		t.Fatalf("no skip expected: exit code %d, want 1", code)
	}
}

func TestRunBelowFloorFails(t *testing.T) {
	got, code := verdictOf(t, run, rules{minTests: 2})
	if code != 1 || !strings.Contains(got, "only 1 tests ran; the floor is 2 ") {
		t.Fatalf("one test under a floor of 2: exit %d, output:\n%s", code, got)
	}
	if _, code := verdictOf(t, run, rules{minTests: 1}); code != 0 {
		t.Fatalf("one test at a floor of 1: exit code %d, want 0", code)
	}
	// An empty run (a mis-selected package pattern) fails.
	got, code = verdictOf(t, "", rules{minTests: 1})
	want := "only 0 tests ran; the floor is 1 (an empty or mis-selected run, or lost tests; lower the floor only when tests were removed on purpose)\n" +
		"tests: 0 passed, 0 failed, 0 skipped in 0 packages\n"
	if got != want || code != 1 {
		t.Fatalf("empty run: exit %d, output:\n%q\nwant:\n%q", code, got, want)
	}
}

func TestBrokenPackagePrintsItsBuildOutput(t *testing.T) {
	in := `{"Action":"build-output","ImportPath":"p/b [p/b.test]","Output":"b.go:1: syntax error\n"}
{"Action":"start","Package":"p/b"}
{"Action":"output","Package":"p/b","Output":"FAIL\tp/b [build failed]\n"}
{"Action":"fail","Package":"p/b","Elapsed":0}
`
	got, code := verdictOf(t, in, rules{})
	want := "FAIL p/b                                                             0.0s  build or set-up failure\n" +
		"\n--- FAIL: package p/b\nb.go:1: syntax error\nFAIL\tp/b [build failed]\n" +
		"package p/b failed outside any test (build or set-up failure)\n" +
		"tests: 0 passed, 0 failed, 0 skipped in 1 packages\n"
	if got != want || code != 1 {
		t.Fatalf("exit %d, output:\n%q\nwant:\n%q", code, got, want)
	}
}

func TestFailingTestPrintsItsOutputAfterThePackages(t *testing.T) {
	in := `{"Action":"run","Package":"p/c","Test":"TestX"}
{"Action":"output","Package":"p/c","Test":"TestX","Output":"=== RUN   TestX\n"}
{"Action":"output","Package":"p/c","Test":"TestX","Output":"    x_test.go:9: got 1, want 2\n"}
{"Action":"fail","Package":"p/c","Test":"TestX"}
{"Action":"run","Package":"p/c","Test":"TestY"}
{"Action":"output","Package":"p/c","Test":"TestY","Output":"=== RUN   TestY\n"}
{"Action":"pass","Package":"p/c","Test":"TestY"}
{"Action":"fail","Package":"p/c","Elapsed":2.25}
`
	got, code := verdictOf(t, in, rules{})
	want := "FAIL p/c                                                             2.2s  1 passed, 1 failed\n" +
		"\n--- FAIL: p/c.TestX\n=== RUN   TestX\n    x_test.go:9: got 1, want 2\n" +
		"tests: 1 passed, 1 failed, 0 skipped in 1 packages\n"
	if got != want || code != 1 {
		t.Fatalf("exit %d, output:\n%q\nwant:\n%q", code, got, want)
	}
}

func TestFloorAndSkipFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if n, err := readFloor(write("floor", "# tests a full run must run\n1200\n")); err != nil || n != 1200 {
		t.Fatalf("floor file: %d, %v", n, err)
	}
	if n, err := readFloor("40"); err != nil || n != 40 {
		t.Fatalf("floor number: %d, %v", n, err)
	}
	for arg, want := range map[string]string{
		"0":                        "-min-tests 0: the floor must be at least 1",
		write("bad", "many\n"):     `: "many" is not a test floor (a number of at least 1)`,
		write("empty", "# none\n"): " holds no test floor",
		filepath.Join(dir, "none"): "no such file or directory",
	} {
		if _, err := readFloor(arg); err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("readFloor(%s): error %v, want one ending %q", arg, err, want)
		}
	}
	res, err := readPatterns(write("skips", "# reasons\n\n^builds the server binary$\n"))
	if err != nil || len(res) != 1 || res[0].String() != "^builds the server binary$" {
		t.Fatalf("patterns: %v, %v", res, err)
	}
	if _, err := readPatterns(write("badre", "ok\n(unclosed\n")); err == nil || !strings.Contains(err.Error(), "badre:2: ") {
		t.Fatalf("bad pattern: error %v, want one naming line 2", err)
	}
}

// TestCommittedCIRules: the floor and the expected skips CI passes are
// valid files.
func TestCommittedCIRules(t *testing.T) {
	n, err := readFloor("../../.ci/min-tests")
	if err != nil || n < 2000 {
		t.Fatalf(".ci/min-tests: %d, %v; want a floor of at least 2000 (a full run ran 2047 tests)", n, err)
	}
	if _, err := readPatterns("../../.ci/expected-skips"); err != nil {
		t.Fatalf(".ci/expected-skips: %v", err)
	}
}

func TestFullOutputNamedBeforeTheCount(t *testing.T) {
	got, _ := verdictOf(t, "", rules{jsonOut: ".test-output/test.json"})
	want := "full output: .test-output/test.json (go test -json events)\n" +
		"tests: 0 passed, 0 failed, 0 skipped in 0 packages\n"
	if got != want {
		t.Fatalf("output:\n%q\nwant:\n%q", got, want)
	}
}
