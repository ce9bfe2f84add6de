package archimate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// Selector bytes: an input starting with one of them goes, minus that byte,
// to another tool; any other input is createElement's raw arguments. Seed
// files stay readable JSON for the common case.
const (
	selValidateRaw     = 0x01 // validateWrite, rest as its raw arguments
	selValidatePayload = 0x02 // validateWrite {"operation":"createElement","payload":<rest>}
	selUpdate          = 0x03 // updateElement
	selCapability      = 0x04 // createCapability
)

// fuzzTarget maps an input to the tool it is sent to and the raw arguments.
func fuzzTarget(data []byte) (string, []byte) {
	if len(data) == 0 {
		return "createElement", data
	}
	rest := data[1:]
	switch data[0] {
	case selValidateRaw:
		return "validateWrite", rest
	case selValidatePayload:
		args := append([]byte(`{"operation":"createElement","payload":`), rest...)
		return "validateWrite", append(args, '}')
	case selUpdate:
		return "updateElement", rest
	case selCapability:
		return "createCapability", rest
	}
	return "createElement", data
}

// maxArgumentDepth is the deepest arguments value the MCP SDK delivers: it
// refuses JSON-RPC messages nesting more than 1000 levels, and arguments sit
// two levels down (message, params). Deeper input closes the session at the
// transport, so no tool result is possible; the runtime's own depth limit is
// far lower and answers with an envelope.
const maxArgumentDepth = 998

// jsonDepth is the bracket nesting depth of raw JSON, counted as the SDK
// counts it (brackets inside strings do not count).
func jsonDepth(raw []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, b := range raw {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return deepest
}

// fuzzSession connects a client to a server with the generated tools, with a
// fixed clock and seeded randomness so every failure replays exactly.
func fuzzSession(tb testing.TB) *mcp.ClientSession {
	tb.Helper()
	repo := domain.New()
	server := mcp.NewServer(&mcp.Implementation{Name: "archimate", Version: "fuzz"}, nil)
	rc := runtime.RequestContext{TenantID: "tenant-fuzz", PrincipalID: "user-fuzz", CorrelationID: "corr-fuzz"}
	err := archimatev1mcpwrite.RegisterArchitectureServiceTools(server, repo,
		runtime.WithClock(func() time.Time { return time.Date(2026, 11, 22, 10, 30, 0, 0, time.UTC) }),
		runtime.WithRand(rand.NewChaCha8([32]byte{7})),
		runtime.WithRequestContextFunc(func(context.Context, *mcp.CallToolRequest) (runtime.RequestContext, bool) {
			return rc, true
		}))
	if err != nil {
		tb.Fatalf("register: %v", err)
	}
	return mcptest.Connect(tb, server, mcptest.Options{})
}

// FuzzToolArguments sends arbitrary bytes as tool arguments through a real
// client session: bad input must always come back as a tool result (success,
// or an isError envelope whose every entry has a code and a message), never
// as a protocol error, and the text content must be the structured content.
func FuzzToolArguments(f *testing.F) {
	// Seeds beyond testdata/fuzz/FuzzToolArguments: the documented examples.
	f.Add([]byte(`{"type":"ApplicationComponent","name":"OrderService","description":"Handles order processing"}`))
	f.Add(append([]byte{selCapability}, `{"name":"Fulfillment","profile":{"owner":"Supply Chain","criticality":"High","lifecycle":"Active"}}`...))
	cs := fuzzSession(f)
	raw := newRawPeer(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		tool, args := fuzzTarget(data)
		if d := jsonDepth(args); d > maxArgumentDepth || !json.Valid(args) {
			// No MCP client sends these (it cannot marshal them, or the SDK
			// drops the message past its depth limit): deliver the bytes raw.
			deliverRaw(t, raw, tool, args)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("%s: call did not return within 20s for arguments %q", tool, short(args))
			}
			t.Fatalf("%s: protocol error %v for JSON arguments %q (bad input must be a tool result)", tool, err, short(args))
		}
		checkEnvelope(t, tool, short(args), res)
		checkAgreesWithPreparer(t, raw.prep, tool, args, res)
	})
}

// checkEnvelope asserts the result contract every tool call must meet.
func checkEnvelope(t *testing.T, tool string, args string, res *mcp.CallToolResult) {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("%s(%q): want one text content, got %d", tool, args, len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s(%q): content is %T, want text", tool, args, res.Content[0])
	}
	var text map[string]any
	if err := json.Unmarshal([]byte(tc.Text), &text); err != nil {
		t.Fatalf("%s(%q): text content %q is not a JSON object: %v", tool, args, tc.Text, err)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var structured map[string]any
	if err := json.Unmarshal(raw, &structured); err != nil {
		t.Fatalf("%s(%q): structuredContent %s is not a JSON object: %v", tool, args, raw, err)
	}
	if diff := cmp.Diff(structured, text); diff != "" {
		t.Fatalf("%s(%q): text content differs from structuredContent (-structured +text):\n%s", tool, args, diff)
	}
	if !res.IsError {
		if structured["success"] != true {
			t.Fatalf("%s(%q): a result without isError must have success true: %s", tool, args, raw)
		}
		return
	}
	if structured["success"] != false {
		t.Fatalf("%s(%q): isError result must have success false: %s", tool, args, raw)
	}
	top, ok := structured["error"].(map[string]any)
	if !ok {
		t.Fatalf("%s(%q): isError result has no error object: %s", tool, args, raw)
	}
	checkEntry(t, tool, args, "error", top, raw)
	entries, ok := structured["errors"].([]any)
	if !ok || len(entries) == 0 {
		t.Fatalf("%s(%q): isError result has no errors list: %s", tool, args, raw)
	}
	for _, e := range entries {
		m, ok := e.(map[string]any)
		if !ok {
			t.Fatalf("%s(%q): errors entry %v is not an object: %s", tool, args, e, raw)
		}
		checkEntry(t, tool, args, "errors[]", m, raw)
	}
}

// short keeps failure messages readable for huge inputs.
func short(args []byte) string {
	const limit = 300
	if len(args) <= limit {
		return string(args)
	}
	return fmt.Sprintf("%s... (%d bytes)", args[:limit], len(args))
}

func checkEntry(t *testing.T, tool string, args string, where string, e map[string]any, raw []byte) {
	t.Helper()
	code, _ := e["code"].(string)
	msg, _ := e["message"].(string)
	if code == "" || msg == "" {
		t.Fatalf("%s(%q): %s entry lacks a code or message: %s", tool, args, where, raw)
	}
}

func TestFuzzTargetRoutesBySelectorByte(t *testing.T) {
	tests := []struct {
		in       string
		tool     string
		wantArgs string
	}{
		{`{"name":"x"}`, "createElement", `{"name":"x"}`},
		{"", "createElement", ""},
		{"\x01{}", "validateWrite", `{}`},
		{"\x02{\"name\":1}", "validateWrite", `{"operation":"createElement","payload":{"name":1}}`},
		{"\x03{\"id\":\"e\"}", "updateElement", `{"id":"e"}`},
		{"\x04[]", "createCapability", `[]`},
	}
	for _, tt := range tests {
		tool, args := fuzzTarget([]byte(tt.in))
		if tool != tt.tool || !bytes.Equal(args, []byte(tt.wantArgs)) {
			t.Errorf("fuzzTarget(%q) = %s %q, want %s %q", tt.in, tool, args, tt.tool, tt.wantArgs)
		}
	}
}
