package mcptest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// recordingTB records Fatalf instead of stopping, so a test can assert that a
// helper reported a failure and with which message.
type recordingTB struct {
	testing.TB
	mu       sync.Mutex
	fatals   []string
	cleanups []func()
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Fatalf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
}

func (r *recordingTB) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

// runCleanups runs the registered cleanups last first, as testing does.
func (r *recordingTB) runCleanups() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

var objectSchema = map[string]any{"type": "object"}

// raw registers a tool answering with res exactly as given, so tests can
// send results that break the contract.
func raw(s *mcp.Server, name string, res *mcp.CallToolResult) {
	s.AddTool(&mcp.Tool{Name: name, InputSchema: objectSchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return res, nil
	})
}

func text(s string) []mcp.Content { return []mcp.Content{&mcp.TextContent{Text: s}} }

// testServer has one tool per shape of answer Call must accept or refuse.
func testServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcptest", Version: "test"}, nil)
	type in struct {
		Name string `json:"name"`
	}
	type out struct {
		Greeting string `json:"greeting"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "greet"}, func(_ context.Context, _ *mcp.CallToolRequest, i in) (*mcp.CallToolResult, out, error) {
		return nil, out{Greeting: "hello, " + i.Name}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "whoami"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, map[string]any, error) {
		return nil, map[string]any{"client": req.ClientInfo().Name, "protocol": req.ProtocolVersion()}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "confirm"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, map[string]any, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Delete the invoice?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"confirm": map[string]any{"type": "boolean"}}}})
		if err != nil {
			return nil, nil, err
		}
		return nil, map[string]any{"action": res.Action, "content": res.Content}, nil
	})
	raw(s, "failed", &mcp.CallToolResult{IsError: true, Content: text(`{"success":false,"error":{"code":"NOT_FOUND"}}`),
		StructuredContent: map[string]any{"success": false, "error": map[string]any{"code": "NOT_FOUND"}}})
	raw(s, "reordered", &mcp.CallToolResult{Content: text("{ \"b\": [1, 2.0],\n  \"a\": {\"x\": null} }"),
		StructuredContent: map[string]any{"a": map[string]any{"x": nil}, "b": []any{1, 2}}})
	raw(s, "mismatch", &mcp.CallToolResult{Content: text(`{"success":true,"id":"a"}`),
		StructuredContent: map[string]any{"success": true, "id": "b"}})
	raw(s, "missing-structured", &mcp.CallToolResult{Content: text(`{"success":true}`)})
	raw(s, "two-blocks", &mcp.CallToolResult{Content: append(text(`{}`), &mcp.TextContent{Text: `{}`}), StructuredContent: map[string]any{}})
	raw(s, "no-blocks", &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]any{}})
	raw(s, "image", &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: []byte{1}, MIMEType: "image/png"}}, StructuredContent: map[string]any{}})
	raw(s, "not-json", &mcp.CallToolResult{Content: text(`created`), StructuredContent: map[string]any{}})
	raw(s, "array", &mcp.CallToolResult{Content: text(`[1]`), StructuredContent: []any{1}})
	return s
}

func TestCallReturnsTheCheckedAnswer(t *testing.T) {
	tests := []struct {
		name, tool, args string
		want             mcptest.Result
	}{
		{"typed tool answer", "greet", `{"name":"Ada"}`, mcptest.Result{
			Text: `{"greeting":"hello, Ada"}`, Body: map[string]any{"greeting": "hello, Ada"}}},
		{"error envelope is a result with IsError", "failed", `{}`, mcptest.Result{IsError: true,
			Text: `{"success":false,"error":{"code":"NOT_FOUND"}}`,
			Body: map[string]any{"success": false, "error": map[string]any{"code": "NOT_FOUND"}}}},
		{"key order, spacing and number spelling do not matter", "reordered", `{}`, mcptest.Result{
			Text: "{ \"b\": [1, 2.0],\n  \"a\": {\"x\": null} }",
			Body: map[string]any{"a": map[string]any{"x": nil}, "b": []any{float64(1), float64(2)}}}},
	}
	cs := mcptest.Connect(t, testServer(), mcptest.Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recordingTB{}
			got := mcptest.Call(rec, cs, tt.tool, tt.args)
			if len(rec.fatals) != 0 {
				t.Fatalf("Call failed the test: %q", rec.fatals)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCallFailsTheTestWhenTheContractIsBroken(t *testing.T) {
	tests := []struct {
		name, tool, args string
		want             string
	}{
		{"text differs from structuredContent", "mismatch", `{}`,
			"mismatch: text content differs from structuredContent\ntext:              {\"success\":true,\"id\":\"a\"}\nstructuredContent: {\"id\":\"b\",\"success\":true}"},
		{"structuredContent missing", "missing-structured", `{}`,
			"missing-structured: text content differs from structuredContent\ntext:              {\"success\":true}\nstructuredContent: null"},
		{"two content blocks", "two-blocks", `{}`, "two-blocks: want exactly one content block, got 2"},
		{"no content block", "no-blocks", `{}`, "no-blocks: want exactly one content block, got 0"},
		{"image instead of text", "image", `{}`, "image: content is *mcp.ImageContent, want *mcp.TextContent"},
		{"text is not JSON", "not-json", `{}`, "not-json: text content is not JSON (invalid character 'c' looking for beginning of value): created"},
		{"answer is not an object", "array", `{}`, "array: answer is not a JSON object: [1]"},
		{"unknown tool is a protocol error", "nope", `{}`,
			`nope: protocol error: calling "tools/call": unknown tool "nope" (bad input must come back as a tool result)`},
	}
	cs := mcptest.Connect(t, testServer(), mcptest.Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recordingTB{}
			got := mcptest.Call(rec, cs, tt.tool, tt.args)
			if diff := cmp.Diff([]string{tt.want}, rec.fatals); diff != "" {
				t.Fatalf("Fatalf calls (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(mcptest.Result{}, got); diff != "" {
				t.Fatalf("a failed call returned (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConnectAnnouncesTheChosenProtocolAndName(t *testing.T) {
	tests := []struct {
		name string
		opts mcptest.Options
		want map[string]any
	}{
		{"defaults", mcptest.Options{}, map[string]any{"client": mcptest.DefaultClientName, "protocol": "2026-07-28"}},
		{"older protocol and own name", mcptest.Options{Protocol: "2025-11-25", ClientName: "agent-7"},
			map[string]any{"client": "agent-7", "protocol": "2025-11-25"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := mcptest.Connect(t, testServer(), tt.opts)
			if diff := cmp.Diff(tt.want, mcptest.Call(t, cs, "whoami", `{}`).Body); diff != "" {
				t.Fatalf("server saw (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConnectClosesTheSessionWhenTheTestEnds(t *testing.T) {
	rec := &recordingTB{}
	cs := mcptest.Connect(rec, testServer(), mcptest.Options{})
	if len(rec.fatals) != 0 || len(rec.cleanups) != 2 {
		t.Fatalf("fatals %q, %d cleanups; want none and 2 (client and server session)", rec.fatals, len(rec.cleanups))
	}
	if got := mcptest.Call(t, cs, "greet", `{"name":"Ada"}`).Text; got != `{"greeting":"hello, Ada"}` {
		t.Fatalf("before cleanup: %s", got)
	}
	rec.runCleanups()
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet", Arguments: json.RawMessage(`{"name":"Ada"}`)})
	if err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("call after cleanup: err = %v, want a closed-connection error", err)
	}
}

func TestConnectFailsTheTestWhenTheClientCannotConnect(t *testing.T) {
	s := testServer()
	// A server that refuses every request, the handshake included.
	s.AddReceivingMiddleware(func(mcp.MethodHandler) mcp.MethodHandler {
		return func(_ context.Context, method string, _ mcp.Request) (mcp.Result, error) {
			return nil, fmt.Errorf("refused %s", method)
		}
	})
	rec := &recordingTB{}
	if cs := mcptest.Connect(rec, s, mcptest.Options{}); cs != nil {
		t.Fatalf("Connect returned a session the server refused")
	}
	if len(rec.fatals) != 1 || !strings.HasPrefix(rec.fatals[0], "mcptest: client connect: ") || !strings.Contains(rec.fatals[0], "refused ") {
		t.Fatalf("Fatalf calls = %q, want one client connect failure naming the refusal", rec.fatals)
	}
	if len(rec.cleanups) != 1 {
		t.Fatalf("%d cleanups, want 1 (the server session)", len(rec.cleanups))
	}
	rec.runCleanups()
}

func TestElicitorAnswersAndRecordsWhatWasAsked(t *testing.T) {
	tests := []struct {
		name string
		el   *mcptest.Elicitor
		want map[string]any
	}{
		{"accept confirms", mcptest.Accept(true), map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}},
		{"accept without confirming", mcptest.Accept(false), map[string]any{"action": "accept", "content": map[string]any{"confirm": false}}},
		{"decline sends no form", mcptest.Decline(), map[string]any{"action": "decline", "content": nil}},
		{"cancel sends no form", mcptest.Cancel(), map[string]any{"action": "cancel", "content": nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.el.Asked(); got != nil {
				t.Fatalf("asked before any call: %q", got)
			}
			// 2025-11-25 lets a tool ask the user in the middle of its call.
			cs := mcptest.Connect(t, testServer(), mcptest.Options{Protocol: "2025-11-25", Elicit: tt.el.Handler})
			for range 2 {
				if diff := cmp.Diff(tt.want, mcptest.Call(t, cs, "confirm", `{}`).Body); diff != "" {
					t.Fatalf("the tool got (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff([]string{"Delete the invoice?", "Delete the invoice?"}, tt.el.Asked()); diff != "" {
				t.Fatalf("asked (-want +got):\n%s", diff)
			}
		})
	}
}

func TestElicitorAskedIsACopy(t *testing.T) {
	el := mcptest.Decline()
	if _, err := el.Handler(context.Background(), &mcp.ElicitRequest{Params: &mcp.ElicitParams{Message: "first"}}); err != nil {
		t.Fatal(err)
	}
	el.Asked()[0] = "changed"
	if _, err := el.Handler(context.Background(), &mcp.ElicitRequest{}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"first", ""}, el.Asked()); diff != "" {
		t.Fatalf("asked (-want +got):\n%s", diff)
	}
}

func TestWithoutElicitTheClientDeclaresNoElicitation(t *testing.T) {
	cs := mcptest.Connect(t, testServer(), mcptest.Options{Protocol: "2025-11-25"})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "confirm", Arguments: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; !res.IsError || got != "client does not support elicitation" {
		t.Fatalf("isError=%v text=%q, want the server told the client cannot elicit", res.IsError, got)
	}
}

func TestMaskedReplacesIDsAndDropsPreviewKeys(t *testing.T) {
	r := mcptest.Result{Text: `{"success":true,"preview":{"request":{"id":"gen-1","name":"a-7"}},"note":"about a-7 and b-9"}`, IsError: true}
	got := mcptest.Masked(t, r, []string{"id"}, "a-7", "b-9")
	want := map[string]any{"success": true, "preview": map[string]any{"request": map[string]any{"name": "<id0>"}}, "note": "about <id0> and <id1>", "isError": true}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestContextByClientName(t *testing.T) {
	who := map[string]runtime.RequestContext{"agent-a": {TenantID: "t-a", PrincipalID: "p"}}
	f := mcptest.ContextByClientName(who)
	if _, ok := f(context.Background(), &mcp.CallToolRequest{}); ok {
		t.Fatal("a request without a session has no identity")
	}
}
