package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const sample = `goos: linux
BenchmarkGenerate/methods=1000-2   	       1	6000000000 ns/op	1500000000 baseline-ns/op	1400000000 ours-ns/op	1400000000 baseline-cpu-ns/op	1600000000 ours-cpu-ns/op
BenchmarkGenerate/methods=1000-2   	       1	6000000000 ns/op	1500000000 baseline-ns/op	1600000000 ours-ns/op	1400000000 baseline-cpu-ns/op	1600000000 ours-cpu-ns/op
BenchmarkGenerate/methods=1000-2   	       1	6000000000 ns/op	1500000000 baseline-ns/op	1450000000 ours-ns/op	1400000000 baseline-cpu-ns/op	1600000000 ours-cpu-ns/op
BenchmarkPerCall-2   	    3003	    338081 ns/op	      2500 encoding-json-ns/op	       500 json-v2-ns/op	      1000 ours-decode-ns/op	      1200 ours-prepare-ns/op	      2000 protojson-ns/op	  195636 B/op	    2834 allocs/op
BenchmarkPerCallAllocs/ours-decode-2          	  473976	      1000 ns/op	    1232 B/op	       8 allocs/op
    some_test.go:12: a log line that mentions BenchmarkPerCall/ours-decode 3 ns/op
BenchmarkInProcessCall/no-key-2  	    1509	    710796 ns/op	    100000 baseline-ns/op	    110000 ours-ns/op
BenchmarkInProcessCall/keyed-2   	    1509	    710796 ns/op	    100000 baseline-ns/op	    130000 ours-ns/op
BenchmarkTelemetry-2             	    1509	    710796 ns/op	    100000 baseline-ns/op	    105000 ours-ns/op
BenchmarkRequestCheck-2          	    1509	    710796 ns/op	    200000 baseline-ns/op	    208000 ours-ns/op
BenchmarkEndToEnd-2         	    2089	    544998 ns/op	      1500 ours-calls/s	1800 baseline-calls/s
BenchmarkDurableWrite/clients=1-2         	       6	  54173528 ns/op	      1000 floor-calls/s	         1.000 floor-commits/write	         5.000 floor-stmts/write	        800 ours-calls/s	         1.000 ours-commits/write	         0 ours-redis/write	         6.000 ours-stmts/write	5 ours-trips/write	5 floor-trips/write	900 ours-mcpgo-calls/s	950 mcp-floor-mcpgo-calls/s	6.000 ours-mcpgo-stmts/write	5 ours-mcpgo-trips/write	1.000 ours-mcpgo-commits/write	0 ours-mcpgo-redis/write
BenchmarkDurableWrite/clients=1-2         	       6	  54173528 ns/op	      1000 floor-calls/s	         1.000 floor-commits/write	         5.000 floor-stmts/write	        700 ours-calls/s	         1.000 ours-commits/write	         0 ours-redis/write	         6.000 ours-stmts/write	5 ours-trips/write	5 floor-trips/write	880 ours-mcpgo-calls/s	1000 mcp-floor-mcpgo-calls/s	6.000 ours-mcpgo-stmts/write	5 ours-mcpgo-trips/write	1.000 ours-mcpgo-commits/write	0 ours-mcpgo-redis/write
BenchmarkSDKOverhead-2   	      30	  66653671 ns/op	    480000 go-sdk-large-B/call	      1100 go-sdk-large-cpu-us/call	      1400 go-sdk-large-us/call	    470000 go-sdk-small-B/call	      1000 go-sdk-small-cpu-us/call	      1100 go-sdk-small-us/call	      1532 large-schema-bytes	     48000 mcpgo-large-B/call	       550 mcpgo-large-cpu-us/call	       613.1 mcpgo-large-us/call	     40000 mcpgo-small-B/call	       500 mcpgo-small-cpu-us/call	       588.7 mcpgo-small-us/call
BenchmarkTenantGrowth-2                   	       1	3906408839 ns/op	      3 100k-p50-ms	      9 100k-p95-ms	        2 1k-p50-ms	        4 1k-p95-ms	         100 writes/size
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
	notRun := func(label, goal string) []string { return []string{label, "not run", "not run", "-", "-", goal, "n/a"} }
	want := [][]string{
		{"benchmark", "ours", "baseline", "ratio", "runs: min..max", "goal", "met"},
		notRun("generate 10 methods, CPU (vs protoc-gen-go)", "<= 0.85x"),
		notRun("generate 100 methods, CPU (vs protoc-gen-go)", "<= 0.85x"),
		{"generate 1000 methods, CPU (vs protoc-gen-go)", "1.6 s", "1.4 s", "1.14x", "3: 1.14..1.14", "<= 0.85x", "no"},
		notRun("generate 5000 methods, CPU (vs protoc-gen-go)", "<= 0.85x"),
		notRun("generate 10 methods, wall (vs protoc-gen-go)", "<= 1.00x"),
		notRun("generate 100 methods, wall (vs protoc-gen-go)", "<= 1.00x"),
		{"generate 1000 methods, wall (vs protoc-gen-go)", "1.45 s", "1.5 s", "0.97x", "3: 0.93..1.07", "<= 1.00x", "yes"},
		notRun("generate 5000 methods, wall (vs protoc-gen-go)", "<= 1.00x"),
		{"per call decode+validate (vs protojson)", "1 µs", "2 µs", "0.50x", "1: 0.50..0.50", "<= 0.40x", "no"},
		{"per call decode+validate (vs json v2, same checks)", "1 µs", "500 ns", "2.00x", "1: 2.00..2.00", "<= 1.00x", "no"},
		{"per call decode+validate (vs encoding/json, same checks)", "1 µs", "2.5 µs", "0.40x", "1: 0.40..0.40", "<= 1.00x", "yes"},
		{"per call decode+validate+enrich (vs protojson)", "1.2 µs", "2 µs", "0.60x", "1: 0.60..0.60", "<= 0.70x", "yes"},
		{"in-process write call (vs trivial go-sdk tool, same args)", "110 µs", "100 µs", "1.10x", "1: 1.10..1.10", "<= 1.20x", "yes"},
		{"in-process write call with client_request_id (vs trivial go-sdk tool)", "130 µs", "100 µs", "1.30x", "1: 1.30..1.30", "<= 1.20x", "no"},
		{"in-process write call with OpenTelemetry (vs without)", "105 µs", "100 µs", "1.05x", "1: 1.05..1.05", "<= 1.15x", "yes"},
		{"in-process read call with the buf.validate request check (vs without)", "208 µs", "200 µs", "1.04x", "1: 1.04..1.04", "<= 1.10x", "yes"},
		{"e2e streamable HTTP calls/s (vs go-sdk AddTool)", "1500/s", "1800/s", "0.83x", "1: 0.83..0.83", ">= 0.90x", "no"},
		{"durable keyed write on mcp-go calls/s, 1 client (vs the floor behind a trivial mcp-go tool)", "890/s", "975/s", "0.91x", "2: 0.88..0.95", ">= 0.90x", "yes"},
		notRun("durable keyed write on mcp-go calls/s, 8 clients (vs the floor behind a trivial mcp-go tool)", ">= 0.90x"),
		notRun("durable keyed write on mcp-go calls/s, 32 clients (vs the floor behind a trivial mcp-go tool)", ">= 0.90x"),
		{"durable keyed write on mcp-go calls/s, 1 client (vs PostgreSQL floor)", "890/s", "1000/s", "0.89x", "2: 0.88..0.90", "report", "-"},
		notRun("durable keyed write on mcp-go calls/s, 8 clients (vs PostgreSQL floor)", ">= 0.45x"),
		notRun("durable keyed write on mcp-go calls/s, 32 clients (vs PostgreSQL floor)", ">= 0.45x"),
		notRun("durable keyed write on go-sdk calls/s, 1 client (vs the floor behind a trivial go-sdk tool)", "report"),
		notRun("durable keyed write on go-sdk calls/s, 8 clients (vs the floor behind a trivial go-sdk tool)", "report"),
		notRun("durable keyed write on go-sdk calls/s, 32 clients (vs the floor behind a trivial go-sdk tool)", "report"),
		notRun("durable keyed write on go-sdk calls/s, 8 clients (vs PostgreSQL floor)", "report"),
		notRun("the floor behind a trivial mcp-go tool, calls/s, 8 clients (vs the same behind go-sdk)", "report"),
		notRun("the floor behind a trivial mcp-go tool, calls/s, 8 clients (vs PostgreSQL floor)", "report"),
		notRun("Go CPU per durable keyed write on mcp-go, 8 clients (vs the floor behind a trivial mcp-go tool)", "report"),
		notRun("Go CPU per durable keyed write on go-sdk, 8 clients (vs the floor behind a trivial go-sdk tool)", "report"),
		notRun("PostgreSQL backend CPU per durable keyed write, 8 clients (vs PostgreSQL floor)", "report"),
		{"SDK: go-sdk trivial call with createElement's input schema (vs a four-string schema), CPU", "1.1 ms", "1 ms", "1.10x", "1: 1.10..1.10", "report", "-"},
		{"SDK: mcp-go trivial call with createElement's input schema (vs a four-string schema), CPU", "550 µs", "500 µs", "1.10x", "1: 1.10..1.10", "report", "-"},
		{"SDK: mcp-go trivial call (vs go-sdk), CPU", "550 µs", "1.1 ms", "0.50x", "1: 0.50..0.50", "report", "-"},
		{"SDK: mcp-go trivial call (vs go-sdk), bytes allocated", "48000 B", "480000 B", "0.10x", "1: 0.10..0.10", "report", "-"},
		{"p50 write, tenant of 100,000 elements (vs tenant of 1,000)", "3 ms", "2 ms", "1.50x", "1: 1.50..1.50", "<= 1.50x", "yes"},
		{"p95 write, tenant of 100,000 elements (vs tenant of 1,000)", "9 ms", "4 ms", "2.25x", "1: 2.25..2.25", "report", "-"},
		notRun("calls/s, 3 stateless instances (vs 1; same 2 cores, same connections)", ">= 0.90x"),
		{"statements / round trips / commits per keyed write, ours (Redis commands)", "6 / 5 / 1 (0)", "-", "-", "-", "report", "-"},
		{"statements / round trips / commits per keyed write, ours on mcp-go (Redis commands)", "6 / 5 / 1 (0)", "-", "-", "-", "report", "-"},
		{"statements / round trips / commits per keyed write, PostgreSQL floor", "5 / 5 / 1", "-", "-", "-", "report", "-"},
		{"size/tool archimate (tools/list, all tools, 11)", "1855 B ~464 tok; write tools 2877 B ~719 tok", "-", "-", "-", "write <= 2300 B", "no"},
		{"size/tool tasks (write tools, schema doc, 4)", "3140 B ~785 tok", "-", "-", "-", "report", "-"},
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
		if diff := cmp.Diff([]string{"not run", "not run", "-", "-", "n/a"}, []string{row[1], row[2], row[3], row[4], row[6]}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", row[0], diff)
		}
	}
}

// The ratio is the median of each run's own ratio, not the ratio of the
// medians: here the medians are equal (1.00x) while the runs say 0.50x.
func TestRatioIsTheMedianOfPerRunRatios(t *testing.T) {
	in := `BenchmarkGenerate/methods=10-2 1 1 ns/op 2 baseline-ns/op 1 ours-ns/op 2 baseline-cpu-ns/op 1 ours-cpu-ns/op
BenchmarkGenerate/methods=10-2 1 1 ns/op 2 baseline-ns/op 3 ours-ns/op 2 baseline-cpu-ns/op 3 ours-cpu-ns/op
BenchmarkGenerate/methods=10-2 1 1 ns/op 10 baseline-ns/op 2 ours-ns/op 10 baseline-cpu-ns/op 2 ours-cpu-ns/op
`
	res, err := parse(strings.NewReader(in), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"generate 10 methods, CPU (vs protoc-gen-go)", "2 ns", "2 ns", "0.50x", "3: 0.20..1.50", "<= 0.85x", "yes"}
	if diff := cmp.Diff(want, table(res)[1]); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
}

// A run that reported one side without the other cannot be paired: the
// row says so instead of pairing values of different runs.
func TestUnpairedRunsAreNotJudged(t *testing.T) {
	in := `BenchmarkEndToEnd-2 1 1 ns/op 100 ours-calls/s 100 baseline-calls/s
BenchmarkEndToEnd-2 1 1 ns/op 100 ours-calls/s
`
	res, err := parse(strings.NewReader(in), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	row := table(res)[17]
	want := []string{"e2e streamable HTTP calls/s (vs go-sdk AddTool)", "100/s", "100/s", "unpaired",
		"e2e streamable HTTP calls/s (vs go-sdk AddTool): 2 runs of ours-calls/s and 1 of baseline-calls/s cannot be paired", ">= 0.90x", "n/a"}
	if diff := cmp.Diff(want, row); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
}

// A log message printed while a benchmark runs splits its result line: the
// name, the message, then the values on a line of their own. The values
// still count for that benchmark; a log line alone counts for nothing.
func TestParseJoinsAResultSplitByALogLine(t *testing.T) {
	in := "BenchmarkEndToEnd-2   \t2026/11/27 05:44:13 WARN mcpwrite: something 3 ns/op\n" +
		"2026/11/27 05:44:13 INFO again\n" +
		"     292\t   3501521 ns/op\t      100 ours-calls/s\t      50 baseline-calls/s\n" +
		"     7\t   1 ns/op\t      9 ours-calls/s\n" +
		"BenchmarkEndToEnd-2   \t     300\t   3000000 ns/op\t      120 ours-calls/s\t      60 baseline-calls/s\n"
	res, err := parse(strings.NewReader(in), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	want := results{"BenchmarkEndToEnd": {"ns/op": {3501521, 3000000}, "ours-calls/s": {100, 120}, "baseline-calls/s": {50, 60}}}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
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
	readme, err := os.ReadFile("../../../docs/benchmarks.md")
	if err != nil {
		t.Fatal(err)
	}
	got, ok := readmeSection(string(readme))
	if !ok {
		t.Fatalf("docs/benchmarks.md has no %q section", beginMarker)
	}
	var overlays []overlay
	for _, path := range []string{"bench/results/sdk.txt", "bench/results/generate.txt"} {
		text, err := os.ReadFile("../../../" + path)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		overlays = append(overlays, overlay{path, string(text)})
	}
	want, err := section(string(raw), overlays...)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("the proof table of docs/benchmarks.md differs from bench/results/raw.txt (and sdk.txt, generate.txt); run make bench (or go run ./bench/cmd/benchtable -q -readme docs/benchmarks.md -overlay bench/results/sdk.txt -overlay bench/results/generate.txt < bench/results/raw.txt)\n--- docs/benchmarks.md\n%s\n--- raw run\n%s", got, want)
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

// A later run of some benchmarks replaces every result of those benchmarks
// (sub-benchmarks included), never pairs its values with the earlier run's,
// and the section says which benchmarks came from which run.
func TestOverlayReplacesWholeBenchmarks(t *testing.T) {
	raw := "# date: 2026-11-01\n" +
		"BenchmarkEndToEnd-2 1 1 ns/op 100 ours-calls/s 100 baseline-calls/s\n" +
		"BenchmarkDurableWrite/clients=1-2 1 1 ns/op 500 ours-mcpgo-calls/s 1000 mcp-floor-mcpgo-calls/s\n" +
		"BenchmarkDurableWrite/clients=8-2 1 1 ns/op 500 ours-mcpgo-calls/s 1000 mcp-floor-mcpgo-calls/s\n"
	later := "# date: 2026-11-28\n# load: load average 0.10 0.20 0.30 at the start\n" +
		"BenchmarkDurableWrite/clients=1-2 1 1 ns/op 950 ours-mcpgo-calls/s 1000 mcp-floor-mcpgo-calls/s\n"
	generate := "# date: 2026-11-29\n" +
		"BenchmarkGenerate/methods=10-2 1 1 ns/op 2 baseline-ns/op 1 ours-ns/op 2 baseline-cpu-ns/op 1 ours-cpu-ns/op\n"
	sec, err := section(raw, overlay{"bench/results/sdk.txt", later}, overlay{"bench/results/generate.txt", generate}, overlay{"bench/results/none.txt", ""})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(sec, "\n")
	want := []string{"Run: 2026-11-01.", "BenchmarkDurableWrite from a later run (bench/results/sdk.txt, make bench-sdk): 2026-11-28, load average 0.10 0.20 0.30 at the start.",
		"BenchmarkGenerate from a later run (bench/results/generate.txt, make bench-generate): 2026-11-29.", ""}
	if diff := cmp.Diff(want, lines[:4]); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	res, err := merged(raw, overlay{"bench/results/sdk.txt", later}, overlay{"bench/results/generate.txt", generate})
	if err != nil {
		t.Fatal(err)
	}
	rows := table(res)
	byLabel := map[string][]string{}
	for _, r := range rows {
		byLabel[r[0]] = r
	}
	if got := byLabel["durable keyed write on mcp-go calls/s, 1 client (vs the floor behind a trivial mcp-go tool)"]; got[3] != "0.95x" || got[6] != "yes" {
		t.Errorf("clients=1 from the overlay: %v", got)
	}
	if got := byLabel["durable keyed write on mcp-go calls/s, 8 clients (vs the floor behind a trivial mcp-go tool)"]; got[1] != "not run" {
		t.Errorf("clients=8 was only in the earlier run of an overlaid benchmark, so it is gone: %v", got)
	}
	if got := byLabel["generate 10 methods, CPU (vs protoc-gen-go)"]; got[3] != "0.50x" {
		t.Errorf("methods=10 from the second overlay: %v", got)
	}
	if got := byLabel["e2e streamable HTTP calls/s (vs go-sdk AddTool)"]; got[3] != "1.00x" {
		t.Errorf("a benchmark the overlay did not run keeps the earlier run: %v", got)
	}
}
