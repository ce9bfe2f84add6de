package runtime_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// schemaVersions lists every tool's _meta mcpwrite/schema_version, and what
// get_write_schema answers for create_note.
func schemaVersions(t *testing.T, h *harness) (map[string]any, string) {
	t.Helper()
	res, err := h.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	metas := map[string]any{}
	for _, tool := range res.Tools {
		metas[tool.Name] = tool.Meta["mcpwrite/schema_version"]
	}
	got := h.call(alice, "get_write_schema", `{"operation":"create_note"}`)
	if got.isError {
		t.Fatalf("get_write_schema: %s", got.text)
	}
	var body struct {
		SchemaVersion string `json:"schema_version"`
	}
	if err := json.Unmarshal([]byte(got.text), &body); err != nil {
		t.Fatal(err)
	}
	return metas, body.SchemaVersion
}

// Every tool the service registers (writes, service tools, discovery)
// carries the document's schema version, and get_write_schema answers the
// same value: an agent caches what it learned by one string.
func TestEveryToolCarriesTheDocumentSchemaVersion(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	metas, answered := schemaVersions(t, h)
	want := map[string]any{}
	for _, n := range []string{"apply_proposal", "create_note", "delete_note", "discard_proposal", "get_write_schema", "list_priorities", "validate_write"} {
		want[n] = notesVersion
	}
	if diff := cmp.Diff(want, metas); diff != "" {
		t.Fatalf("_meta mcpwrite/schema_version (-want +got):\n%s", diff)
	}
	if answered != notesVersion {
		t.Fatalf("get_write_schema schema_version %q, want %q", answered, notesVersion)
	}
}

// A document generated before schema versions gets one computed from its
// entry, the same as the generator would have written.
func TestADocumentWithoutSchemaVersionGetsItsEntryHash(t *testing.T) {
	h := newHarness(t, harnessOpts{doc: func(doc string) string {
		return strings.Replace(doc, `"schema_version": "`+notesVersion+`",`, "", 1)
	}})
	metas, answered := schemaVersions(t, h)
	if !strings.HasPrefix(answered, "sha256:") || len(answered) != len("sha256:")+16 || answered == notesVersion {
		t.Fatalf("computed schema_version %q", answered)
	}
	for name, v := range metas {
		if v != answered {
			t.Errorf("%s _meta schema_version %v, get_write_schema %s", name, v, answered)
		}
	}
}

// Version is a pure function of the entry: byte-stable across calls, blind
// to the version already written, and different when anything changes.
func TestSchemaVersionIsStableAndFollowsTheEntry(t *testing.T) {
	s := schemadoc.Service{Name: "notes.v1.NoteService", Tools: []schemadoc.Tool{{Name: "create_note", Description: "Create a note.", InputSchema: []byte(`{"type":"object"}`), OutputSchema: []byte(`{"type":"object"}`)}}}
	const pinned = "sha256:c634e21f48bc7ff4"
	if got := schemadoc.Version(s); got != pinned {
		t.Fatalf("Version = %s, want %s (a change here changes every generated document)", got, pinned)
	}
	s.SchemaVersion = "sha256:anything"
	if got := schemadoc.Version(s); got != pinned {
		t.Fatalf("Version with a version set = %s, want %s", got, pinned)
	}
	s.Tools[0].Description = "Create a note in the model."
	if got := schemadoc.Version(s); got == pinned {
		t.Fatal("a changed description kept the schema version")
	}
}
