package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const sample = `goos: linux
BenchmarkGenerate-2   	       1	6000000000 ns/op	1500000000 baseline-ns/op	1400000000 ours-ns/op	1400000000 baseline-cpu-ns/op	1600000000 ours-cpu-ns/op
BenchmarkGenerate-2   	       1	6000000000 ns/op	1500000000 baseline-ns/op	1600000000 ours-ns/op	1400000000 baseline-cpu-ns/op	1600000000 ours-cpu-ns/op
BenchmarkGenerate-2   	       1	6000000000 ns/op	1500000000 baseline-ns/op	1450000000 ours-ns/op	1400000000 baseline-cpu-ns/op	1600000000 ours-cpu-ns/op
BenchmarkPerCall-2   	    3003	    338081 ns/op	      2500 encoding-json-ns/op	       500 json-v2-ns/op	      1000 ours-decode-ns/op	      1200 ours-prepare-ns/op	      2000 protojson-ns/op	  195636 B/op	    2834 allocs/op
BenchmarkPerCallAllocs/ours-decode-2          	  473976	      1000 ns/op	    1232 B/op	       8 allocs/op
    some_test.go:12: a log line that mentions BenchmarkPerCall/ours-decode 3 ns/op
BenchmarkInProcessCall/no-key-2  	    1509	    710796 ns/op	    100000 baseline-ns/op	    110000 ours-ns/op
BenchmarkInProcessCall/keyed-2   	    1509	    710796 ns/op	    100000 baseline-ns/op	    130000 ours-ns/op
BenchmarkTelemetry-2             	    1509	    710796 ns/op	    100000 baseline-ns/op	    105000 ours-ns/op
BenchmarkRequestCheck-2          	    1509	    710796 ns/op	    200000 baseline-ns/op	    208000 ours-ns/op
BenchmarkEndToEnd-2         	    2089	    544998 ns/op	      1500 ours-calls/s	1800 baseline-calls/s
BenchmarkToolsList/archimate/live-2         	     610	   1887237 ns/op	      1855 bytes/tool	       463.7 tokens/tool	        11.00 tools	      2877 write-bytes/tool
BenchmarkToolsList/tasks/doc-2              	    3356	    368545 ns/op	      3140 bytes/tool	       785.0 tokens/tool	         4.000 tools
PASS
`

func TestTableRatiosGoalsAndMedians(t *testing.T) {
	var echo bytes.Buffer
	res, err := parse(strings.NewReader(sample), &echo)
	if err != nil {
		t.Fatal(err)
	}
	if echo.String() != sample {
		t.Errorf("echo differs from input:\n%s", echo.String())
	}
	want := [][]string{
		{"benchmark", "ours", "baseline", "ratio", "goal", "met"},
		{"generate 50 files/2000 methods, wall (vs protoc-gen-go)", "1.45 s", "1.5 s", "0.97x", "<= 1.00x", "yes"},
		{"generate 50 files/2000 methods, CPU (vs protoc-gen-go)", "1.6 s", "1.4 s", "1.14x", "<= 1.00x", "no"},
		{"per call decode+validate (vs protojson)", "1 µs", "2 µs", "0.50x", "<= 0.40x", "no"},
		{"per call decode+validate (vs json v2, same checks)", "1 µs", "500 ns", "2.00x", "<= 1.00x", "no"},
		{"per call decode+validate (vs encoding/json, same checks)", "1 µs", "2.5 µs", "0.40x", "<= 1.00x", "yes"},
		{"per call decode+validate+enrich (vs protojson)", "1.2 µs", "2 µs", "0.60x", "<= 0.70x", "yes"},
		{"in-process write call (vs trivial go-sdk tool, same args)", "110 µs", "100 µs", "1.10x", "<= 1.20x", "yes"},
		{"in-process write call with client_request_id (vs trivial go-sdk tool)", "130 µs", "100 µs", "1.30x", "<= 1.20x", "no"},
		{"in-process write call with OpenTelemetry (vs without)", "105 µs", "100 µs", "1.05x", "<= 1.15x", "yes"},
		{"in-process read call with the buf.validate request check (vs without)", "208 µs", "200 µs", "1.04x", "<= 1.10x", "yes"},
		{"e2e streamable HTTP calls/s (vs go-sdk AddTool)", "1500/s", "1800/s", "0.83x", ">= 0.90x", "no"},
		{"size/tool archimate (tools/list, all tools, 11)", "1855 B ~464 tok; write tools 2877 B ~719 tok", "-", "-", "write <= 2300 B", "no"},
		{"size/tool tasks (write tools, schema doc, 4)", "3140 B ~785 tok", "-", "-", "report", "-"},
	}
	if diff := cmp.Diff(want, table(res)); diff != "" {
		t.Fatalf("table (-want +got):\n%s", diff)
	}
}

func TestTableMarksGoalsWithoutResultsAsNotRun(t *testing.T) {
	res, err := parse(strings.NewReader("--- SKIP: BenchmarkGenerate\n    generate_test.go:70: baseline is absent\n"), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	rows := table(res)
	if len(rows) != 1+len(goals) {
		t.Fatalf("got %d rows, want header + %d goals", len(rows), len(goals))
	}
	for _, row := range rows[1:] {
		if diff := cmp.Diff([]string{"not run", "not run", "-", "n/a"}, []string{row[1], row[2], row[3], row[5]}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", row[0], diff)
		}
	}
}

func TestParseRejectsMalformedValues(t *testing.T) {
	_, err := parse(strings.NewReader("BenchmarkX-2 10 abc ns/op\n"), &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), `BenchmarkX: value "abc" of ns/op`) {
		t.Fatalf("got %v, want a malformed-value error", err)
	}
}

func TestRenderAlignsColumns(t *testing.T) {
	got := render([][]string{{"a", "bb"}, {"ccc", "µ"}})
	want := "| a   | bb |\n| --- | -- |\n| ccc | µ  |\n"
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

// The README's proof table is the table of the committed raw run: a figure
// typed by hand, or a run committed without regenerating the README, fails.
func TestReadmeProofTableIsTheCommittedRun(t *testing.T) {
	raw, err := os.ReadFile("../../results/raw.txt")
	if err != nil {
		t.Fatalf("the committed run: %v (make bench writes it)", err)
	}
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	got, ok := readmeSection(string(readme))
	if !ok {
		t.Fatalf("README.md has no %q section", beginMarker)
	}
	want, err := section(string(raw))
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("README proof table differs from bench/results/raw.txt; run make bench (or go run ./bench/cmd/benchtable -q -readme README.md < bench/results/raw.txt)\n--- README\n%s\n--- raw run\n%s", got, want)
	}
}

func TestReplaceSectionKeepsTheRestOfTheDocument(t *testing.T) {
	doc := "intro\n" + beginMarker + "\nold table\n" + endMarker + "\noutro\n"
	got, err := replaceSection(doc, "new table\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "intro\n" + beginMarker + "\nnew table\n" + endMarker + "\noutro\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if _, err := replaceSection("no markers", "x"); err == nil {
		t.Fatal("a document without markers was accepted")
	}
}
