// Command benchtable reads `go test -bench` output for the bench package on
// stdin, echoes it, and prints the goal table: each benchmark against its
// baseline from the same run, the ratio, the goal and whether it is met.
// Repeated runs (-count) are summarised by their median.
//
//	go test -run '^$' -bench . -benchmem ./bench | go run ./bench/cmd/benchtable
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

func main() {
	quiet := flag.Bool("q", false, "do not echo the benchmark output")
	flag.Parse()
	echo := io.Writer(os.Stdout)
	if *quiet {
		echo = io.Discard
	}
	res, err := parse(os.Stdin, echo)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
	fmt.Println()
	fmt.Print(render(table(res)))
}

// results maps benchmark name (without the -GOMAXPROCS suffix) and unit to
// every value reported.
type results map[string]map[string][]float64

var procSuffix = regexp.MustCompile(`-\d+$`)

// parse reads benchmark result lines, copying all input to echo.
func parse(r io.Reader, echo io.Writer) (results, error) {
	res := results{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1024*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(echo, line)
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue // a benchmark's log line, not its result
		}
		name := procSuffix.ReplaceAllString(f[0], "")
		if res[name] == nil {
			res[name] = map[string][]float64{}
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: value %q of %s: %v", name, f[i], f[i+1], err)
			}
			res[name][f[i+1]] = append(res[name][f[i+1]], v)
		}
	}
	return res, sc.Err()
}

// get returns the median of a metric, or false when it was not reported.
func (r results) get(bench, unit string) (float64, bool) {
	vs := r[bench][unit]
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

type ref struct{ bench, unit string }

// goal is one ratio target: ours/baseline at most (or, for throughput, at
// least) target.
type goal struct {
	label      string
	ours, base ref
	atLeast    bool
	target     float64
	format     func(float64) string
}

var goals = []goal{
	{"generate 50 files/2000 methods, wall (vs protoc-gen-go)", ref{"BenchmarkGenerate", "ours-ns/op"}, ref{"BenchmarkGenerate", "baseline-ns/op"}, false, 1.0, duration},
	{"generate 50 files/2000 methods, CPU (vs protoc-gen-go)", ref{"BenchmarkGenerate", "ours-cpu-ns/op"}, ref{"BenchmarkGenerate", "baseline-cpu-ns/op"}, false, 1.0, duration},
	// Per call, every contender on the same bytes into the same request.
	{"per call decode+validate (vs protojson)", ref{"BenchmarkPerCall/ours-decode", "ns/op"}, ref{"BenchmarkPerCall/protojson", "ns/op"}, false, 0.4, duration},
	{"per call decode+validate (vs json v2, same checks)", ref{"BenchmarkPerCall/ours-decode", "ns/op"}, ref{"BenchmarkPerCall/json-v2", "ns/op"}, false, 1.0, duration},
	{"per call decode+validate (vs encoding/json, same checks)", ref{"BenchmarkPerCall/ours-decode", "ns/op"}, ref{"BenchmarkPerCall/encoding-json", "ns/op"}, false, 1.0, duration},
	{"per call decode+validate+enrich (vs protojson)", ref{"BenchmarkPerCall/ours-prepare", "ns/op"}, ref{"BenchmarkPerCall/protojson", "ns/op"}, false, 0.7, duration},
	{"e2e streamable HTTP calls/s (vs go-sdk AddTool)", ref{"BenchmarkEndToEnd", "ours-calls/s"}, ref{"BenchmarkEndToEnd", "baseline-calls/s"}, true, 0.9, count("/s")},
}

// table builds the rows: one per goal, then one per tools/list size.
func table(r results) [][]string {
	rows := [][]string{{"benchmark", "ours", "baseline", "ratio", "goal", "met"}}
	for _, g := range goals {
		op := "<="
		if g.atLeast {
			op = ">="
		}
		o, okO := r.get(g.ours.bench, g.ours.unit)
		b, okB := r.get(g.base.bench, g.base.unit)
		if !okO || !okB || b == 0 {
			rows = append(rows, []string{g.label, "not run", "not run", "-", fmt.Sprintf("%s %.2fx", op, g.target), "n/a"})
			continue
		}
		ratio := o / b
		met := ratio <= g.target
		if g.atLeast {
			met = ratio >= g.target
		}
		rows = append(rows, []string{g.label, g.format(o), g.format(b), fmt.Sprintf("%.2fx", ratio), fmt.Sprintf("%s %.2fx", op, g.target), yesNo(met)})
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
		if w, ok := r.get(name, "write-bytes/tool"); ok {
			ours += "; write tools " + sizePerTool(w)
		}
		rows = append(rows, []string{fmt.Sprintf("size/tool %s (%s, %d)", parts[0], what, int(tools)), ours, "-", "-", "report", "-"})
	}
	return rows
}

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
