package runtime_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/gosdk"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

func listTools(t *testing.T, h *harness) map[string]string {
	t.Helper()
	res, err := h.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	out := map[string]string{}
	var names []string
	for _, tool := range res.Tools {
		b, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		out[tool.Name] = string(b)
		names = append(names, tool.Name)
	}
	out["_names"] = strings.Join(names, ",")
	return out
}

func TestToolsListAdvertisesWriteToolExactly(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	tools := listTools(t, h)
	mustEqualJSON(t, tools["create_note"], `{
		"_meta": {"mcpwrite/classification": "SAFE_CREATE", "mcpwrite/confirmation": "DIRECT", "mcpwrite/kind": "CREATE", "mcpwrite/schema_hash": "`+noteHash(t, "create_note")+`", "mcpwrite/schema_version": "`+notesVersion+`"},
		"annotations": {"title": "Create note", "readOnlyHint": false, "destructiveHint": false, "idempotentHint": false, "openWorldHint": false},
		"name": "create_note",
		"title": "Create note",
		"description": "Create a note in the active model.",
		"inputSchema": {"type": "object", "properties": {
			"title": {"type": "string", "description": "Note title"},
			"description": {"type": "string", "description": "What the note is about"},
			"priority": {"type": "integer"},
			"client_request_id": {"type": "string"},
			"dry_run": {"type": "boolean"}},
			"required": ["title"], "additionalProperties": false},
		"outputSchema": {"type": "object", "properties": {"success": {"type": "boolean"}, "note": {"type": "object"}}, "required": ["success"]}
	}`)
	if got, want := tools["_names"], "apply_proposal,create_note,delete_note,discard_proposal,get_write_schema,list_priorities,validate_write"; got != want {
		t.Fatalf("tools %s, want %s", got, want)
	}
}

func TestServiceToolsHaveHonestHintsAndPortableSchemas(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	tools := listTools(t, h)
	tests := []struct {
		tool, annotations, input string
	}{{
		tool:        "validate_write",
		annotations: `{"title":"Validate a write","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}`,
		input: `{"type":"object","properties":{
			"operation":{"type":"string","description":"The write tool to validate","enum":["create_note","delete_note"]},
			"payload":{"type":"string","description":"The arguments that would be sent to the write tool, as JSON text of an object, e.g. \"{\\\"name\\\":\\\"OrderService\\\"}\""}},
			"required":["operation","payload"],"additionalProperties":false}`,
	}, {
		tool:        "get_write_schema",
		annotations: `{"title":"Get a write schema","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}`,
		input: `{"type":"object","properties":{"operation":{"type":"string","description":"The write tool to describe","enum":["create_note","delete_note"]}},
			"required":["operation"],"additionalProperties":false}`,
	}, {
		tool:        "list_priorities",
		annotations: `{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}`,
		input: `{"type":"object","properties":{"group":{"type":"string","description":"Only list values of this group","enum":["later","now"]}},
			"additionalProperties":false}`,
	}, {
		tool:        "apply_proposal",
		annotations: `{"title":"Apply a proposal","readOnlyHint":false,"destructiveHint":true,"idempotentHint":true,"openWorldHint":false}`,
		input: `{"type":"object","properties":{"proposal_id":{"type":"string","description":"The proposal_id returned by the write tool"}},
			"required":["proposal_id"],"additionalProperties":false}`,
	}, {
		tool:        "discard_proposal",
		annotations: `{"title":"Discard a proposal","readOnlyHint":false,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}`,
		input: `{"type":"object","properties":{"proposal_id":{"type":"string","description":"The proposal_id returned by the write tool"}},
			"required":["proposal_id"],"additionalProperties":false}`,
	}}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			var tool struct {
				Annotations  json.RawMessage `json:"annotations"`
				InputSchema  json.RawMessage `json:"inputSchema"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			}
			if err := json.Unmarshal([]byte(tools[tt.tool]), &tool); err != nil {
				t.Fatalf("%s: %v", tt.tool, err)
			}
			mustEqualJSON(t, string(tool.Annotations), tt.annotations)
			mustEqualJSON(t, string(tool.InputSchema), tt.input)
			for _, banned := range []string{"$ref", "anyOf", "oneOf", "allOf", `"type":[`} {
				if strings.Contains(string(tool.InputSchema)+string(tool.OutputSchema), banned) {
					t.Fatalf("%s schema uses %s", tt.tool, banned)
				}
			}
			if len(tool.OutputSchema) == 0 {
				t.Fatalf("%s has no output schema", tt.tool)
			}
		})
	}
}

func TestRegisterRejectsMismatchedDocumentAndBindings(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*impl.Service)
		want   string
	}{{
		name:   "service missing from the document",
		mutate: func(s *impl.Service) { s.Name = "notes.v1.Other" },
		want:   `runtime: service notes.v1.Other: not in the schema document of "notes/v1/notes.proto"`,
	}, {
		name:   "document is not JSON",
		mutate: func(s *impl.Service) { s.Doc = []byte("{") },
		want:   "runtime: service notes.v1.NoteService: parse schema document: unexpected end of JSON input",
	}, {
		name:   "document tool without binding",
		mutate: func(s *impl.Service) { s.Tools = s.Tools[:1] },
		want:   `runtime: service notes.v1.NoteService: tool "delete_note" is in the schema document but has no binding`,
	}, {
		name: "binding without document tool",
		mutate: func(s *impl.Service) {
			extra := *s.Tools[0]
			extra.Name = "archive_note"
			s.Tools = append(s.Tools, &extra)
		},
		want: `runtime: service notes.v1.NoteService: tool "archive_note" is bound but not in the schema document`,
	}, {
		name:   "tool bound twice",
		mutate: func(s *impl.Service) { s.Tools = append(s.Tools, s.Tools[0]) },
		want:   `runtime: service notes.v1.NoteService: tool "create_note" is bound twice`,
	}, {
		name:   "binding without Invoke",
		mutate: func(s *impl.Service) { s.Tools[1].Invoke = nil },
		want:   `runtime: service notes.v1.NoteService: tool "delete_note": binding lacks NewRequest, Decode, Enrich or Invoke`,
	}, {
		name: "confirmation without an apply tool",
		mutate: func(s *impl.Service) {
			s.Doc = []byte(strings.Replace(string(s.Doc), `"apply_tool": "apply_proposal",`, "", 1))
		},
		want: `runtime: service notes.v1.NoteService: tool "delete_note" asks for ELICIT confirmation but the service has no apply tool`,
	}, {
		name: "input schema that is not an object",
		mutate: func(s *impl.Service) {
			s.Doc = []byte(strings.Replace(string(s.Doc), `"input_schema": {"type": "object", "properties": {
          "id"`, `"input_schema": {"type": "array", "properties": {
          "id"`, 1))
		},
		want: `runtime: service notes.v1.NoteService: tool "delete_note": input schema: type must be "object", got array`,
	}, {
		name: "tool name clash with a service tool",
		mutate: func(s *impl.Service) {
			s.Doc = []byte(strings.Replace(string(s.Doc), `"schema_tool": "get_write_schema"`, `"schema_tool": "create_note"`, 1))
		},
		want: `runtime: service notes.v1.NoteService: tool name "create_note" is used twice`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := newDomain().service()
			tt.mutate(svc)
			server := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v0"}, nil)
			err := gosdk.Register(server, svc)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("got %v\nwant %s", err, tt.want)
			}
		})
	}
}

// noteHash is the schema hash of a notes tool: sha256 of its document entry.
func noteHash(t *testing.T, tool string) string {
	t.Helper()
	var doc schemadoc.Document
	if err := json.Unmarshal([]byte(notesDoc), &doc); err != nil {
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
