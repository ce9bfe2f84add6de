package archimate_test

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/fidelitycheck"
)

// Every test FIDELITY.md names as proof exists, and the rows are numbered
// 1 to N without a gap or a repeat, as many as the header counts.
func TestFidelityRowsNameTestsThatExist(t *testing.T) {
	doc, err := os.ReadFile("FIDELITY.md")
	if err != nil {
		t.Fatal(err)
	}
	defined, _, err := fidelitycheck.TestFuncs("../..", "../../examples/archimate")
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile(`\bTest[A-Z]\w+`).FindAllString(string(doc), -1)
	if len(named) < 50 {
		t.Fatalf("FIDELITY.md names %d tests", len(named))
	}
	for _, n := range named {
		if !defined[n] {
			t.Errorf("FIDELITY.md names %s, which no test file defines", n)
		}
	}
	var rows []int
	for _, m := range regexp.MustCompile(`(?m)^\| (\d+) \|`).FindAllStringSubmatch(string(doc), -1) {
		n, err := strconv.Atoi(m[1])
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, n)
	}
	slices.Sort(rows)
	for i, n := range rows {
		if n != i+1 {
			t.Fatalf("rows %v: want 1 to %d, each once", rows, len(rows))
		}
	}
	covered := regexp.MustCompile(`(?m)^\| \d+ \| [^|]+ \| [^|]+ \| covered`).FindAllString(string(doc), -1)
	header := regexp.MustCompile(`\*\*Covered: (\d+) of (\d+) requirements; the other (\d+) are deliberate differences\*\*`).FindStringSubmatch(string(doc))
	if header == nil || header[1] != strconv.Itoa(len(covered)) || header[2] != strconv.Itoa(len(rows)) || header[3] != strconv.Itoa(len(rows)-len(covered)) {
		t.Fatalf("header %v; rows %d, covered %d", header, len(rows), len(covered))
	}
}
