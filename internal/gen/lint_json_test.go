package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// checkUnmarshalAny fails t unless unmarshalAny gives raw's value and error
// exactly as json.Unmarshal into an any does.
func checkUnmarshalAny(t *testing.T, name string, raw []byte) {
	t.Helper()
	var want any
	wantErr := json.Unmarshal(raw, &want)
	got, err := unmarshalAny(raw)
	if fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("%s: error %v, encoding/json %v\n%s", name, err, wantErr, raw)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: value differs from encoding/json\n got: %#v\nwant: %#v\n%s", name, got, want, raw)
	}
}

func TestUnmarshalAnyCases(t *testing.T) {
	for _, c := range []string{
		`{}`, `[]`, ` { "a" : [ 1 , -2.5e3 , 0 , -0 , 0.5E+2 , 1e-3 ] , "b" : { } , "c" : [ ] } `,
		`{"a":1,"a":2}`, `{"a":null,"b":true,"c":false}`, `"plain"`, `"caf` + "\u00e9 \U0001F600" + `"`,
		`"esc\"aped"`, `"\u00e9\ud83d\ude00"`, `"\ud800"`, `"tab\tin"`, "\"bad \xff utf8\"",
		`9007199254740993`, `1e400`, `-`, `01`, `1.`, `.5`, `1e`, `+1`, `{"a":1,}`, `[1,]`, `{"a" 1}`,
		`{"a":1} x`, ``, ` `, `nul`, `tru`, `{"a":[1,{"b":"c"}]`, `[`, `{`, `"open`, `{1:2}`,
	} {
		checkUnmarshalAny(t, fmt.Sprintf("%q", c), []byte(c))
	}
}

func TestUnmarshalAnyRandomSchemas(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for i := range 300 {
		raw, err := schemaJSON(randomSchema(r, 0))
		if err != nil {
			continue
		}
		checkUnmarshalAny(t, fmt.Sprintf("schema %d", i), raw)
		var ind bytes.Buffer
		if err := json.Indent(&ind, raw, "", "  "); err == nil {
			checkUnmarshalAny(t, fmt.Sprintf("schema %d indented", i), ind.Bytes())
		}
	}
}

// Every committed document (golden and example), whole and tool by tool.
func TestUnmarshalAnyDocuments(t *testing.T) {
	files := committedDocuments(t)
	for _, p := range files {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		checkUnmarshalAny(t, p, raw)
		var doc struct {
			Services []struct {
				Tools []struct {
					InputSchema  json.RawMessage `json:"input_schema"`
					OutputSchema json.RawMessage `json:"output_schema"`
				} `json:"tools"`
			} `json:"services"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, s := range doc.Services {
			for _, tool := range s.Tools {
				checkUnmarshalAny(t, p, tool.InputSchema)
				if len(tool.OutputSchema) > 0 {
					checkUnmarshalAny(t, p, tool.OutputSchema)
				}
			}
		}
	}
}

// committedDocuments lists every committed getWriteSchema document of the
// goldens and the examples (at least ten, or the test fails).
func committedDocuments(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, root := range []string{"../../golden", "../../examples"} {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			// testdata/compile-* are the golden tests' scratch caches
			// (ignored by git), made and removed while other packages'
			// tests run: nothing committed is in them.
			if err == nil && d.IsDir() && strings.HasPrefix(d.Name(), "compile-") && filepath.Base(filepath.Dir(p)) == "testdata" {
				return filepath.SkipDir
			}
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".mcpwrite.json") {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) < 10 {
		t.Fatalf("found %d documents, want the goldens' and examples'", len(files))
	}
	return files
}
