package sdkbind

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
)

func TestRequestCarriesTheCall(t *testing.T) {
	h := http.Header{"X-Correlation-Id": {"c-1"}}
	req := &mcp.CallToolRequest{
		Params: &mcp.CallToolParamsRaw{
			Name: "create_note", Arguments: json.RawMessage(`{"title":"a"}`),
			Meta:           mcp.Meta{"progressToken": "p-1", "k": "v"},
			RequestState:   "state",
			InputResponses: mcp.InputResponseMap{"mcpwrite_confirm": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, "other": nil},
		},
		Extra: &mcp.RequestExtra{Header: h, TokenInfo: &auth.TokenInfo{Extra: map[string]any{"tenant": "t"}}},
	}
	got := Request(context.Background(), req)
	if got.Native != req {
		t.Fatalf("Native = %v, want the go-sdk request", got.Native)
	}
	got.Native, got.Header = nil, nil
	want := &toolcall.Request{
		Name: "create_note", Arguments: json.RawMessage(`{"title":"a"}`),
		Meta:          map[string]any{"progressToken": "p-1", "k": "v"},
		ProgressToken: "p-1",
		TokenExtra:    map[string]any{"tenant": "t"}, HasToken: true,
		RequestState:   "state",
		InputResponses: map[string]*toolcall.ElicitResult{"mcpwrite_confirm": {Action: "accept", Content: map[string]any{"confirm": true}}, "other": nil},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Request (-want +got):\n%s", d)
	}
}

func TestResultAsGoSDK(t *testing.T) {
	res := Result(&toolcall.Result{Content: []string{`{"ok":true}`}, StructuredContent: json.RawMessage(`{"ok":true}`), IsError: true})
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"content":[{"type":"text","text":"{\"ok\":true}"}],"structuredContent":{"ok":true},"isError":true}`; string(b) != want {
		t.Errorf("result = %s, want %s", b, want)
	}
	ask := Result(&toolcall.Result{InputRequests: map[string]*toolcall.ElicitRequest{"mcpwrite_confirm": {Message: "Sure?", Schema: json.RawMessage(`{"type":"object"}`)}}, RequestState: "s"})
	b, err = json.Marshal(ask)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"content":null,"requestState":"s","inputRequests":{"mcpwrite_confirm":{"method":"elicitation/create","params":{"mode":"form","message":"Sure?","requestedSchema":{"type":"object"}}}}}`; string(b) != want {
		t.Errorf("input request = %s, want %s", b, want)
	}
	if Result(nil) != nil {
		t.Error("Result(nil) is not nil")
	}
}

func TestToolRoundTrips(t *testing.T) {
	f := false
	in := &toolcall.Tool{
		Name: "t", Title: "T", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: &toolcall.Annotations{Title: "T", ReadOnlyHint: true, DestructiveHint: &f},
		Meta:        map[string]any{"k": "v"},
	}
	mt := Tool(in)
	if mt.OutputSchema != nil {
		t.Errorf("OutputSchema = %v, want nil for a tool without one", mt.OutputSchema)
	}
	if d := cmp.Diff(in, NeutralTool(mt)); d != "" {
		t.Errorf("NeutralTool(Tool(t)) (-want +got):\n%s", d)
	}
}

// The schemas go-sdk keeps are compact (go-sdk reads the input schema
// again on every call); on the wire they are the same bytes.
func TestToolSchemasAreCompact(t *testing.T) {
	in := json.RawMessage("{\n  \"type\": \"object\",\n  \"properties\": {\n    \"title\": { \"type\": \"string\" }\n  }\n}")
	mt := Tool(&toolcall.Tool{Name: "t", InputSchema: in, OutputSchema: json.RawMessage("{ \"type\": \"object\" }")})
	if s, _ := mt.InputSchema.(json.RawMessage); string(s) != `{"type":"object","properties":{"title":{"type":"string"}}}` {
		t.Errorf("InputSchema = %s", mt.InputSchema)
	}
	if s, _ := mt.OutputSchema.(json.RawMessage); string(s) != `{"type":"object"}` {
		t.Errorf("OutputSchema = %s", mt.OutputSchema)
	}
	listed, err := json.Marshal(mt)
	if err != nil {
		t.Fatal(err)
	}
	asGiven, err := json.Marshal(&mcp.Tool{Name: "t", InputSchema: in, OutputSchema: json.RawMessage("{ \"type\": \"object\" }")})
	if err != nil {
		t.Fatal(err)
	}
	if string(listed) != string(asGiven) {
		t.Errorf("listed\n%s\nwant\n%s", listed, asGiven)
	}
}
