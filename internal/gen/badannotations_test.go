package gen_test

import (
	"bytes"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/compiler/protogen"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/gen"
	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
)

var update = flag.Bool("update", false, "re-pin testdata/bad/*.golden")

// corpusDir holds the bad-annotation corpus: small .proto files, each with
// the plugin's exact output pinned beside it in a .golden file.
const corpusDir = "testdata/bad"

// runCorpusFile runs the plugin over one corpus file as protoc would (with
// the parameters of its "// parameters:" line) and returns what a proto
// author sees: the error, then the warnings and notes on stderr.
func runCorpusFile(t *testing.T, name string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(corpusDir, name))
	if err != nil {
		t.Fatal(err)
	}
	param := ""
	if m := regexp.MustCompile(`(?m)^// parameters: (.*)$`).FindSubmatch(src); m != nil {
		param = string(m[1])
	}
	// google/longrunning comes from the lro suite's copy.
	req, err := plugintest.Request([]string{corpusDir, "../../annotations", "../../third_party/protovalidate", "../../golden/e2e/lro/proto"}, []string{name}, param)
	if err != nil {
		t.Fatalf("%s: compile: %v", name, err)
	}
	var stderr bytes.Buffer
	cfg := gen.Config{Warn: &stderr}
	p, err := protogen.Options{ParamFunc: cfg.Set}.New(req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out strings.Builder
	if err := gen.Generate(p, cfg); err != nil {
		out.WriteString("error:\n" + err.Error() + "\n")
	}
	if stderr.Len() > 0 {
		out.WriteString("stderr:\n" + stderr.String())
	}
	return out.String()
}

// corpusFiles are the corpus's .proto files, sorted.
func corpusFiles(t *testing.T) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(corpusDir, "*.proto"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no corpus in %s: %v", corpusDir, err)
	}
	for i := range names {
		names[i] = filepath.Base(names[i])
	}
	sort.Strings(names)
	return names
}

// Every message the plugin gives a proto author over the bad-annotation
// corpus is pinned: position, element, reason and fix (-update re-pins).
func TestBadAnnotationCorpusIsPinned(t *testing.T) {
	for _, name := range corpusFiles(t) {
		got := runCorpusFile(t, name)
		if got == "" {
			t.Errorf("%s: the plugin says nothing; a corpus file shows at least one message", name)
		}
		golden := filepath.Join(corpusDir, strings.TrimSuffix(name, ".proto")+".golden")
		if *update {
			if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%s: %v (run with -update to pin)", name, err)
		}
		if got != string(want) {
			t.Errorf("%s: output differs from %s\n got:\n%s\nwant:\n%s", name, golden, got, want)
		}
	}
}

// Every line the corpus pins names a position (file:line:col) and the
// element, as an editor and a reader need.
func TestBadAnnotationMessagesNameAPositionAndAnElement(t *testing.T) {
	line := regexp.MustCompile(`^(protoc-gen-mcpwrite: (warning|note): )?[a-z_]+\.proto:\d+:\d+: (message|method|service|enum|tool) [^:]+: `)
	for _, name := range corpusFiles(t) {
		for _, l := range strings.Split(runCorpusFile(t, name), "\n") {
			if l == "" || l == "error:" || l == "stderr:" {
				continue
			}
			if !line.MatchString(l) {
				t.Errorf("%s: no position and element: %s", name, l)
			}
		}
	}
}

// reporters are the plugin's ways to report a proto author's mistake, by
// the index of their format argument.
var reporters = map[string]int{"fieldf": 1, "methodf": 1, "servicef": 1, "messagef": 1, "enumf": 1}

// warningFiles build the plugin's warnings and notes with fmt.Sprintf (a
// format starting with the position, "%s: "), and lint_vendors.go with note.
var warningFiles = map[string]bool{"lint_ids.go": true, "lint_identity.go": true, "walk_operations.go": true, "walk_aip_mask.go": true, "walk_aip_identity.go": true, "gen.go": true}

// warningFormat is the format of a warning or note call makes in file name.
func warningFormat(name string, call *ast.CallExpr) (string, bool) {
	switch fn := call.Fun.(type) {
	case *ast.Ident:
		if name == "lint_vendors.go" && fn.Name == "note" && len(call.Args) > 1 {
			return literal(call.Args[1])
		}
	case *ast.SelectorExpr:
		if x, ok := fn.X.(*ast.Ident); ok && x.Name == "fmt" && fn.Sel.Name == "Sprintf" && warningFiles[name] && len(call.Args) > 0 {
			if s, ok := literal(call.Args[0]); ok && strings.HasPrefix(s, "%s") {
				return s, true
			}
		}
	}
	return "", false
}

// literal is the value of a string literal, or of literals joined by +.
func literal(e ast.Expr) (string, bool) {
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind == token.STRING {
			s, err := strconv.Unquote(x.Value)
			return s, err == nil
		}
	case *ast.BinaryExpr:
		a, ok1 := literal(x.X)
		b, ok2 := literal(x.Y)
		return a + b, ok1 && ok2 && x.Op == token.ADD
	}
	return "", false
}

// composite are the reporters' formats that only join text made elsewhere
// (each part is a template of its own).
var composite = map[string]bool{"%s; %s": true, "%s: %s": true, "%s": true, "confirmation_message: %v": true, "%s: method %s: ": true}

// unreachable are templates no proto the compiler accepts can trigger,
// with why.
var unreachable = map[string]string{
	"unknown field_naming %d (annotations newer than the plugin? upgrade protoc-gen-mcpwrite)":     newerAnnotations,
	"unknown %s %d (annotations newer than the plugin? upgrade protoc-gen-mcpwrite)":               newerAnnotations,
	"unknown elicit_fallback %d (annotations newer than the plugin? upgrade protoc-gen-mcpwrite)":  newerAnnotations,
	"unknown enum output %d (annotations newer than the plugin? upgrade protoc-gen-mcpwrite)":      newerAnnotations,
	"unknown enum_alias style %d (annotations newer than the plugin? upgrade protoc-gen-mcpwrite)": newerAnnotations,
	"unknown generated kind %d (annotations newer than the plugin? upgrade protoc-gen-mcpwrite)":   newerAnnotations,
	"unknown derived.context %d (annotations newer than the plugin? upgrade protoc-gen-mcpwrite)":  newerAnnotations,
	"open objects are not accepted: %s": "input schemas close every object (additionalProperties false) and send maps as {key, value} entries, so no input schema has an open object for the note to name",
	"(mcpwrite.v1.oneof).required applies to a oneof, not to a proto3 optional field; use (mcpwrite.v1.field).agent.required": "a proto3 optional field's oneof is synthetic: compilers refuse an option on it, so only a hand-built descriptor carries one",
}

// newerAnnotations: the annotations are proto2, their enums closed, so a
// compiler refuses a number they do not name; only descriptors built
// against newer annotations than the plugin's carry one.
const newerAnnotations = "an option value only annotations newer than the plugin have"

// messageTemplates are the format strings of every report of the plugin,
// with where they are.
func messageTemplates(t *testing.T) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if s, ok := warningFormat(path, call); ok && !composite[s] {
				out[s] = fset.Position(call.Pos()).String()
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			i, ok := reporters[sel.Sel.Name]
			if !ok || len(call.Args) <= i {
				return true
			}
			lit, ok := call.Args[i].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Errorf("%s: a report whose format is not a literal", fset.Position(call.Pos()))
				return true
			}
			s, _ := strconv.Unquote(lit.Value)
			if !composite[s] {
				out[s] = fset.Position(call.Pos()).String()
			}
			return true
		})
	}
	return out
}

// templateRE matches a message made from format s.
func templateRE(s string) *regexp.Regexp {
	q := regexp.QuoteMeta(s)
	q = regexp.MustCompile(`%[-+# 0-9.]*[sqdvtgf]`).ReplaceAllString(q, `.*`)
	return regexp.MustCompile(q)
}

// Every report the plugin can make is shown by a file of the corpus, so
// the corpus pins every message (or the template is listed as unreachable,
// with why).
func TestEveryPluginMessageHasACorpusFile(t *testing.T) {
	var all strings.Builder
	for _, name := range corpusFiles(t) {
		all.WriteString(runCorpusFile(t, name))
	}
	text := all.String()
	templates := messageTemplates(t)
	var missing []string
	for s, at := range templates {
		_, skip := unreachable[s]
		hit := templateRE(s).MatchString(text)
		switch {
		case hit && skip:
			t.Errorf("%s: %q is listed as unreachable but the corpus shows it; drop it from unreachable", at, s)
		case !hit && !skip:
			missing = append(missing, at+": "+s)
		}
	}
	for s := range unreachable {
		if _, ok := templates[s]; !ok {
			t.Errorf("unreachable lists %q, which the plugin no longer reports", s)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d of %d messages have no corpus file in %s:\n%s", len(missing), len(templates), corpusDir, strings.Join(missing, "\n"))
	}
}
