package golden

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/gen"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/gosdk"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
)

// examplesDir holds one directory per source system, relative to this package.
const examplesDir = "../examples"

// committedToolName is the portable tool-name profile: what every agent
// vendor accepts.
var committedToolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// committedLintAllowed lists the portability findings the committed example
// schemas may have, by document (relative to examples/), tool and exact
// message, each with the reason it is acceptable. Anything else fails, and so
// does an entry that no longer occurs, so the list cannot go stale.
var committedLintAllowed = []committedFinding{
	// None: free-form values (google.protobuf.Struct, Value, ListValue) are
	// JSON text in a string and maps are lists of {key, value} entries, so
	// every schema converts to strict mode.
}

// committedFinding is one allowed lint finding.
type committedFinding struct {
	File    string // document path relative to examples/, slash-separated
	Tool    string
	Message string // exactly as gen.LintSchema words it
}

// committedDoc is the part of a committed .mcpwrite.json the checks read.
type committedDoc struct {
	Source   string `json:"source"`
	Services []struct {
		Name         string `json:"name"`
		ValidateTool string `json:"validate_tool"`
		SchemaTool   string `json:"schema_tool"`
		ApplyTool    string `json:"apply_tool"`
		DiscardTool  string `json:"discard_tool"`
		Tools        []struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"input_schema"`
			OutputSchema json.RawMessage `json:"output_schema"`
			Examples     []struct {
				Description string          `json:"description"`
				Input       json.RawMessage `json:"input"`
			} `json:"examples"`
			RequiredFields []string `json:"required_fields"`
			OptionalFields []string `json:"optional_fields"`
			Vocabularies   []struct {
				Vocabulary string `json:"vocabulary"`
			} `json:"vocabularies"`
		} `json:"tools"`
		Discovery []struct {
			Tool string `json:"tool"`
		} `json:"discovery"`
		VocabularyTools []struct {
			Tool string `json:"tool"`
		} `json:"vocabulary_tools"`
	} `json:"services"`
}

// committedDocs finds every generated document under examples/*/gen, as
// paths relative to examples/ (slash-separated) mapped to their content.
func committedDocs(t *testing.T) map[string][]byte {
	t.Helper()
	systems, err := os.ReadDir(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, sys := range systems {
		if !sys.IsDir() {
			continue
		}
		root := filepath.Join(examplesDir, sys.Name(), "gen")
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) && path == root {
					return fs.SkipDir
				}
				return err
			}
			if d.IsDir() || !strings.HasSuffix(path, ".mcpwrite.json") {
				return nil
			}
			content, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(examplesDir, path)
			if err != nil {
				return err
			}
			out[filepath.ToSlash(rel)] = content
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no examples/*/gen/**/*.mcpwrite.json found under %s", examplesDir)
	}
	return out
}

func sortedDocNames(docs map[string][]byte) []string {
	names := make([]string, 0, len(docs))
	for n := range docs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func parseCommittedDoc(t *testing.T, name string, content []byte) committedDoc {
	t.Helper()
	var doc committedDoc
	if err := json.Unmarshal(content, &doc); err != nil {
		t.Fatalf("%s does not parse: %v", name, err)
	}
	if len(doc.Services) == 0 {
		t.Fatalf("%s lists no service", name)
	}
	return doc
}

// committedDialects are the dialects every committed schema must be valid
// in: MCP's default (2020-12) and draft-07, which older clients still use.
var committedDialects = []struct {
	name  string
	url   string
	draft *jsonschema.Draft
}{
	{"2020-12", "https://json-schema.org/draft/2020-12/schema", jsonschema.Draft2020},
	{"draft-07", "http://json-schema.org/draft-07/schema", jsonschema.Draft7},
}

// committedSchema validates raw against one dialect's metaschema and
// compiles it in that dialect; it returns an error naming the problem.
func committedSchema(raw json.RawMessage, dialect int) (*jsonschema.Schema, error) {
	d := committedDialects[dialect]
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("does not parse: %v", err)
	}
	c := jsonschema.NewCompiler()
	meta, err := c.Compile(d.url)
	if err != nil {
		return nil, fmt.Errorf("compile %s metaschema: %v", d.name, err)
	}
	if err := meta.Validate(inst); err != nil {
		return nil, fmt.Errorf("is not a valid %s schema: %v", d.name, err)
	}
	c = jsonschema.NewCompiler()
	c.DefaultDraft(d.draft)
	const loc = "mem:///committed.json"
	if err := c.AddResource(loc, inst); err != nil {
		return nil, err
	}
	sch, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("does not compile as %s: %v", d.name, err)
	}
	return sch, nil
}

func TestCommittedSchemasAreValidInBothDialectsAndExamplesConform(t *testing.T) {
	docs := committedDocs(t)
	for _, name := range sortedDocNames(docs) {
		t.Run(name, func(t *testing.T) {
			doc := parseCommittedDoc(t, name, docs[name])
			tools := 0
			for _, svc := range doc.Services {
				for _, tool := range svc.Tools {
					tools++
					inputs := make([]*jsonschema.Schema, len(committedDialects))
					for i, d := range committedDialects {
						sch, err := committedSchema(tool.InputSchema, i)
						if err != nil {
							t.Errorf("tool %s input_schema %v", tool.Name, err)
						}
						inputs[i] = sch
						if _, err := committedSchema(tool.OutputSchema, i); err != nil {
							t.Errorf("tool %s output_schema (%s) %v", tool.Name, d.name, err)
						}
					}
					for _, ex := range tool.Examples {
						inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(ex.Input))
						if err != nil {
							t.Errorf("tool %s: example %q does not parse: %v", tool.Name, ex.Description, err)
							continue
						}
						for i, sch := range inputs {
							if sch == nil {
								continue
							}
							if err := sch.Validate(inst); err != nil {
								t.Errorf("tool %s: example %q fails the %s input schema: %v", tool.Name, ex.Description, committedDialects[i].name, err)
							}
						}
					}
				}
			}
			if tools == 0 {
				t.Errorf("%s lists no tool", name)
			}
		})
	}
}

func TestCommittedInputSchemasPassLintExceptTheAllowList(t *testing.T) {
	docs := committedDocs(t)
	var got []committedFinding
	for _, name := range sortedDocNames(docs) {
		doc := parseCommittedDoc(t, name, docs[name])
		for _, svc := range doc.Services {
			for _, tool := range svc.Tools {
				for _, msg := range append(gen.LintSchema(tool.Name, tool.InputSchema), gen.LintOutputSchema(tool.Name, tool.OutputSchema)...) {
					got = append(got, committedFinding{File: name, Tool: tool.Name, Message: msg})
				}
			}
		}
	}
	want := committedLintAllowed
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		var b strings.Builder
		for _, f := range got {
			fmt.Fprintf(&b, "  {%q, %q, %q},\n", f.File, f.Tool, f.Message)
		}
		t.Errorf("lint findings differ from committedLintAllowed; got:\n%swant %d allowed entries: %+v", b.String(), len(want), want)
	}
}

func TestCommittedToolNamesArePortable(t *testing.T) {
	docs := committedDocs(t)
	for _, name := range sortedDocNames(docs) {
		doc := parseCommittedDoc(t, name, docs[name])
		for _, svc := range doc.Services {
			names := []string{svc.ValidateTool, svc.SchemaTool, svc.ApplyTool, svc.DiscardTool}
			for _, tool := range svc.Tools {
				names = append(names, tool.Name)
			}
			for _, d := range svc.Discovery {
				names = append(names, d.Tool)
			}
			for _, n := range names {
				// Empty service-tool names mean "omitted".
				if n != "" && !committedToolName.MatchString(n) {
					t.Errorf("%s: service %s: tool name %q does not match %s", name, svc.Name, n, committedToolName)
				}
			}
		}
	}
}

// schemaProperty resolves a documented field path ("profile.owner",
// "lines[].sku", "labels{}.x") in an input schema: each dot-separated step is
// a property, "[]" descends into items and "{}" into additionalProperties.
func schemaProperty(schema map[string]any, path string) error {
	cur := schema
	for _, step := range strings.Split(path, ".") {
		name := step
		var suffix []string
		for {
			switch {
			case strings.HasSuffix(name, "[]"):
				suffix = append([]string{"items"}, suffix...)
				name = strings.TrimSuffix(name, "[]")
				continue
			case strings.HasSuffix(name, "{}"):
				suffix = append([]string{"additionalProperties"}, suffix...)
				name = strings.TrimSuffix(name, "{}")
				continue
			}
			break
		}
		props, _ := cur["properties"].(map[string]any)
		next, ok := props[name].(map[string]any)
		if !ok {
			return fmt.Errorf("no property %q at step %q", name, step)
		}
		for _, s := range suffix {
			sub, ok := next[s].(map[string]any)
			if !ok && s == "additionalProperties" {
				// A map as agents send it: entries of {key, value}.
				items, _ := next["items"].(map[string]any)
				props, _ := items["properties"].(map[string]any)
				sub, ok = props["value"].(map[string]any)
			}
			if !ok {
				return fmt.Errorf("property %q has no %s schema", name, s)
			}
			next = sub
		}
		cur = next
	}
	return nil
}

func TestSchemaPropertyResolvesDocumentedPaths(t *testing.T) {
	schema := map[string]any{}
	raw := `{"type":"object","properties":{
		"name":{"type":"string"},
		"profile":{"type":"object","properties":{"owner":{"type":"string"}}},
		"lines":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"}}}},
		"labels":{"type":"object","additionalProperties":{"type":"object","properties":{"x":{"type":"string"}}}},
		"entries":{"type":"array","items":{"type":"object","properties":{"key":{"type":"string"},"value":{"type":"object","properties":{"y":{"type":"string"}}}}}}}}`
	if err := json.Unmarshal([]byte(raw), &schema); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want string
	}{
		{"name", ""},
		{"profile.owner", ""},
		{"lines[].sku", ""},
		{"labels{}.x", ""},
		{"entries{}.y", ""},
		{"entries{}.x", `no property "x" at step "x"`},
		{"nmae", `no property "nmae" at step "nmae"`},
		{"profile.team", `no property "team" at step "team"`},
		{"name[]", `property "name" has no items schema`},
		{"name{}", `property "name" has no additionalProperties schema`},
		{"lines.sku", `no property "sku" at step "sku"`},
	}
	for _, tt := range tests {
		err := schemaProperty(schema, tt.path)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("schemaProperty(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

func TestCommittedRequiredAndOptionalFieldsExistInTheInputSchema(t *testing.T) {
	docs := committedDocs(t)
	for _, name := range sortedDocNames(docs) {
		doc := parseCommittedDoc(t, name, docs[name])
		for _, svc := range doc.Services {
			for _, tool := range svc.Tools {
				var schema map[string]any
				if err := json.Unmarshal(tool.InputSchema, &schema); err != nil {
					t.Errorf("%s: tool %s: input_schema: %v", name, tool.Name, err)
					continue
				}
				if len(tool.RequiredFields)+len(tool.OptionalFields) == 0 {
					t.Errorf("%s: tool %s lists neither required nor optional fields", name, tool.Name)
				}
				for _, list := range []struct {
					kind   string
					fields []string
				}{{"required_fields", tool.RequiredFields}, {"optional_fields", tool.OptionalFields}} {
					for _, f := range list.fields {
						if err := schemaProperty(schema, f); err != nil {
							t.Errorf("%s: tool %s: %s names %q: %v", name, tool.Name, list.kind, f, err)
						}
					}
				}
				// A top-level required field must be required by the schema too.
				req, _ := schema["required"].([]any)
				top := map[string]bool{}
				for _, r := range req {
					if s, ok := r.(string); ok {
						top[s] = true
					}
				}
				for _, f := range tool.RequiredFields {
					if !strings.ContainsAny(f, ".[{") && !top[f] {
						t.Errorf("%s: tool %s: required field %q is not in the schema's required list %v", name, tool.Name, f, req)
					}
				}
			}
		}
	}
}

// TestCommittedToolsListSize registers each committed document with stub
// bindings, lists the tools through a real client session, and logs the
// tools/list size an agent pays for in its context window.
func TestCommittedToolsListSize(t *testing.T) {
	docs := committedDocs(t)
	for _, name := range sortedDocNames(docs) {
		t.Run(name, func(t *testing.T) {
			content := docs[name]
			doc := parseCommittedDoc(t, name, content)
			server := mcp.NewServer(&mcp.Implementation{Name: "size", Version: "test"}, nil)
			var want []string
			for _, svc := range doc.Services {
				var binds []*mcpwriteimpl.Tool
				var vocabs []string
				for _, tool := range svc.Tools {
					binds = append(binds, stubBinding(tool.Name))
					want = append(want, tool.Name)
					for _, v := range tool.Vocabularies {
						if !slices.Contains(vocabs, v.Vocabulary) {
							vocabs = append(vocabs, v.Vocabulary)
						}
					}
				}
				for _, n := range []string{svc.ValidateTool, svc.SchemaTool, svc.ApplyTool, svc.DiscardTool} {
					if n != "" {
						want = append(want, n)
					}
				}
				for _, d := range svc.Discovery {
					want = append(want, d.Tool)
				}
				for _, v := range svc.VocabularyTools {
					want = append(want, v.Tool)
				}
				if err := gosdk.Register(server, &mcpwriteimpl.Service{Name: svc.Name, Doc: content, Tools: binds}, stubVocabularies(vocabs)...); err != nil {
					t.Fatalf("register %s: %v", svc.Name, err)
				}
			}
			ct, st := mcp.NewInMemoryTransports()
			ctx := context.Background()
			ss, err := server.Connect(ctx, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "size", Version: "test"}, nil).Connect(ctx, ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			total := 0
			for _, tool := range res.Tools {
				raw, err := json.Marshal(tool)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, tool.Name)
				total += len(raw)
				t.Logf("%-28s %6d bytes  ~%5d tokens", tool.Name, len(raw), len(raw)/4)
			}
			whole, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d tools, tools/list result %d bytes (~%d tokens; tool entries %d bytes)", name, len(res.Tools), len(whole), len(whole)/4, total)
			sort.Strings(got)
			sort.Strings(want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("tools/list names\n got: %v\nwant: %v", got, want)
			}
		})
	}
}

// stubBinding satisfies Register for a documented tool; listing never calls it.
func stubBinding(name string) *mcpwriteimpl.Tool {
	return &mcpwriteimpl.Tool{
		Name:       name,
		NewRequest: func() proto.Message { return &emptypb.Empty{} },
		Decode:     func(*mcpwriteimpl.Decoder, *mcpwriteimpl.Object, proto.Message) {},
		Enrich:     func(*mcpwriteimpl.Call, proto.Message) error { return nil },
		Invoke: func(context.Context, proto.Message) (proto.Message, error) {
			return &emptypb.Empty{}, nil
		},
	}
}

// stubVocabularies serves each named live vocabulary with no values.
func stubVocabularies(names []string) []runtime.Option {
	var opts []runtime.Option
	for _, n := range names {
		opts = append(opts, runtime.WithVocabulary(runtime.NewVocabulary(n, func(context.Context, string) ([]runtime.VocabularyValue, error) { return nil, nil })))
	}
	return opts
}
