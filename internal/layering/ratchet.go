package layering

import (
	"bufio"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Limits of new code: a hand-written file over MaxFileLines lines or a
// function over MaxFuncLines lines fails the ratchet unless the baseline
// lists it.
const (
	MaxFileLines = 500
	MaxFuncLines = 100
)

// Baseline is what the ratchet allows per package (keyed by the package's
// path inside the module): the cycles between files (strongly connected
// components, as "a.go b.go c.go"), the files over MaxFileLines and the
// functions over MaxFuncLines.
type Baseline struct {
	Cycles    map[string]map[string]bool
	BigFiles  map[string]map[string]int
	LongFuncs map[string]map[string]int
}

func newBaseline() *Baseline {
	return &Baseline{Cycles: map[string]map[string]bool{}, BigFiles: map[string]map[string]int{}, LongFuncs: map[string]map[string]int{}}
}

// ParseBaseline reads the lines "cycle PKG FILE FILE...", "bigfile PKG FILE LINES"
// and "longfunc PKG FUNC LINES"; "#" starts a comment line.
func ParseBaseline(text string) (*Baseline, error) {
	b := newBaseline()
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		bad := fmt.Errorf("baseline line %d %q: want \"cycle PKG FILE FILE...\", \"bigfile PKG FILE LINES\" or \"longfunc PKG FUNC LINES\"", n, line)
		if len(f) < 4 || f[0] != "cycle" && len(f) != 4 {
			return nil, bad
		}
		switch f[0] {
		case "cycle":
			add(b.Cycles, f[1])[strings.Join(f[2:], " ")] = true
		case "bigfile", "longfunc":
			lines, err := strconv.Atoi(f[3])
			if err != nil {
				return nil, bad
			}
			m := b.BigFiles
			if f[0] == "longfunc" {
				m = b.LongFuncs
			}
			add(m, f[1])[f[2]] = lines
		default:
			return nil, bad
		}
	}
	return b, sc.Err()
}

func add[K comparable, V any](m map[string]map[K]V, pkg string) map[K]V {
	if m[pkg] == nil {
		m[pkg] = map[K]V{}
	}
	return m[pkg]
}

// Check compares the reports of packages (keyed like the baseline) with b.
// failures name what is new: a cycle between files with the arrows in
// it and the identifiers each uses, a file or function over its limit.
// notes name what the baseline allows that is gone, so it can be lowered.
// A package the baseline does not name allows nothing.
func Check(b *Baseline, reports map[string]*Report) (failures, notes []string) {
	for _, pkg := range sortedPkgs(reports) {
		r := reports[pkg]
		cur := map[string]bool{}
		for _, c := range r.Cycles {
			key := strings.Join(c, " ")
			cur[key] = true
			if !b.Cycles[pkg][key] {
				failures = append(failures, fmt.Sprintf("%s: new cycle between files %s: %s. Make the references run one way (move what they share into a file below them).",
					pkg, key, strings.Join(arrowsWithin(c, r.Uses), "; ")))
			}
		}
		for _, key := range sortedKeys(b.Cycles[pkg]) {
			if !cur[key] {
				notes = append(notes, fmt.Sprintf("%s: %s no longer form a cycle: lower the baseline (go test ./internal/layering -update).", pkg, key))
			}
		}
		failures, notes = checkSizes(pkg, "file", MaxFileLines, r.Files, b.BigFiles[pkg], failures, notes)
		failures, notes = checkSizes(pkg, "function", MaxFuncLines, r.Funcs, b.LongFuncs[pkg], failures, notes)
	}
	return failures, notes
}

func checkSizes(pkg, what string, limit int, cur, allowed map[string]int, failures, notes []string) ([]string, []string) {
	for _, name := range sortedNames(cur) {
		if cur[name] > limit {
			if _, ok := allowed[name]; !ok {
				failures = append(failures, fmt.Sprintf("%s: %s %s has %d lines, over the limit of %d for new code: split it.", pkg, what, name, cur[name], limit))
			}
		}
	}
	for _, name := range sortedNames(allowed) {
		if cur[name] <= limit {
			notes = append(notes, fmt.Sprintf("%s: %s %s is no longer over %d lines (or is gone): lower the baseline (go test ./internal/layering -update).", pkg, what, name, limit))
		}
	}
	return failures, notes
}

// Format writes the baseline of reports, with their figures as comments.
func Format(reports map[string]*Report) string {
	var s strings.Builder
	s.WriteString("# Structure of the hand-written (non-test, non-generated) files per package,\n")
	s.WriteString("# written by: go test ./internal/layering -update -reason 'why' (each reason kept below)\n")
	s.WriteString("# The test fails on a cycle between files, a file over 500 lines or a function over\n")
	s.WriteString("# 100 lines that is not listed here; refresh this file after a merge or a\n")
	s.WriteString("# re-layering, and only ever to lower it otherwise.\n")
	for _, pkg := range sortedPkgs(reports) {
		r := reports[pkg]
		fmt.Fprintf(&s, "\n# %s\n", Figures(pkg, r))
		for _, c := range r.Cycles {
			fmt.Fprintf(&s, "cycle %s %s\n", pkg, strings.Join(c, " "))
		}
		for _, f := range sortedNames(r.Files) {
			if r.Files[f] > MaxFileLines {
				fmt.Fprintf(&s, "bigfile %s %s %d\n", pkg, f, r.Files[f])
			}
		}
		for _, f := range sortedNames(r.Funcs) {
			if r.Funcs[f] > MaxFuncLines {
				fmt.Fprintf(&s, "longfunc %s %s %d\n", pkg, f, r.Funcs[f])
			}
		}
	}
	return s.String()
}

// Figures summarises r on one line.
func Figures(pkg string, r *Report) string {
	bigF, bigN := largest(r.Files)
	fn, fnN := largest(r.Funcs)
	return fmt.Sprintf("%s: rooms %d, mutual pairs %d, cycles %d, back-arrows %d of %d arrows, largest file %s (%d lines), longest function %s (%d lines, %s), exported names %d",
		pkg, len(r.Files), len(r.Pairs), len(r.Cycles), r.BackArrows, len(r.Uses), bigF, bigN, fn, fnN, r.FuncFile[fn], r.Exported)
}

// largest is the name with the highest count, the first name on a tie.
func largest(m map[string]int) (string, int) {
	best, n := "", -1
	for _, k := range sortedNames(m) {
		if m[k] > n {
			best, n = k, m[k]
		}
	}
	return best, n
}

func sortedPkgs(m map[string]*Report) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// reasonPrefix starts a line of the baseline that records why it was
// rewritten.
const reasonPrefix = "# reason: "

// WithReason is the baseline text formatted (Format) with the reasons the
// old baseline records, and reason after them: the baseline is never
// rewritten without saying why. A blank reason, or one of more than one
// line, is an error.
func WithReason(formatted, old, reason string) (string, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return "", fmt.Errorf("the baseline is rewritten only with a reason: go test ./internal/layering -update -reason 'why the structure changes'")
	}
	if strings.ContainsAny(reason, "\r\n") {
		return "", fmt.Errorf("the reason must be one line, got %q", reason)
	}
	var reasons strings.Builder
	for _, line := range strings.Split(old, "\n") {
		if strings.HasPrefix(line, reasonPrefix) {
			reasons.WriteString(line + "\n")
		}
	}
	reasons.WriteString(reasonPrefix + reason + "\n")
	head, rest, _ := strings.Cut(formatted, "\n\n")
	return head + "\n" + reasons.String() + "\n" + rest, nil
}
