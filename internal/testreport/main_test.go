package main

import (
	"bytes"
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
{"Action":"pass","Package":"p/a"}
`

func TestReportCountsAndReasons(t *testing.T) {
	var out bytes.Buffer
	s, err := report(strings.NewReader(run), &out)
	if err != nil {
		t.Fatal(err)
	}
	code := s.verdict(&out, false)
	want := "=== RUN   TestOK\n" +
		"    pg_test.go:12: set MCPWRITE_TEST_POSTGRES_DSN to run the PostgreSQL store tests\n" +
		"--- SKIP: TestPG (0.00s)\n" +
		"    bin_test.go:3: builds the server binary\n" +
		"ok  \tp/a\t0.1s\n" +
		"\nskipped tests, by reason:\n" +
		"  1 × builds the server binary\n" +
		"  1 × set MCPWRITE_TEST_POSTGRES_DSN to run the PostgreSQL store tests\n" +
		"tests: 1 passed, 0 failed, 2 skipped\n"
	if out.String() != want {
		t.Fatalf("output:\n%q\nwant:\n%q", out.String(), want)
	}
	if code != 0 {
		t.Fatalf("exit code %d, want 0", code)
	}
}

func TestRequireStoresFailsOnStoreSkip(t *testing.T) {
	var out bytes.Buffer
	s, err := report(strings.NewReader(run), &out)
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := s.verdict(&out, true); code != 1 {
		t.Fatalf("exit code %d, want 1", code)
	}
	want := "\nskipped tests, by reason:\n" +
		"  1 × builds the server binary\n" +
		"  1 × set MCPWRITE_TEST_POSTGRES_DSN to run the PostgreSQL store tests\n" +
		"    p/a.TestPG\n" +
		"1 store tests skipped: set MCPWRITE_TEST_POSTGRES_DSN and MCPWRITE_TEST_REDIS_ADDR\n" +
		"tests: 1 passed, 0 failed, 2 skipped\n"
	if out.String() != want {
		t.Fatalf("output:\n%q\nwant:\n%q", out.String(), want)
	}
}

func TestBrokenPackageFails(t *testing.T) {
	in := `{"Action":"build-output","ImportPath":"p/b","Output":"b.go:1: syntax error\n"}
{"Action":"start","Package":"p/b"}
{"Action":"output","Package":"p/b","Output":"FAIL\tp/b [build failed]\n"}
{"Action":"fail","Package":"p/b"}
`
	var out bytes.Buffer
	s, err := report(strings.NewReader(in), &out)
	if err != nil {
		t.Fatal(err)
	}
	if code := s.verdict(&out, false); code != 1 {
		t.Fatalf("exit code %d, want 1", code)
	}
	want := "b.go:1: syntax error\nFAIL\tp/b [build failed]\n" +
		"package p/b failed outside any test (build or set-up failure)\n" +
		"tests: 0 passed, 0 failed, 0 skipped\n"
	if out.String() != want {
		t.Fatalf("output:\n%q\nwant:\n%q", out.String(), want)
	}
}

func TestFailingTestFailsWithoutBrokenPackage(t *testing.T) {
	in := `{"Action":"run","Package":"p/c","Test":"TestX"}
{"Action":"output","Package":"p/c","Test":"TestX","Output":"    x_test.go:9: got 1, want 2\n"}
{"Action":"fail","Package":"p/c","Test":"TestX"}
{"Action":"fail","Package":"p/c"}
`
	var out bytes.Buffer
	s, err := report(strings.NewReader(in), &out)
	if err != nil {
		t.Fatal(err)
	}
	if code := s.verdict(&out, false); code != 1 {
		t.Fatalf("exit code %d, want 1", code)
	}
	if got, want := out.String(), "    x_test.go:9: got 1, want 2\ntests: 0 passed, 1 failed, 0 skipped\n"; got != want {
		t.Fatalf("output %q, want %q", got, want)
	}
}
