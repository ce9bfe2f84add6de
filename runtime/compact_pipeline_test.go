package runtime_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

func TestCompactListShowsNameOneLineHintsAndSchemaHash(t *testing.T) {
	h := newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithCompactList()}})
	tools := listTools(t, h)
	mustEqualJSON(t, tools["create_note"], `{
		"name": "create_note",
		"description": "Create a note in the active model.",
		"inputSchema": {"type": "object", "additionalProperties": true},
		"annotations": {"readOnlyHint": false, "destructiveHint": false, "idempotentHint": false, "openWorldHint": false},
		"_meta": {"mcpwrite/schema_hash": "`+noteHash(t, "create_note")+`"}
	}`)
	// Destructive and open world are the protocol's defaults when absent.
	mustEqualJSON(t, tools["delete_note"], `{
		"name": "delete_note",
		"description": "Delete a note.",
		"inputSchema": {"type": "object", "additionalProperties": true},
		"annotations": {"readOnlyHint": false, "idempotentHint": true, "openWorldHint": false},
		"_meta": {"mcpwrite/schema_hash": "`+noteHash(t, "delete_note")+`"}
	}`)
	if got, want := tools["_names"], "apply_proposal,create_note,delete_note,discard_proposal,get_write_schema,list_priorities,validate_write"; got != want {
		t.Fatalf("tools %s, want %s", got, want)
	}
	for _, name := range []string{"validate_write", "get_write_schema"} {
		if strings.Contains(tools[name], `"enum"`) || !strings.Contains(tools[name], `(a tool name from tools/list)`) {
			t.Errorf("%s lists the operations in the compact list:\n%s", name, tools[name])
		}
	}
	if !strings.Contains(tools["get_write_schema"], `tools/list shows tools compactly: call this before a tool's first call, again when its schema_hash changes.`) {
		t.Errorf("get_write_schema does not say when to call it:\n%s", tools["get_write_schema"])
	}
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
