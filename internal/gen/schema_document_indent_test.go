package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
)

// checkIndent fails t unless indentCompactJSON(raw) is json.Indent's output
// and, for compact raw, indentedSize counted its length exactly.
func checkIndent(t *testing.T, name string, raw []byte) {
	t.Helper()
	var want bytes.Buffer
	if err := json.Indent(&want, raw, "", "  "); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	got := indentCompactJSON(raw)
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("%s: indentCompactJSON differs from json.Indent:\n%s\nwant:\n%s", name, got, want.Bytes())
	}
	if n := indentedSize(raw); n >= 0 && (n != len(got) || cap(got) != n) {
		t.Errorf("%s: indentedSize = %d, the output has %d bytes in a slice of capacity %d", name, n, len(got), cap(got))
	}
}

func TestIndentCompactJSONCases(t *testing.T) {
	for i, raw := range []string{
		`{}`, `[]`, `{"a":{}}`, `{"a":[]}`, `[[],{},[{}]]`, `{"a":[1,2,{"b":null}],"c":"x"}`,
		`"s"`, `1.5e3`, `true`,
		`{"q\"{[,:":"\\","u":"\u2028<>&","e":"]}","n":"tab\tx"}`,
		`{"k":"a\\\"b","l":["\\",",",":"]}`,
		"{\"a\": 1}", "[1, 2]", "{\n\"a\":1}", // not compact: json.Indent's way
	} {
		checkIndent(t, fmt.Sprintf("case %d %s", i, raw), []byte(raw))
	}
}

func TestIndentCompactJSONRandomSchemas(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for i := range 300 {
		raw, err := schemaJSON(randomSchema(r, 0))
		if err != nil {
			continue
		}
		checkIndent(t, fmt.Sprintf("schema %d", i), raw)
	}
}

// Every committed document (golden and example), compacted, indents back to
// itself.
func TestIndentCompactJSONDocuments(t *testing.T) {
	files := committedDocuments(t)
	for _, p := range files {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, raw); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		checkIndent(t, p, compact.Bytes())
		if got := append(indentCompactJSON(compact.Bytes()), '\n'); !bytes.Equal(got, raw) {
			t.Errorf("%s: compacted and indented again, the document differs", p)
		}
	}
}
