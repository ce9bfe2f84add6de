package golden_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/gosdk"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
)

var updateServiceSchemas = flag.Bool("update-service-schemas", false, "rewrite testdata/service_tool_schemas.txt from tools/list")

// schemaDoc is what this test reads of a generated document.
type schemaDoc struct {
	Services []struct {
		Name  string `json:"name"`
		Tools []struct {
			Name         string `json:"name"`
			Vocabularies []struct {
				Vocabulary string `json:"vocabulary"`
			} `json:"vocabularies"`
		} `json:"tools"`
		VocabularyTools []struct {
			Tool string `json:"tool"`
		} `json:"vocabulary_tools"`
	} `json:"services"`
}

func readSchemaDoc(t *testing.T, path string) ([]byte, schemaDoc) {
	t.Helper()
	content, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc schemaDoc
	if err := json.Unmarshal(content, &doc); err != nil || len(doc.Services) == 0 {
		t.Fatalf("%s: no services (%v)", path, err)
	}
	return content, doc
}

// serviceToolSchemas lists, tool by tool, the input and output schema bytes
// of every tool tools/list sends that is not one of the document's own
// (validate, schema, discovery, vocabulary, apply and discard tools).
func serviceToolSchemas(t *testing.T, s *mcp.Server, own map[string]bool) string {
	t.Helper()
	var list struct {
		Tools []struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(mcptest.RawToolsList(t, s), &list); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, tool := range list.Tools {
		if own[tool.Name] {
			continue
		}
		b.WriteString(tool.Name + "\ninput: " + string(tool.InputSchema) + "\noutput: " + string(tool.OutputSchema) + "\n")
	}
	return b.String()
}

// The input and output schemas of the service tools, as tools/list sends
// them, byte for byte: every example server and the vocabularies case
// (a vocabulary tool, served with stub bindings).
func TestServiceToolSchemaBytes(t *testing.T) {
	// own maps an example's directory name to its document's tools.
	own := map[string]map[string]bool{}
	paths, err := filepath.Glob("../examples/*/gen/*/*/*/*.mcpwrite.json")
	if err != nil || len(paths) != len(exampleServers) {
		t.Fatalf("documents %v (%v), want one per example server", paths, err)
	}
	for _, p := range paths {
		_, doc := readSchemaDoc(t, p)
		example := strings.Split(filepath.ToSlash(p), "/")[2]
		own[example] = map[string]bool{}
		for _, svc := range doc.Services {
			for _, tool := range svc.Tools {
				own[example][tool.Name] = true
			}
		}
	}
	var got bytes.Buffer
	for _, name := range exampleServerNames() {
		s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "test"}, nil)
		if err := exampleServers[name](s); err != nil {
			t.Fatalf("%s: register: %v", name, err)
		}
		got.WriteString("== " + name + "\n" + serviceToolSchemas(t, s, own[name]))
	}

	const vocabDoc = "testdata/vocabularies/want/catalog/v1/catalogv1mcpwrite/catalog.mcpwrite.json"
	content, doc := readSchemaDoc(t, vocabDoc)
	s := mcp.NewServer(&mcp.Implementation{Name: "vocabularies", Version: "test"}, nil)
	vocabOwn := map[string]bool{}
	for _, svc := range doc.Services {
		var binds []*mcpwriteimpl.Tool
		var vocabs []string
		for _, tool := range svc.Tools {
			vocabOwn[tool.Name] = true
			binds = append(binds, &mcpwriteimpl.Tool{
				Name:       tool.Name,
				NewRequest: func() proto.Message { return &emptypb.Empty{} },
				Decode:     func(*mcpwriteimpl.Decoder, *mcpwriteimpl.Object, proto.Message) {},
				Enrich:     func(*mcpwriteimpl.Call, proto.Message) error { return nil },
				Invoke:     func(context.Context, proto.Message) (proto.Message, error) { return &emptypb.Empty{}, nil },
			})
			for _, v := range tool.Vocabularies {
				if !slices.Contains(vocabs, v.Vocabulary) {
					vocabs = append(vocabs, v.Vocabulary)
				}
			}
		}
		if len(svc.VocabularyTools) == 0 {
			t.Fatalf("%s has no vocabulary tool", vocabDoc)
		}
		var opts []runtime.Option
		for _, n := range vocabs {
			opts = append(opts, runtime.WithVocabulary(runtime.NewVocabulary(n, func(context.Context, string) ([]runtime.VocabularyValue, error) { return nil, nil })))
		}
		if err := gosdk.Register(s, &mcpwriteimpl.Service{Name: svc.Name, Doc: content, Tools: binds}, opts...); err != nil {
			t.Fatalf("register %s: %v", svc.Name, err)
		}
	}
	got.WriteString("== vocabularies\n" + serviceToolSchemas(t, s, vocabOwn))

	const path = "testdata/service_tool_schemas.txt"
	if *updateServiceSchemas {
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		gl, wl := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("service tool schemas differ from %s at line %d:\n got: %s\nwant: %s", path, i+1, g, w)
			}
		}
	}
}

// No object in what tools/list sends states a key twice, for any tool of
// any example: a duplicate key is not valid JSON Schema for many clients,
// and the ones that accept it keep one of the two silently.
func TestToolsListStatesEveryKeyOnce(t *testing.T) {
	for _, name := range exampleServerNames() {
		s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "test"}, nil)
		if err := exampleServers[name](s); err != nil {
			t.Fatalf("%s: register: %v", name, err)
		}
		if dups := duplicateKeys(t, mcptest.RawToolsList(t, s)); len(dups) > 0 {
			t.Errorf("%s: tools/list states keys twice: %s", name, strings.Join(dups, "; "))
		}
	}
}

// duplicateKeys lists every object key raw states twice in one object, as
// path: key.
func duplicateKeys(t *testing.T, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	var dups []string
	var walk func(path string) // reads one value
	walk = func(path string) {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("token at %s: %v", path, err)
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					t.Fatalf("key at %s: %v", path, err)
				}
				k := kt.(string)
				if seen[k] {
					dups = append(dups, path+": "+k)
				}
				seen[k] = true
				walk(path + "/" + k)
			}
			_, _ = dec.Token() // '}'
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				walk(fmt.Sprintf("%s/%d", path, i))
			}
			_, _ = dec.Token() // ']'
		}
	}
	walk("")
	return dups
}

func TestDuplicateKeysFindsAKeyStatedTwice(t *testing.T) {
	got := duplicateKeys(t, []byte(`{"a":{"x":1,"y":[{"k":1,"k":2}],"x":2},"b":[1,{"c":1}]}`))
	if strings.Join(got, "; ") != "/a/y/0: k; /a: x" {
		t.Fatalf("duplicateKeys = %q", got)
	}
}

// exampleServerNames is the names of exampleServers, sorted.
func exampleServerNames() []string {
	names := make([]string, 0, len(exampleServers))
	for n := range exampleServers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
