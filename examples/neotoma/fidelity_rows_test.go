package neotoma_test

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/fidelitycheck"
)

// Every test FIDELITY.md names as proof exists (a subtest as a case name in
// this package's tests), every covered row names one, every difference or
// gap points to an entry of section D or N, rows are numbered 1, 2, ... per
// section (a lettered row follows its number), and the header counts them.
func TestFidelityRowsNameTestsThatExist(t *testing.T) {
	doc, err := os.ReadFile("FIDELITY.md")
	if err != nil {
		t.Fatal(err)
	}
	defined, local, err := fidelitycheck.TestFuncs("../..", "../../examples/neotoma")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	cases := map[string]bool{}
	for _, m := range regexp.MustCompile(`"((?:[^"\\\n]|\\.)*)"`).FindAllStringSubmatch(local, -1) {
		cases[strings.ReplaceAll(m[1], " ", "_")] = true
	}
	for _, m := range regexp.MustCompile("`(Test[A-Z]\\w*)(/[^`]+)?`").FindAllStringSubmatch(text, -1) {
		if !defined[m[1]] {
			t.Errorf("FIDELITY.md names %s, which no test file defines", m[1])
		}
		if sub := strings.TrimPrefix(m[2], "/"); sub != "" && !cases[sub] {
			t.Errorf("FIDELITY.md names subtest %s/%s, which no case of this package's tests is named", m[1], sub)
		}
	}
	entries := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^- \*\*([DN]\d+):`).FindAllStringSubmatch(text, -1) {
		entries[m[1]] = true
	}
	rowRE := regexp.MustCompile(`(?m)^\| (\d+)\.(\d+)([a-z]?) \| ([^|]+) \| ([^|]+) \| (.+) \|$`)
	counts := map[string]int{}
	last := map[string]string{}
	rows := rowRE.FindAllStringSubmatch(text, -1)
	for _, r := range rows {
		id := r[1] + "." + r[2] + r[3]
		n, _ := strconv.Atoi(r[2])
		prev := last[r[1]]
		var want []string
		if prev == "" {
			want = []string{"1"}
		} else {
			pn, _ := strconv.Atoi(strings.TrimRight(prev, "abcdefghijklmnopqrstuvwxyz"))
			suffix := strings.TrimLeft(prev, "0123456789")
			next := "a"
			if suffix != "" {
				next = string(rune(suffix[0] + 1))
			}
			want = []string{strconv.Itoa(pn + 1), strconv.Itoa(pn) + next}
		}
		if got := strconv.Itoa(n) + r[3]; !slices.Contains(want, got) {
			t.Errorf("row %s follows %s.%s: want %s.%s", id, r[1], prev, r[1], strings.Join(want, " or "+r[1]+"."))
		}
		last[r[1]] = strconv.Itoa(n) + r[3]
		status, proof := strings.TrimSpace(r[5]), r[6]
		switch {
		case strings.HasPrefix(status, "covered"):
			counts["covered"]++
			if !regexp.MustCompile("`Test[A-Z]").MatchString(proof) {
				t.Errorf("row %s is covered but names no test: %s", id, proof)
			}
		case status == "deliberate difference", status == "not covered":
			counts[status]++
			ref := regexp.MustCompile(`^\s*([DN]\d+)\s*$`).FindStringSubmatch(proof)
			if ref == nil || !entries[ref[1]] || (ref[1][0] == 'D') != (status == "deliberate difference") {
				t.Errorf("row %s (%s) points to %q, want an entry of section %s", id, status, strings.TrimSpace(proof), map[bool]string{true: "D", false: "N"}[status == "deliberate difference"])
			}
		default:
			t.Errorf("row %s has status %q", id, status)
		}
	}
	if len(rows) < 100 {
		t.Fatalf("read %d rows of FIDELITY.md", len(rows))
	}
	header := regexp.MustCompile(`\*\*Covered: (\d+)/(\d+)\*\*: (\d+) requirements proven\s+by\s+a\s+test,\s+(\d+)\s+deliberate\s+differences\s+\(rows\s+pointing\s+to\s+section\s+D\)\s+and\s+(\d+)\s+not\s+covered`).FindStringSubmatch(text)
	want := []string{strconv.Itoa(counts["covered"]), strconv.Itoa(len(rows)), strconv.Itoa(counts["covered"]), strconv.Itoa(counts["deliberate difference"]), strconv.Itoa(counts["not covered"])}
	if header == nil || strings.Join(header[1:], " ") != strings.Join(want, " ") {
		t.Errorf("header counts %v; the rows are %v (covered/total, covered, differences, not covered)", header, want)
	}
}
