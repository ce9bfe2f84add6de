package runtime_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// A compact tool is written as its name, one-line description, the hints
// that differ from the protocol's defaults and an open object, with no
// _meta: the list's _meta carries one hash of the listed compact tools.
func TestCompactListWritesEachToolInFewBytesAndOneListHash(t *testing.T) {
	wire := string(wireToolsList(t, nil, runtime.WithCompactList()))
	for _, entry := range []string{
		`{"annotations":{"destructiveHint":false,"openWorldHint":false},"description":"Create a note in the active model.","inputSchema":{"type":"object","additionalProperties":true},"name":"create_note"}`,
		// Destructive and open world are the protocol's defaults when absent.
		`{"annotations":{"idempotentHint":true,"openWorldHint":false},"description":"Delete a note.","inputSchema":{"type":"object","additionalProperties":true},"name":"delete_note"}`,
	} {
		if !strings.Contains(wire, entry) {
			t.Errorf("tools/list lacks\n%s\nin\n%s", entry, wire)
		}
	}
	if got, want := strings.Count(wire, `"mcpwrite/schema_hash"`), 1; got != want {
		t.Errorf("tools/list has %d schema hashes, want %d (the list's):\n%s", got, want, wire)
	}
	var res struct {
		Meta map[string]any `json:"_meta"`
	}
	if err := json.Unmarshal([]byte(wire), &res); err != nil {
		t.Fatal(err)
	}
	if got, want := res.Meta["mcpwrite/schema_hash"], listHash("create_note "+noteHash(t, "create_note"), "delete_note "+noteHash(t, "delete_note")); got != want {
		t.Errorf("list _meta schema_hash %v, want %s", got, want)
	}
	h := newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithCompactList()}})
	tools := listTools(t, h)
	if got, want := tools["_names"], "apply_proposal,create_note,delete_note,discard_proposal,get_write_schema,list_priorities,validate_write"; got != want {
		t.Fatalf("tools %s, want %s", got, want)
	}
	// The service tools keep their input schemas (operation a string, not
	// an enum of every tool) without property descriptions, and leave the
	// output schema, title and _meta to get_write_schema.
	for _, entry := range []string{
		`{"annotations":{"idempotentHint":true,"openWorldHint":false,"readOnlyHint":true},"description":"Describe a tool in full (schemas, examples, rules). Call before a tool's first call and when tools/list's schema_hash changes.","inputSchema":{"additionalProperties":false,"properties":{"operation":{"type":"string"}},"required":["operation"],"type":"object"},"name":"get_write_schema"}`,
		`{"annotations":{"idempotentHint":true,"openWorldHint":false,"readOnlyHint":true},"description":"Dry-run a write: payload is its arguments as JSON text. Answers errors, warnings and the request it would send.","inputSchema":{"additionalProperties":false,"properties":{"operation":{"type":"string"},"payload":{"type":"string"}},"required":["operation","payload"],"type":"object"},"name":"validate_write"}`,
	} {
		if !strings.Contains(wire, entry) {
			t.Errorf("tools/list lacks\n%s\nin\n%s", entry, wire)
		}
	}
}

// listHash is a compact list's hash of its "name hash" lines, sorted.
func listHash(lines ...string) string {
	sort.Strings(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n") + "\n"))
	return "sha256:" + hex.EncodeToString(sum[:8])
}

// A client that cached get_write_schema's answers learns from the list's
// hash that one may be stale, and from each tool's schema_hash which.
func TestCompactListHashTellsAClientItsCacheIsStale(t *testing.T) {
	listed := func(doc func(string) string) string {
		var res struct {
			Meta struct {
				Hash string `json:"mcpwrite/schema_hash"`
			} `json:"_meta"`
		}
		if err := json.Unmarshal(wireToolsList(t, doc, runtime.WithCompactList()), &res); err != nil {
			t.Fatal(err)
		}
		return res.Meta.Hash
	}
	schemaHash := func(h *harness, tool string) string {
		var answer struct {
			Hash string `json:"schema_hash"`
		}
		if err := json.Unmarshal([]byte(h.call(alice, "get_write_schema", `{"operation":"`+tool+`"}`).text), &answer); err != nil || answer.Hash == "" {
			t.Fatalf("get_write_schema(%s): %v %+v", tool, err, answer)
		}
		return answer.Hash
	}
	changed := func(doc string) string {
		return strings.Replace(doc, `"description": "Delete a note."`, `"description": "Delete a note for good."`, 1)
	}
	before, again, after := listed(nil), listed(nil), listed(changed)
	if before != again {
		t.Fatalf("the same service lists %s, then %s", before, again)
	}
	if after == before || after != listHash("create_note "+noteHash(t, "create_note"), "delete_note "+changedHash(t, changed, "delete_note")) {
		t.Fatalf("list hash %s before the change, %s after", before, after)
	}
	old := newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithCompactList()}})
	cur := newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithCompactList()}, doc: changed})
	if a, b := schemaHash(old, "create_note"), schemaHash(cur, "create_note"); a != b || a != noteHash(t, "create_note") {
		t.Errorf("create_note did not change, yet its schema_hash went from %s to %s", a, b)
	}
	if a, b := schemaHash(old, "delete_note"), schemaHash(cur, "delete_note"); a == b || b != changedHash(t, changed, "delete_note") {
		t.Errorf("delete_note changed, yet its schema_hash went from %s to %s", a, b)
	}
}

// changedHash is the schema hash of tool in the notes document as change
// rewrites it.
func changedHash(t *testing.T, change func(string) string, tool string) string {
	t.Helper()
	var doc schemadoc.Document
	if err := json.Unmarshal([]byte(change(notesDoc)), &doc); err != nil {
		t.Fatal(err)
	}
	for _, s := range doc.Services {
		for i := range s.Tools {
			if s.Tools[i].Name == tool {
				b, _ := json.Marshal(&s.Tools[i])
				sum := sha256.Sum256(b)
				return "sha256:" + hex.EncodeToString(sum[:8])
			}
		}
	}
	t.Fatalf("no tool %s", tool)
	return ""
}

// A compact list changes what is listed, never what a call answers: the
// same calls get byte-identical answers from both lists.
func TestCompactListAnswersCallsAsTheFullList(t *testing.T) {
	full := newHarness(t, harnessOpts{})
	compact := newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithCompactList()}})
	calls := [][2]string{
		{"create_note", `{"titel":"Buy milk"}`},
		{"create_note", `{"title":7,"priority":"high"}`},
		{"create_note", `{"title":"Buy milk","description":"d","client_request_id":"r1"}`},
		{"create_note", `{"title":"Buy milk","description":"d","client_request_id":"r1"}`},
		{"validate_write", `{"operation":"create_nte","payload":"{}"}`},
		{"validate_write", `{"operation":"create_note","payload":"{\"title\":\"x\"}"}`},
		{"get_write_schema", `{"operation":"delete_not"}`},
		{"get_write_schema", `{"operation":"create_note"}`},
	}
	for _, c := range calls {
		want, got := full.call(alice, c[0], c[1]), compact.call(alice, c[0], c[1])
		if got != want {
			t.Fatalf("%s(%s):\ncompact: %v %s\nfull:    %v %s", c[0], c[1], got.isError, got.text, want.isError, want.text)
		}
	}
	if r := full.call(alice, "create_note", `{"titel":"Buy milk"}`); !strings.Contains(r.text, `"did_you_mean":["title"]`) {
		t.Fatalf("the typo got no did-you-mean: %s", r.text)
	}
	// get_write_schema describes the tool in full: its input and output
	// schemas are the ones the full list shows.
	var answer struct {
		In  any `json:"input_schema"`
		Out any `json:"output_schema"`
	}
	var listed struct {
		In  any `json:"inputSchema"`
		Out any `json:"outputSchema"`
	}
	schema := compact.call(alice, "get_write_schema", `{"operation":"create_note"}`)
	if err := json.Unmarshal([]byte(schema.text), &answer); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(listTools(t, full)["create_note"]), &listed); err != nil {
		t.Fatal(err)
	}
	if listed.In == nil || !reflect.DeepEqual(answer.In, listed.In) || !reflect.DeepEqual(answer.Out, listed.Out) {
		t.Fatalf("get_write_schema answered\n%v\n%v\nthe full list shows\n%v\n%v", answer.In, answer.Out, listed.In, listed.Out)
	}
}
