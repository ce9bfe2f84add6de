// Command benchtable reads `go test -bench` output for the bench package on
// stdin, echoes it, and prints the goal table: each benchmark against its
// baseline from the same run, the ratio, the goal and whether it is met.
// Repeated runs (-count) are paired: each run's ours/baseline comes from one
// result line, and the table gives the median of those per-run ratios with
// their range (the ours and baseline columns are each side's median, for
// scale).
//
//	go test -run '^$' -bench . -benchmem ./bench | go run ./bench/cmd/benchtable
package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// results maps benchmark name (without the -GOMAXPROCS suffix) and unit to
// every value reported.
type results map[string]map[string][]float64

var procSuffix = regexp.MustCompile(`-\d+$`)

// parse reads benchmark result lines, copying all input to echo. A result
// whose line a log message split (the name, the log text, then the values
// on a later line of their own) is joined back to its name.
func parse(r io.Reader, echo io.Writer) (results, error) {
	res := results{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1024*1024), 1024*1024)
	pending := "" // a benchmark name whose values have not come yet
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(echo, line)
		f := strings.Fields(line)
		var name string
		var values []string
		switch {
		case len(f) > 0 && strings.HasPrefix(f[0], "Benchmark"):
			if len(f) < 4 || !isInt(f[1]) {
				pending = f[0] // its values follow a log message
				continue
			}
			name, values, pending = f[0], f[2:], ""
		case pending != "" && len(f) >= 3 && isInt(f[0]) && f[2] == "ns/op":
			name, values, pending = pending, f[1:], ""
		default:
			continue // a log line, not a result
		}
		name = procSuffix.ReplaceAllString(name, "")
		if res[name] == nil {
			res[name] = map[string][]float64{}
		}
		for i := 0; i+1 < len(values); i += 2 {
			v, err := strconv.ParseFloat(values[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: value %q of %s: %v", name, values[i], values[i+1], err)
			}
			res[name][values[i+1]] = append(res[name][values[i+1]], v)
		}
	}
	return res, sc.Err()
}

func isInt(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

// get returns the median of a metric, or false when it was not reported.
func (r results) get(bench, unit string) (float64, bool) {
	return median(r[bench][unit])
}

func median(vs []float64) (float64, bool) {
	if len(vs) == 0 {
		return 0, false
	}
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2, true
	}
	return s[len(s)/2], true
}

// ratios pairs the runs of a goal: ours/baseline of each result line (both
// metrics of a goal come from the same benchmark, so the nth value of each
// is the nth run). It fails when the runs cannot be paired.
func (r results) ratios(g goal) ([]float64, error) {
	o, b := r[g.ours.bench][g.ours.unit], r[g.base.bench][g.base.unit]
	if g.ours.bench != g.base.bench || len(o) != len(b) {
		return nil, fmt.Errorf("%s: %d runs of %s and %d of %s cannot be paired", g.label, len(o), g.ours.unit, len(b), g.base.unit)
	}
	out := make([]float64, len(o))
	for i := range o {
		if b[i] == 0 {
			return nil, fmt.Errorf("%s: run %d has a zero %s", g.label, i+1, g.base.unit)
		}
		out[i] = o[i] / b[i]
	}
	return out, nil
}

type ref struct{ bench, unit string }

// dw is a figure of BenchmarkDurableWrite at clients clients.
func dw(clients int, unit string) ref {
	return ref{fmt.Sprintf("BenchmarkDurableWrite/clients=%d", clients), unit}
}

// goal is one ratio target: ours/baseline at most (or, for throughput, at
// least) target.
type goal struct {
	label      string
	ours, base ref
	atLeast    bool
	target     float64
	format     func(float64) string
}

// generateSizes are the corpus sizes of BenchmarkGenerate (methods=N).
var generateSizes = []int{10, 100, 1000, 5000}

// generateGoals are CPU and wall time of a protoc-gen-mcpwrite run against
// protoc-gen-go's on the same request, at each corpus size.
func generateGoals() []goal {
	var gs []goal
	for _, what := range []struct {
		label, unit string
		target      float64
	}{{"CPU", "cpu-ns/op", 0.85}, {"wall", "ns/op", 1.0}} {
		for _, n := range generateSizes {
			bench := fmt.Sprintf("BenchmarkGenerate/methods=%d", n)
			label := fmt.Sprintf("generate %d methods, %s (vs protoc-gen-go)", n, what.label)
			gs = append(gs, goal{label, ref{bench, "ours-" + what.unit}, ref{bench, "baseline-" + what.unit}, false, what.target, duration})
		}
	}
	return gs
}

var goals = append(generateGoals(), []goal{
	// Per call, every contender on the same bytes into the same request,
	// interleaved in one benchmark.
	{"per call decode+validate (vs protojson)", ref{"BenchmarkPerCall", "ours-decode-ns/op"}, ref{"BenchmarkPerCall", "protojson-ns/op"}, false, 0.4, duration},
	{"per call decode+validate (vs json v2, same checks)", ref{"BenchmarkPerCall", "ours-decode-ns/op"}, ref{"BenchmarkPerCall", "json-v2-ns/op"}, false, 1.0, duration},
	{"per call decode+validate (vs encoding/json, same checks)", ref{"BenchmarkPerCall", "ours-decode-ns/op"}, ref{"BenchmarkPerCall", "encoding-json-ns/op"}, false, 1.0, duration},
	{"per call decode+validate+enrich (vs protojson)", ref{"BenchmarkPerCall", "ours-prepare-ns/op"}, ref{"BenchmarkPerCall", "protojson-ns/op"}, false, 0.7, duration},
	{"in-process write call (vs trivial go-sdk tool, same args)", ref{"BenchmarkInProcessCall/no-key", "ours-ns/op"}, ref{"BenchmarkInProcessCall/no-key", "baseline-ns/op"}, false, 1.2, duration},
	{"in-process write call with client_request_id (vs trivial go-sdk tool)", ref{"BenchmarkInProcessCall/keyed", "ours-ns/op"}, ref{"BenchmarkInProcessCall/keyed", "baseline-ns/op"}, false, 1.2, duration},
	{"in-process write call with OpenTelemetry (vs without)", ref{"BenchmarkTelemetry", "ours-ns/op"}, ref{"BenchmarkTelemetry", "baseline-ns/op"}, false, 1.15, duration},
	{"in-process read call with the buf.validate request check (vs without)", ref{"BenchmarkRequestCheck", "ours-ns/op"}, ref{"BenchmarkRequestCheck", "baseline-ns/op"}, false, 1.1, duration},
	{"e2e streamable HTTP calls/s (vs go-sdk AddTool)", ref{"BenchmarkEndToEnd", "ours-calls/s"}, ref{"BenchmarkEndToEnd", "baseline-calls/s"}, true, 0.9, count("/s")},
	// PostgreSQL: a keyed write over stateless streamable HTTP through the
	// load driver's MCP client, on each SDK, against one pgx transaction of
	// the same rows on the same pool (floor) and against that transaction
	// behind a trivial tool of the same SDK, served and driven the same way
	// (mcp-floor: what any tool on the SDK pays), 1,000 tenants. The goals
	// are on mark3labs/mcp-go, the faster stack (the mcp-go floor against
	// the go-sdk floor says which); go-sdk's rows are reported beside them.
	{"durable keyed write on mcp-go calls/s, 1 client (vs the floor behind a trivial mcp-go tool)", dw(1, "ours-mcpgo-calls/s"), dw(1, "mcp-floor-mcpgo-calls/s"), true, 0.9, count("/s")},
	{"durable keyed write on mcp-go calls/s, 8 clients (vs the floor behind a trivial mcp-go tool)", dw(8, "ours-mcpgo-calls/s"), dw(8, "mcp-floor-mcpgo-calls/s"), true, 0.9, count("/s")},
	{"durable keyed write on mcp-go calls/s, 32 clients (vs the floor behind a trivial mcp-go tool)", dw(32, "ours-mcpgo-calls/s"), dw(32, "mcp-floor-mcpgo-calls/s"), true, 0.9, count("/s")},
	{"durable keyed write on mcp-go calls/s, 1 client (vs PostgreSQL floor)", dw(1, "ours-mcpgo-calls/s"), dw(1, "floor-calls/s"), true, 0, count("/s")},
	{"durable keyed write on mcp-go calls/s, 8 clients (vs PostgreSQL floor)", dw(8, "ours-mcpgo-calls/s"), dw(8, "floor-calls/s"), true, 0.45, count("/s")},
	{"durable keyed write on mcp-go calls/s, 32 clients (vs PostgreSQL floor)", dw(32, "ours-mcpgo-calls/s"), dw(32, "floor-calls/s"), true, 0.45, count("/s")},
	{"durable keyed write on go-sdk calls/s, 1 client (vs the floor behind a trivial go-sdk tool)", dw(1, "ours-calls/s"), dw(1, "mcp-floor-calls/s"), true, 0, count("/s")},
	{"durable keyed write on go-sdk calls/s, 8 clients (vs the floor behind a trivial go-sdk tool)", dw(8, "ours-calls/s"), dw(8, "mcp-floor-calls/s"), true, 0, count("/s")},
	{"durable keyed write on go-sdk calls/s, 32 clients (vs the floor behind a trivial go-sdk tool)", dw(32, "ours-calls/s"), dw(32, "mcp-floor-calls/s"), true, 0, count("/s")},
	{"durable keyed write on go-sdk calls/s, 8 clients (vs PostgreSQL floor)", dw(8, "ours-calls/s"), dw(8, "floor-calls/s"), true, 0, count("/s")},
	{"the floor behind a trivial mcp-go tool, calls/s, 8 clients (vs the same behind go-sdk)", dw(8, "mcp-floor-mcpgo-calls/s"), dw(8, "mcp-floor-calls/s"), true, 0, count("/s")},
	{"the floor behind a trivial mcp-go tool, calls/s, 8 clients (vs PostgreSQL floor)", dw(8, "mcp-floor-mcpgo-calls/s"), dw(8, "floor-calls/s"), true, 0, count("/s")},
	{"Go CPU per durable keyed write on mcp-go, 8 clients (vs the floor behind a trivial mcp-go tool)", dw(8, "ours-mcpgo-go-cpu-us/write"), dw(8, "mcp-floor-mcpgo-go-cpu-us/write"), false, 0, micros},
	{"Go CPU per durable keyed write on go-sdk, 8 clients (vs the floor behind a trivial go-sdk tool)", dw(8, "ours-go-cpu-us/write"), dw(8, "mcp-floor-go-cpu-us/write"), false, 0, micros},
	{"PostgreSQL backend CPU per durable keyed write, 8 clients (vs PostgreSQL floor)", dw(8, "ours-mcpgo-pg-cpu-us/write"), dw(8, "floor-pg-cpu-us/write"), false, 0, micros},
	// What each SDK costs per call apart from any tool's work (a trivial
	// tool, one client): the schema-size-dependent part and the rest.
	{"SDK: go-sdk trivial call with createElement's input schema (vs a four-string schema), CPU", ref{"BenchmarkSDKOverhead", "go-sdk-large-cpu-us/call"}, ref{"BenchmarkSDKOverhead", "go-sdk-small-cpu-us/call"}, false, 0, micros},
	{"SDK: mcp-go trivial call with createElement's input schema (vs a four-string schema), CPU", ref{"BenchmarkSDKOverhead", "mcpgo-large-cpu-us/call"}, ref{"BenchmarkSDKOverhead", "mcpgo-small-cpu-us/call"}, false, 0, micros},
	{"SDK: mcp-go trivial call (vs go-sdk), CPU", ref{"BenchmarkSDKOverhead", "mcpgo-large-cpu-us/call"}, ref{"BenchmarkSDKOverhead", "go-sdk-large-cpu-us/call"}, false, 0, micros},
	{"SDK: mcp-go trivial call (vs go-sdk), bytes allocated", ref{"BenchmarkSDKOverhead", "mcpgo-large-B/call"}, ref{"BenchmarkSDKOverhead", "go-sdk-large-B/call"}, false, 0, count("B")},
	{"p50 write, tenant of 100,000 elements (vs tenant of 1,000)", ref{"BenchmarkTenantGrowth", "100k-p50-ms"}, ref{"BenchmarkTenantGrowth", "1k-p50-ms"}, false, 1.5, millis},
	{"p95 write, tenant of 100,000 elements (vs tenant of 1,000)", ref{"BenchmarkTenantGrowth", "100k-p95-ms"}, ref{"BenchmarkTenantGrowth", "1k-p95-ms"}, false, 0, millis},
	{"calls/s, 3 stateless instances (vs 1; same 2 cores, same connections)", ref{"BenchmarkInstances", "three-calls/s"}, ref{"BenchmarkInstances", "one-calls/s"}, true, 0.9, count("/s")},
}...)

// storeTraffic are the per-write store figures reported beside the ratios.
var storeTraffic = []struct{ label, bench, prefix string }{
	{"statements / round trips / commits per keyed write, ours (Redis commands)", "BenchmarkDurableWrite/clients=1", "ours"},
	{"statements / round trips / commits per keyed write, ours on mcp-go (Redis commands)", "BenchmarkDurableWrite/clients=1", "ours-mcpgo"},
	{"statements / round trips / commits per keyed write, PostgreSQL floor", "BenchmarkDurableWrite/clients=1", "floor"},
}

// writeToolBytesGoal is the most a write tool of an example may take in
// tools/list, every field keeping its description and constraints.
var writeToolBytesGoal = map[string]int{"archimate": 2300}

// table builds the rows: one per goal, the store traffic, then one per
// tools/list size.
func table(r results) [][]string {
	rows := [][]string{{"benchmark", "ours", "baseline", "ratio", "runs: min..max", "goal", "met"}}
	for _, g := range goals {
		rows = append(rows, goalRow(r, g))
	}
	for _, st := range storeTraffic {
		stmts, ok1 := r.get(st.bench, st.prefix+"-stmts/write")
		trips, ok2 := r.get(st.bench, st.prefix+"-trips/write")
		commits, ok3 := r.get(st.bench, st.prefix+"-commits/write")
		if !ok1 || !ok2 || !ok3 {
			continue
		}
		cell := fmt.Sprintf("%.3g / %.3g / %.3g", stmts, trips, commits)
		if rc, ok := r.get(st.bench, st.prefix+"-redis/write"); ok {
			cell += fmt.Sprintf(" (%.3g)", rc)
		}
		rows = append(rows, []string{st.label, cell, "-", "-", "-", "report", "-"})
	}
	var lists []string
	for name := range r {
		if strings.HasPrefix(name, "BenchmarkToolsList/") {
			lists = append(lists, name)
		}
	}
	sort.Strings(lists)
	for _, name := range lists {
		per, ok := r.get(name, "bytes/tool")
		if !ok {
			continue
		}
		tools, _ := r.get(name, "tools")
		parts := strings.SplitN(strings.TrimPrefix(name, "BenchmarkToolsList/"), "/", 2)
		what := "write tools, schema doc"
		if len(parts) == 2 && parts[1] == "live" {
			what = "tools/list, all tools"
		}
		ours := sizePerTool(per)
		goalCell, met := "report", "-"
		if w, ok := r.get(name, "write-bytes/tool"); ok {
			ours += "; write tools " + sizePerTool(w)
			if limit, ok := writeToolBytesGoal[parts[0]]; ok {
				goalCell, met = fmt.Sprintf("write <= %d B", limit), yesNo(w <= float64(limit))
			}
		}
		rows = append(rows, []string{fmt.Sprintf("size/tool %s (%s, %d)", parts[0], what, int(tools)), ours, "-", "-", "-", goalCell, met})
	}
	return rows
}

// goalRow is a goal's row: each side's median, the median of the per-run
// ratios with their range and count, and whether the median meets the goal
// (a goal of 0 is reported, not judged).
func goalRow(r results, g goal) []string {
	op := "<="
	if g.atLeast {
		op = ">="
	}
	goalCell := fmt.Sprintf("%s %.2fx", op, g.target)
	if g.target == 0 {
		goalCell = "report"
	}
	o, okO := r.get(g.ours.bench, g.ours.unit)
	b, okB := r.get(g.base.bench, g.base.unit)
	if !okO || !okB {
		return []string{g.label, "not run", "not run", "-", "-", goalCell, "n/a"}
	}
	rs, err := r.ratios(g)
	if err != nil {
		return []string{g.label, g.format(o), g.format(b), "unpaired", err.Error(), goalCell, "n/a"}
	}
	ratio, _ := median(rs)
	lo, hi := slices.Min(rs), slices.Max(rs)
	met := "-"
	switch {
	case g.target == 0:
	case g.atLeast:
		met = yesNo(ratio >= g.target)
	default:
		met = yesNo(ratio <= g.target)
	}
	runs := fmt.Sprintf("%d: %.2f..%.2f", len(rs), lo, hi)
	return []string{g.label, g.format(o), g.format(b), fmt.Sprintf("%.2fx", ratio), runs, goalCell, met}
}

func millis(ms float64) string { return duration(ms * 1e6) }

func micros(us float64) string { return duration(us * 1e3) }

func sizePerTool(bytes float64) string {
	return fmt.Sprintf("%.0f B ~%.0f tok", bytes, bytes/4)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// duration formats nanoseconds with three significant digits.
func duration(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.3g s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.3g ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.3g µs", ns/1e3)
	}
	return fmt.Sprintf("%.3g ns", ns)
}

func count(unit string) func(float64) string {
	return func(v float64) string {
		if unit == "/s" {
			return fmt.Sprintf("%.0f/s", v)
		}
		return fmt.Sprintf("%.0f %s", math.Round(v), unit)
	}
}

// render lays rows out as an aligned pipe table.
func render(rows [][]string) string {
	width := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	line := func(row []string) {
		b.WriteString("|")
		for i, c := range row {
			b.WriteString(" " + c + strings.Repeat(" ", width[i]-len([]rune(c))) + " |")
		}
		b.WriteString("\n")
	}
	line(rows[0])
	sep := make([]string, len(width))
	for i, w := range width {
		sep[i] = strings.Repeat("-", w)
	}
	line(sep)
	for _, row := range rows[1:] {
		line(row)
	}
	return b.String()
}
