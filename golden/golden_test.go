package golden

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/pluginpb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/gen"
	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
)

var update = flag.Bool("update", false, "rewrite testdata/<case>/want from the plugin's output")

// annotationsDir holds mcpwrite/v1/mcpwrite.proto, relative to this package.
const annotationsDir = "../annotations"

// protovalidateDir holds the vendored buf/validate/validate.proto.
const protovalidateDir = "../third_party/protovalidate"

// defaultParam is the plugin parameter of a case without param.txt.
const defaultParam = "paths=source_relative"

// noFiles lists the cases whose protos expose nothing: the plugin must emit
// no file at all for them, whatever -update does.
var noFiles = map[string]bool{
	"no_exposed_methods": true,
}

// lintExceptions are the documented portability findings of the golden
// schemas (input and output), exactly: none. Free-form well-known types are
// JSON text and maps are entry lists, so every schema passes gen.LintSchema
// and gen.LintOutputSchema cleanly.
var lintExceptions = map[string][]string{}

func TestGolden(t *testing.T) {
	cases, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cases {
		// compile-*: the cases generated for the tests that build them.
		if c.IsDir() && !strings.HasPrefix(c.Name(), "compile-") {
			names = append(names, c.Name())
		}
	}
	if len(names) < 8 {
		t.Fatalf("want at least 8 golden cases, have %d: %v", len(names), names)
	}
	seenLint := map[string]bool{}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("testdata", name)
			req := request(t, dir)
			got := run(t, req)

			again := run(t, req)
			if diff := diffFiles(got, again); diff != "" {
				t.Fatalf("a second run over the same request differs:\n%s", diff)
			}
			if noFiles[name] && len(got) != 0 {
				t.Fatalf("a file without exposed methods must produce no file; got %v", sortedNames(got))
			}
			wantDir := filepath.Join(dir, "want")
			if *update {
				writeWant(t, wantDir, got)
			}
			want := readWant(t, wantDir)
			if diff := diffFiles(want, got); diff != "" {
				t.Errorf("output differs from %s (run go test ./golden -run TestGolden -update to accept):\n%s", wantDir, diff)
			}
			var lint []string
			for _, path := range sortedNames(got) {
				content := got[path]
				switch {
				case strings.HasSuffix(path, ".mcpwrite.go"):
					checkGofmt(t, path, content)
				case strings.HasSuffix(path, ".mcpwrite.json"):
					lint = append(lint, checkDocument(t, path, content)...)
				default:
					t.Errorf("unexpected output file %s", path)
				}
			}
			wantLint := lintExceptions[name]
			if !reflect.DeepEqual(lint, wantLint) && (len(lint) > 0 || len(wantLint) > 0) {
				t.Errorf("lint findings:\n got: %q\nwant: %q", lint, wantLint)
			}
			seenLint[name] = true
		})
	}
	for name := range lintExceptions {
		if !seenLint[name] {
			t.Errorf("lintExceptions names case %s, which did not run", name)
		}
	}
}

// request compiles every proto under dir/input into a CodeGeneratorRequest.
func request(t *testing.T, dir string) *pluginpb.CodeGeneratorRequest {
	t.Helper()
	input := filepath.Join(dir, "input")
	var files []string
	err := filepath.WalkDir(input, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".proto") {
			rel, err := filepath.Rel(input, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatalf("%s holds no .proto file", input)
	}
	param := defaultParam
	if raw, err := os.ReadFile(filepath.Join(dir, "param.txt")); err == nil {
		param = strings.TrimSpace(string(raw))
	}
	req, err := plugintest.Request(importPaths(input, annotationsDir, protovalidateDir), files, param)
	if err != nil {
		t.Fatalf("compile %s: %v", input, err)
	}
	return req
}

// importPaths lists the directories protos are resolved from.
func importPaths(dirs ...string) []string { return dirs }

// run runs the plugin on a copy of req and returns its files by name.
func run(t *testing.T, req *pluginpb.CodeGeneratorRequest) map[string][]byte {
	t.Helper()
	resp, err := plugintest.Run(proto.Clone(req).(*pluginpb.CodeGeneratorRequest))
	if err != nil {
		t.Fatalf("run plugin: %v", err)
	}
	if resp.Error != nil {
		t.Fatalf("plugin reported: %s", resp.GetError())
	}
	out := map[string][]byte{}
	for _, f := range resp.File {
		if _, dup := out[f.GetName()]; dup {
			t.Fatalf("file %s emitted twice", f.GetName())
		}
		out[f.GetName()] = []byte(f.GetContent())
	}
	return out
}

func writeWant(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readWant(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && path == dir {
				return fs.SkipDir
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		content, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = content
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sortedNames(files map[string][]byte) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// diffFiles describes how got differs from want: missing and extra files,
// and the first differing lines of each changed file.
func diffFiles(want, got map[string][]byte) string {
	var b strings.Builder
	all := map[string]bool{}
	for n := range want {
		all[n] = true
	}
	for n := range got {
		all[n] = true
	}
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		w, inWant := want[n]
		g, inGot := got[n]
		switch {
		case !inGot:
			fmt.Fprintf(&b, "missing file %s\n", n)
		case !inWant:
			fmt.Fprintf(&b, "unexpected file %s\n", n)
		case !bytes.Equal(w, g):
			fmt.Fprintf(&b, "--- want %s\n+++ got %s\n%s", n, n, lineDiff(string(w), string(g)))
		}
	}
	return b.String()
}

// lineDiff shows the changed region between two texts with a little
// context: enough to read a golden mismatch without external tools.
func lineDiff(want, got string) string {
	wl := strings.Split(want, "\n")
	gl := strings.Split(got, "\n")
	pre := 0
	for pre < len(wl) && pre < len(gl) && wl[pre] == gl[pre] {
		pre++
	}
	suf := 0
	for suf < len(wl)-pre && suf < len(gl)-pre && wl[len(wl)-1-suf] == gl[len(gl)-1-suf] {
		suf++
	}
	const context = 3
	var b strings.Builder
	start := max(pre-context, 0)
	fmt.Fprintf(&b, "@@ line %d @@\n", start+1)
	for i := start; i < pre; i++ {
		fmt.Fprintf(&b, "  %s\n", wl[i])
	}
	const limit = 40
	for i, l := range wl[pre : len(wl)-suf] {
		if i == limit {
			fmt.Fprintf(&b, "- ... (%d more lines)\n", len(wl)-suf-pre-limit)
			break
		}
		fmt.Fprintf(&b, "- %s\n", l)
	}
	for i, l := range gl[pre : len(gl)-suf] {
		if i == limit {
			fmt.Fprintf(&b, "+ ... (%d more lines)\n", len(gl)-suf-pre-limit)
			break
		}
		fmt.Fprintf(&b, "+ %s\n", l)
	}
	for i := len(wl) - suf; i < len(wl) && i < len(wl)-suf+context; i++ {
		fmt.Fprintf(&b, "  %s\n", wl[i])
	}
	return b.String()
}

func checkGofmt(t *testing.T, path string, content []byte) {
	t.Helper()
	formatted, err := format.Source(content)
	if err != nil {
		t.Errorf("%s does not parse: %v", path, err)
		return
	}
	if !bytes.Equal(formatted, content) {
		t.Errorf("%s is not gofmt-clean:\n%s", path, lineDiff(string(content), string(formatted)))
	}
}

// document is the part of a .mcpwrite.json the checks read.
type document struct {
	Source   string `json:"source"`
	Services []struct {
		Name  string `json:"name"`
		Tools []struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"input_schema"`
			OutputSchema json.RawMessage `json:"output_schema"`
			Examples     []struct {
				Description string          `json:"description"`
				Input       json.RawMessage `json:"input"`
			} `json:"examples"`
		} `json:"tools"`
	} `json:"services"`
}

// metaschemas are the dialects every generated schema must be valid in:
// MCP's default (2020-12) and draft-07, which older clients still use.
var metaschemas = []struct {
	name  string
	url   string
	draft *jsonschema.Draft
}{
	{"2020-12", "https://json-schema.org/draft/2020-12/schema", jsonschema.Draft2020},
	{"draft-07", "http://json-schema.org/draft-07/schema", jsonschema.Draft7},
}

// checkDocument checks one getWriteSchema document: it parses, every schema
// is valid in both dialects, every example satisfies its input schema, and
// returns the lint findings of the input schemas.
func checkDocument(t *testing.T, path string, content []byte) []string {
	t.Helper()
	var doc document
	dec := json.NewDecoder(bytes.NewReader(content))
	if err := dec.Decode(&doc); err != nil {
		t.Errorf("%s does not parse: %v", path, err)
		return nil
	}
	if len(doc.Services) == 0 {
		t.Errorf("%s lists no service", path)
	}
	var lint []string
	for _, svc := range doc.Services {
		if len(svc.Tools) == 0 {
			t.Errorf("%s: service %s lists no tool", path, svc.Name)
		}
		for _, tool := range svc.Tools {
			where := fmt.Sprintf("%s: tool %s", path, tool.Name)
			var inputs []*jsonschema.Schema
			for _, ms := range metaschemas {
				inputs = append(inputs, compileSchema(t, where+" input_schema", ms.name, ms.url, ms.draft, tool.InputSchema))
				compileSchema(t, where+" output_schema", ms.name, ms.url, ms.draft, tool.OutputSchema)
			}
			for _, ex := range tool.Examples {
				inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(ex.Input))
				if err != nil {
					t.Errorf("%s: example %q does not parse: %v", where, ex.Description, err)
					continue
				}
				for i, sch := range inputs {
					if sch == nil {
						continue
					}
					if err := sch.Validate(inst); err != nil {
						t.Errorf("%s: example %q fails the %s input schema: %v", where, ex.Description, metaschemas[i].name, err)
					}
				}
			}
			lint = append(lint, gen.LintSchema(tool.Name, tool.InputSchema)...)
			if len(tool.OutputSchema) > 0 {
				lint = append(lint, gen.LintOutputSchema(tool.Name, tool.OutputSchema)...)
			}
		}
	}
	return lint
}

// compileSchema validates raw against a dialect's metaschema and compiles
// it in that dialect.
func compileSchema(t *testing.T, where, dialect, metaURL string, draft *jsonschema.Draft, raw json.RawMessage) *jsonschema.Schema {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Errorf("%s does not parse: %v", where, err)
		return nil
	}
	c := jsonschema.NewCompiler()
	meta, err := c.Compile(metaURL)
	if err != nil {
		t.Fatalf("compile %s metaschema: %v", dialect, err)
	}
	if err := meta.Validate(inst); err != nil {
		t.Errorf("%s is not a valid %s schema: %v", where, dialect, err)
		return nil
	}
	c = jsonschema.NewCompiler()
	c.DefaultDraft(draft)
	const loc = "mem:///schema.json"
	if err := c.AddResource(loc, inst); err != nil {
		t.Errorf("%s: %v", where, err)
		return nil
	}
	sch, err := c.Compile(loc)
	if err != nil {
		t.Errorf("%s does not compile as %s: %v", where, dialect, err)
		return nil
	}
	return sch
}
