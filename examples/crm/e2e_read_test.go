package crm_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// readTools are the reads the tool-surface decision names: per-entity list
// and get, and find_people_at_org where a domain tool earns its place.
var readTools = []string{"list_people", "get_person", "list_orgs", "get_org", "list_notes", "get_note", "find_people_at_org"}

// The records of setup as reads answer them.
const (
	adaJSON  = `{"id":"{{ada}}","first_name":"Ada","last_name":"Lovelace","email":"ada@example.org","org_id":"{{acme}}","version":2,"created_at":"2026-06-28T19:52:15Z","updated_at":"2026-06-28T19:52:15Z"}`
	dupJSON  = `{"id":"{{dup}}","first_name":"Ada","last_name":"L.","phone":"+44 20 7946 0000","title":"Analyst","version":1,"created_at":"2026-06-28T19:52:15Z","updated_at":"2026-06-28T19:52:15Z"}`
	acmeJSON = `{"id":"{{acme}}","name":"Analytical Engines Ltd","domain":"engines.example","industry":"Computing","version":1,"created_at":"2026-06-28T19:52:15Z","updated_at":"2026-06-28T19:52:15Z"}`
)

// Reads answer at once, with the records themselves: no proposal, nothing
// for the user to confirm, and the domain sees no write.
func TestReadsAnswerAtOnceWithTheRecords(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada)
	f := setup(t, cs)
	writes := len(s.rec.received())
	tests := []struct{ tool, args, want string }{
		{"get_person", `{"person_id":"{{ada}}"}`, `{"success":true,"person":` + adaJSON + `,
			"suggestions":["Call update_person to update a person's details; only the fields sent change","Call add_note_to_person to add a note about a person"],"warnings":[]}`},
		// The seed's own example of the domain tool, as the proto documents it.
		{"find_people_at_org", `{"org_name":"Analytical Engines Ltd"}`, `{"success":true,"org":` + acmeJSON + `,"people":[` + adaJSON + `],"suggestions":[],"warnings":[]}`},
		{"find_people_at_org", `{"org_name":"analytical engines ltd"}`, `{"success":true,"org":` + acmeJSON + `,"people":[` + adaJSON + `],"suggestions":[],"warnings":[]}`},
		{"find_people_at_org", `{"org_id":"{{acme}}"}`, `{"success":true,"org":` + acmeJSON + `,"people":[` + adaJSON + `],"suggestions":[],"warnings":[]}`},
		// Ties in creation time are ordered by id.
		{"list_people", `{"query":"Ada","page_size":10}`, `{"success":true,"people":[` + dupJSON + `,` + adaJSON + `],"suggestions":[],"warnings":[]}`},
		{"list_people", `{"query":"EXAMPLE.ORG"}`, `{"success":true,"people":[` + adaJSON + `],"suggestions":[],"warnings":[]}`},
		{"list_people", `{"query":"Babbage"}`, `{"success":true,"suggestions":[],"warnings":[]}`},
		{"get_org", `{"org_id":"{{acme}}"}`, `{"success":true,"org":` + acmeJSON + `,
			"suggestions":["Call find_people_at_org to find the people who work at an organisation, named by its id or its name, in one call"],"warnings":[]}`},
		{"list_orgs", `{"query":"engines"}`, `{"success":true,"orgs":[` + acmeJSON + `],"suggestions":[],"warnings":[]}`},
		{"get_note", `{"note_id":"{{orgNote}}"}`, `{"success":true,
			"note":{"id":"{{orgNote}}","body":"Renewal due in March","org_id":"{{acme}}","version":1,"created_at":"2026-06-28T19:52:15Z","updated_at":"2026-06-28T19:52:15Z"},
			"suggestions":["Call update_note to replace the text of a note"],"warnings":[]}`},
		{"list_notes", `{"person_id":"{{ada}}"}`, `{"success":true,
			"notes":[{"id":"{{adaNote}}","body":"Met at the Difference Engine demo","person_id":"{{ada}}","version":1,"created_at":"2026-06-28T19:52:15Z","updated_at":"2026-06-28T19:52:15Z"}],
			"suggestions":[],"warnings":[]}`},
		{"list_notes", `{"org_id":"{{acme}}"}`, `{"success":true,
			"notes":[{"id":"{{orgNote}}","body":"Renewal due in March","org_id":"{{acme}}","version":1,"created_at":"2026-06-28T19:52:15Z","updated_at":"2026-06-28T19:52:15Z"}],
			"suggestions":[],"warnings":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
			out, isErr := call(t, cs, tt.tool, f.expand(tt.args))
			if isErr {
				t.Fatalf("%s: %v", tt.tool, out)
			}
			assertJSON(t, out, f.expand(tt.want))
		})
	}
	if n := len(s.rec.received()); n != writes {
		t.Errorf("the domain received %d writes during the reads", n-writes)
	}
	// Every note, without a filter.
	out, _ := call(t, cs, "list_notes", `{}`)
	if n := len(out["notes"].([]any)); n != 3 {
		t.Errorf("list_notes lists %d notes, want 3: %v", n, out)
	}
}

// next_page_token pages through every record once, and the last page has
// none.
func TestListPagesThroughEveryRecordOnce(t *testing.T) {
	cs := newServer(t).connect(ada)
	f := setup(t, cs)
	token := base64.RawURLEncoding.EncodeToString([]byte("after:2026-06-28T19:52:15.000000000Z|" + f.dup))
	first, isErr := call(t, cs, "list_people", `{"page_size":1}`)
	if isErr {
		t.Fatal(first)
	}
	assertJSON(t, first, f.expand(`{"success":true,"people":[`+dupJSON+`],"next_page_token":"`+token+`","suggestions":[],"warnings":[]}`))
	second, isErr := call(t, cs, "list_people", `{"page_size":1,"page_token":"`+token+`"}`)
	if isErr {
		t.Fatal(second)
	}
	assertJSON(t, second, f.expand(`{"success":true,"people":[`+adaJSON+`],"suggestions":[],"warnings":[]}`))
}

func TestReadMistakesAreAnsweredWithTheFix(t *testing.T) {
	entry := func(e string) string { return `{"success":false,"error":` + e + `,"errors":[` + e + `]}` }
	writes := `["create_person","update_person","delete_person","create_org","update_org","delete_org","create_note","update_note","delete_note","link_person_to_org","add_note_to_person","merge_people"]`
	tests := []struct{ name, tool, args, want string }{
		{"page_size below its minimum", "list_people", `{"page_size":0}`,
			entry(`{"code":"CONSTRAINT_VIOLATION","field":"page_size","message":"must be at least 1, got 0"}`)},
		{"page_size above its maximum and a dry_run", "list_orgs", `{"page_size":101,"dry_run":true}`,
			`{"success":false,"error":{"code":"CONSTRAINT_VIOLATION","field":"page_size","message":"must be at most 100, got 101"},
			"errors":[{"code":"CONSTRAINT_VIOLATION","field":"page_size","message":"must be at most 100, got 101"},
			{"code":"UNKNOWN_FIELD","field":"dry_run","message":"unknown field \"dry_run\": list_orgs is a read tool and takes no dry_run","suggestions":{"hint":"A read changes nothing; call it without dry_run."}}]}`},
		{"a page token this server never issued", "list_notes", `{"page_token":"nope"}`,
			entry(`{"code":"VALIDATION_ERROR","field":"page_token","message":"page_token is not one this server issued: pass the previous answer's next_page_token unchanged, or omit page_token for the first page"}`)},
		{"an idempotency key", "get_person", `{"person_id":"{{ada}}","client_request_id":"k1"}`,
			entry(`{"code":"UNKNOWN_FIELD","field":"client_request_id","message":"unknown field \"client_request_id\": get_person is a read tool and takes no client_request_id","suggestions":{"hint":"A read changes nothing and is safe to repeat; leave client_request_id out."}}`)},
		{"no organisation named", "find_people_at_org", `{}`,
			entry(`{"code":"MISSING_REQUIRED_FIELD","field":"org_id","message":"set exactly one of org_id, org_name"}`)},
		{"an organisation named twice", "find_people_at_org", `{"org_id":"{{acme}}","org_name":"Analytical Engines Ltd"}`,
			entry(`{"code":"VALIDATION_ERROR","field":"org_name","message":"set only one of org_id, org_name, not org_id and org_name"}`)},
		{"an unknown organisation name", "find_people_at_org", `{"org_name":"Difference Engines"}`,
			entry(`{"code":"NOT_FOUND","details":{"resource_name":"Difference Engines","resource_type":"org"},"field":"org_name","message":"no organisation named \"Difference Engines\"",
				"suggestions":{"hint":"None of your organisations has this name; call list_orgs with a query to find its exact name, or pass org_id."}}`)},
		{"notes about a person that does not exist", "list_notes", `{"person_id":"per_019f0fca-0000-7000-8000-000000000000"}`,
			entry(`{"code":"NOT_FOUND","details":{"resource_name":"per_019f0fca-0000-7000-8000-000000000000","resource_type":"person"},"field":"person_id","message":"person per_019f0fca-0000-7000-8000-000000000000 not found",
				"suggestions":{"hint":"` + notFoundPersonHint + `"}}`)},
		{"validate_write asked about a read", "validate_write", `{"operation":"get_person","payload":"{\"person_id\":\"{{ada}}\"}"}`,
			entry(`{"code":"UNKNOWN_OPERATION","details":{"kind":"READ","operation":"get_person"},"field":"operation",
				"message":"get_person is a read tool: validate_write checks writes only; call get_person directly, it changes nothing",
				"suggestions":{"hint":"Call get_person itself; use validate_write only before a write.","valid_values":` + writes + `}}`)},
	}
	s := newServer(t)
	cs := s.connect(ada)
	f := setup(t, cs)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, isErr := call(t, cs, tt.tool, f.expand(tt.args))
			if !isErr {
				t.Fatalf("%s %s succeeded: %v", tt.tool, tt.args, out)
			}
			assertJSON(t, out, f.expand(tt.want))
		})
	}
}

// tools/list shows each read as what it is: read-only, not destructive,
// idempotent, without the write arguments or the validate-first tip; and
// get_write_schema describes it as a read.
func TestToolsListShowsEveryReadAsReadOnly(t *testing.T) {
	cs := newServer(t).connect(ada)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		byName[tool.Name] = tool
	}
	no := false
	for _, name := range readTools {
		tool := byName[name]
		if tool == nil {
			t.Errorf("%s is not listed", name)
			continue
		}
		want := &mcp.ToolAnnotations{Title: tool.Title, ReadOnlyHint: true, DestructiveHint: &no, IdempotentHint: true, OpenWorldHint: &no}
		if diff := cmp.Diff(want, tool.Annotations); diff != "" {
			t.Errorf("%s annotations (-want +got):\n%s", name, diff)
		}
		if got := []any{tool.Meta["mcpwrite/kind"], tool.Meta["mcpwrite/classification"], tool.Meta["mcpwrite/confirmation"]}; !cmp.Equal(got, []any{"READ", "read_only", "DIRECT"}) {
			t.Errorf("%s meta kind, classification, confirmation = %v", name, got)
		}
		schema, _ := json.Marshal(tool.InputSchema)
		if strings.Contains(string(schema), `"client_request_id"`) || strings.Contains(string(schema), `"dry_run"`) {
			t.Errorf("%s offers a write's arguments: %s", name, schema)
		}
		if !strings.HasSuffix(tool.Description, " Read-only: changes nothing.") || strings.Contains(tool.Description, "validate_write") {
			t.Errorf("%s description %q", name, tool.Description)
		}
	}
	out, isErr := call(t, cs, "get_write_schema", `{"operation":"list_people"}`)
	if isErr {
		t.Fatal(out)
	}
	pageSize := out["input_schema"].(map[string]any)["properties"].(map[string]any)["page_size"]
	got := map[string]any{"kind": out["kind"], "classification": out["classification"], "confirmation": out["confirmation"], "page_size": pageSize}
	assertJSON(t, got, `{"kind":"READ","classification":"read_only","confirmation":"DIRECT",
		"page_size":{"type":"integer","minimum":1,"maximum":100,"default":50,"description":"Maximum results per page, 1-100; default 50."}}`)
}
