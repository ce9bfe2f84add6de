package mcpgo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	mgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/compactlist"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
)

func TestToolOfKeepsSchemasHintsAndMeta(t *testing.T) {
	f, tr := false, true
	got, err := toolOf(&toolcall.Tool{
		Name: "create_note", Title: "Create note", Description: "Create a note.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}},"additionalProperties":false}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"success":{"type":"boolean"}}}`),
		Annotations:  &toolcall.Annotations{Title: "Create note", DestructiveHint: &f, OpenWorldHint: &tr, IdempotentHint: true},
		Meta:         map[string]any{"mcpwrite/schema_hash": "sha256:0011223344556677"},
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"_meta":{"mcpwrite/schema_hash":"sha256:0011223344556677"},` +
		`"annotations":{"title":"Create note","readOnlyHint":false,"destructiveHint":false,"idempotentHint":true,"openWorldHint":true},` +
		`"description":"Create a note.",` +
		`"inputSchema":{"type":"object","properties":{"title":{"type":"string"}},"additionalProperties":false},` +
		`"name":"create_note",` +
		`"outputSchema":{"type":"object","properties":{"success":{"type":"boolean"}}},"title":"Create note"}`
	if string(b) != want {
		t.Fatalf("mcp-go tool\n%s\nwant\n%s", b, want)
	}
}

func TestArgumentsAreTheClientsBytes(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  mgo.CallToolRequest
		want string
	}{
		{"raw bytes kept", mgo.CallToolRequest{Params: mgo.CallToolParams{RawArguments: json.RawMessage(`{"n":12345678901234567890}`), Arguments: map[string]any{"n": 1.0}}}, `{"n":12345678901234567890}`},
		{"decoded map", mgo.CallToolRequest{Params: mgo.CallToolParams{Arguments: map[string]any{"title": "x"}}}, `{"title":"x"}`},
		{"raw message", mgo.CallToolRequest{Params: mgo.CallToolParams{Arguments: json.RawMessage(`{"a":1}`)}}, `{"a":1}`},
		{"none", mgo.CallToolRequest{}, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := arguments(tc.req)
			if err != nil || string(got) != tc.want {
				t.Fatalf("arguments = %s, %v; want %s", got, err, tc.want)
			}
		})
	}
	if _, err := arguments(mgo.CallToolRequest{Params: mgo.CallToolParams{Name: "t", Arguments: map[string]any{"c": make(chan int)}}}); err == nil {
		t.Fatal("arguments that cannot be marshalled gave no error")
	}
}

func TestResultOfRefusesWhatMCPGoCannotCarry(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  *toolcall.Result
		want string
	}{
		{"nil", nil, "mcpgo: the tool handler returned no result"},
		{"input request", &toolcall.Result{RequestState: "s", InputRequests: map[string]*toolcall.ElicitRequest{"x": {Message: "m"}}}, "mcpgo: the tool asked for an input round trip, which mcp-go sessions do not serve"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := resultOf(tc.res); err == nil || err.Error() != tc.want {
				t.Fatalf("resultOf: %v, want %s", err, tc.want)
			}
		})
	}
	got, err := resultOf(&toolcall.Result{IsError: true, Content: []string{`{"success":false}`}, StructuredContent: json.RawMessage(`{"success":false}`)})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	if want := `{"content":[{"type":"text","text":"{\"success\":false}"}],"isError":true,"structuredContent":{"success":false}}`; string(b) != want {
		t.Fatalf("result\n%s\nwant\n%s", b, want)
	}
}

func TestContentOfReadsTheFormAnswer(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
		err  bool
	}{
		{nil, `null`, false},
		{map[string]any{"confirm": true}, `{"confirm":true}`, false},
		{json.RawMessage(`{"confirm":false}`), `{"confirm":false}`, false},
		{"yes", ``, true},
	} {
		got, err := contentOf(tc.in)
		if tc.err != (err != nil) {
			t.Fatalf("contentOf(%v): error %v", tc.in, err)
		}
		if b, _ := json.Marshal(got); !tc.err && string(b) != tc.want {
			t.Fatalf("contentOf(%v) = %s, want %s", tc.in, b, tc.want)
		}
	}
}

func TestAskerNeverAsksAnAuthenticatedCallOrASessionlessOne(t *testing.T) {
	if (asker{authenticated: true, ctx: context.Background()}).CanAsk() {
		t.Error("an authenticated call may be asked in the call")
	}
	if (asker{ctx: context.Background()}).CanAsk() {
		t.Error("a call without a client session may be asked")
	}
}

// A compact tool is listed as on go-sdk: only the hints that differ from
// the defaults, no _meta; the list's _meta has the hash of its compact
// tools, and the other tools are listed in full.
func TestCompactToolsAreListedAsOnGoSDK(t *testing.T) {
	f, tr := false, true
	open := json.RawMessage(`{"type":"object","additionalProperties":true}`)
	tools := []*toolcall.Tool{
		{Name: "create_note", Description: "Create a note.", InputSchema: open,
			Annotations: &toolcall.Annotations{DestructiveHint: &f, OpenWorldHint: &f},
			Meta:        map[string]any{compactlist.MetaKey: compactlist.Hash("sha256:0011223344556677")}},
		{Name: "delete_note", Description: "Delete a note.", InputSchema: open,
			Annotations: &toolcall.Annotations{IdempotentHint: true, OpenWorldHint: &f},
			Meta:        map[string]any{compactlist.MetaKey: compactlist.Hash("sha256:8899aabbccddeeff")}},
		{Name: "get_write_schema", Description: "Describe a tool.", InputSchema: json.RawMessage(`{"type":"object"}`),
			Annotations: &toolcall.Annotations{ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: &f, OpenWorldHint: &tr},
			Meta:        map[string]any{"mcpwrite/schema_version": "v1"}},
	}
	s := server.NewMCPServer("notes", "1.0.0", server.WithToolCapabilities(false))
	var st []server.ServerTool
	for _, tool := range tools {
		mt, err := toolOf(tool)
		if err != nil {
			t.Fatal(err)
		}
		st = append(st, server.ServerTool{Tool: mt})
	}
	listCompactly(s, map[string]compactlist.Hash{"create_note": "sha256:0011223344556677", "delete_note": "sha256:8899aabbccddeeff"})
	s.AddTools(st...)
	resp := s.HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	b, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("create_note sha256:0011223344556677\ndelete_note sha256:8899aabbccddeeff\n"))
	want := `{"jsonrpc":"2.0","id":1,"result":{"_meta":{"mcpwrite/schema_hash":"sha256:` + hex.EncodeToString(sum[:8]) + `"},"tools":[` +
		`{"annotations":{"destructiveHint":false,"openWorldHint":false},"description":"Create a note.","inputSchema":{"type":"object","additionalProperties":true},"name":"create_note"},` +
		`{"annotations":{"idempotentHint":true,"openWorldHint":false},"description":"Delete a note.","inputSchema":{"type":"object","additionalProperties":true},"name":"delete_note"},` +
		`{"_meta":{"mcpwrite/schema_version":"v1"},"annotations":{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":true},"description":"Describe a tool.","inputSchema":{"type":"object"},"name":"get_write_schema"}]}}`
	if string(b) != want {
		t.Fatalf("mcp-go tools/list\n%s\nwant\n%s", b, want)
	}
}

// The schemas mcp-go keeps are compact (mcp-go reads the input schema
// again on every call); on the wire they are the same bytes.
func TestToolOfSchemasAreCompact(t *testing.T) {
	in := json.RawMessage("{\n  \"type\": \"object\",\n  \"properties\": {\n    \"title\": { \"type\": \"string\", \"description\": \"a <b>\" }\n  }\n}")
	out := json.RawMessage("{\n  \"type\": \"object\"\n}")
	got, err := toolOf(&toolcall.Tool{Name: "create_note", InputSchema: in, OutputSchema: out})
	if err != nil {
		t.Fatal(err)
	}
	if s := string(got.RawInputSchema); s != `{"type":"object","properties":{"title":{"type":"string","description":"a <b>"}}}` {
		t.Errorf("RawInputSchema = %s", s)
	}
	if s := string(got.RawOutputSchema); s != `{"type":"object"}` {
		t.Errorf("RawOutputSchema = %s", s)
	}
	listed, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	asGiven, err := json.Marshal(mgo.Tool{Name: "create_note", RawInputSchema: in, RawOutputSchema: out, Annotations: got.Annotations})
	if err != nil {
		t.Fatal(err)
	}
	if string(listed) != string(asGiven) {
		t.Errorf("listed\n%s\nwant\n%s", listed, asGiven)
	}
}
