package golden

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/gosdk"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// generatedDoc runs the plugin on the golden case in dir and returns its one
// .mcpwrite.json.
func generatedDoc(t *testing.T, dir string) []byte {
	t.Helper()
	var doc []byte
	for name, content := range run(t, request(t, dir)) {
		if strings.HasSuffix(name, ".mcpwrite.json") {
			if doc != nil {
				t.Fatalf("%s: more than one document", dir)
			}
			doc = content
		}
	}
	if doc == nil {
		t.Fatalf("%s: no document", dir)
	}
	return doc
}

// servedVersions registers a document's services with stub bindings, connects
// an MCP Go SDK client and returns every listed tool's _meta
// mcpwrite/schema_version and what the schema tool answers for each write or
// read tool, by tool name.
func servedVersions(t *testing.T, content []byte) (metas, answers map[string]string) {
	t.Helper()
	var doc schemadoc.Document
	if err := json.Unmarshal(content, &doc); err != nil {
		t.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "version", Version: "test"}, nil)
	schemaTool := ""
	for _, svc := range doc.Services {
		var binds []*mcpwriteimpl.Tool
		for _, tool := range svc.Tools {
			binds = append(binds, stubBinding(tool.Name))
		}
		if err := gosdk.Register(server, &mcpwriteimpl.Service{Name: svc.Name, Doc: content, Tools: binds}, runtime.WithLogger(slog.New(slog.DiscardHandler))); err != nil {
			t.Fatalf("register %s: %v", svc.Name, err)
		}
		schemaTool = svc.SchemaTool
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "version", Version: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	metas, answers = map[string]string{}, map[string]string{}
	for _, tool := range res.Tools {
		v, _ := tool.Meta["mcpwrite/schema_version"].(string)
		metas[tool.Name] = v
	}
	for _, svc := range doc.Services {
		for _, tool := range svc.Tools {
			r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: schemaTool, Arguments: map[string]any{"operation": tool.Name}})
			if err != nil || r.IsError {
				t.Fatalf("%s(%s): %v %v", schemaTool, tool.Name, err, r)
			}
			var body struct {
				SchemaVersion string `json:"schema_version"`
			}
			b, _ := json.Marshal(r.StructuredContent)
			if err := json.Unmarshal(b, &body); err != nil {
				t.Fatal(err)
			}
			answers[tool.Name] = body.SchemaVersion
		}
	}
	return metas, answers
}

// The schema version is written by the generator into the document and
// served unchanged: every tool's _meta carries it, get_write_schema answers
// it for every operation, generating the same protos again gives the same
// bytes, and changing the schema (one field's description) changes it.
func TestSchemaVersionIsGeneratedStableAndServedOnEveryTool(t *testing.T) {
	const dir = "testdata/proto3_optional"
	first := generatedDoc(t, dir)
	var doc schemadoc.Document
	if err := json.Unmarshal(first, &doc); err != nil {
		t.Fatal(err)
	}
	version := doc.Services[0].SchemaVersion
	if !strings.HasPrefix(version, "sha256:") || len(version) != len("sha256:")+16 {
		t.Fatalf("document schema_version %q", version)
	}
	if again := generatedDoc(t, dir); string(again) != string(first) {
		t.Fatal("generating the same protos twice gave different documents")
	}
	committed, err := os.ReadFile(filepath.Join(dir, "want/notes/v1/notesv1mcpwrite/notes.mcpwrite.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(committed), `"schema_version": "`+version+`"`) {
		t.Fatalf("the committed golden document does not state %s", version)
	}

	metas, answers := servedVersions(t, first)
	if len(metas) != 4 || len(answers) != 2 { // createNote, updateNote, validateWrite, getWriteSchema
		t.Fatalf("tools %v, answers %v", metas, answers)
	}
	for name, v := range metas {
		if v != version {
			t.Errorf("tools/list %s _meta schema_version %q, want %q", name, v, version)
		}
	}
	for name, v := range answers {
		if v != version {
			t.Errorf("getWriteSchema(%s) schema_version %q, want %q", name, v, version)
		}
	}

	// The same case with one description changed is another schema.
	changed := t.TempDir()
	src, err := os.ReadFile(filepath.Join(dir, "input/notes/v1/notes.proto"))
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(src), "// The note's text.", "// The note's text, in Markdown.", 1)
	if edited == string(src) {
		t.Fatal("the edit did not apply")
	}
	if err := os.MkdirAll(filepath.Join(changed, "input/notes/v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(changed, "input/notes/v1/notes.proto"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	metas2, answers2 := servedVersions(t, generatedDoc(t, changed))
	v2 := metas2["createNote"]
	if v2 == version || !strings.HasPrefix(v2, "sha256:") {
		t.Fatalf("changed schema has version %q, the original %q", v2, version)
	}
	for name, v := range answers2 {
		if v != v2 {
			t.Errorf("changed schema: getWriteSchema(%s) %q, _meta %q", name, v, v2)
		}
	}
}
