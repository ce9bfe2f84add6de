package mcpgo

import (
	"context"
	"encoding/json"
	"testing"

	mgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestToolOfKeepsSchemasHintsAndMeta(t *testing.T) {
	f, tr := false, true
	got, err := toolOf(&mcp.Tool{
		Name: "create_note", Title: "Create note", Description: "Create a note.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}},"additionalProperties":false}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"success":{"type":"boolean"}}}`),
		Annotations:  &mcp.ToolAnnotations{Title: "Create note", DestructiveHint: &f, OpenWorldHint: &tr, IdempotentHint: true},
		Meta:         mcp.Meta{"mcpwrite/schema_hash": "sha256:0011223344556677"},
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
		res  *mcp.CallToolResult
		want string
	}{
		{"nil", nil, "mcpgo: the tool handler returned no result"},
		{"image", &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{}}}, "mcpgo: unexpected *mcp.ImageContent content in a tool result"},
		{"input request", &mcp.CallToolResult{RequestState: "s", InputRequests: mcp.InputRequestMap{"x": &mcp.ElicitParams{Message: "m"}}}, "mcpgo: the tool asked for an input round trip, which mcp-go sessions do not serve"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := resultOf(tc.res); err == nil || err.Error() != tc.want {
				t.Fatalf("resultOf: %v, want %s", err, tc.want)
			}
		})
	}
	got, err := resultOf(&mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: `{"success":false}`}}, StructuredContent: json.RawMessage(`{"success":false}`)})
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
