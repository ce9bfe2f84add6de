// Package mcptest connects a real MCP client to an [mcp.Server] in the same
// process and calls its tools the way an agent does, so tests of generated
// write tools exercise the whole protocol path instead of calling handlers
// directly.
//
// [Connect] opens a client session over in-memory transports with a chosen
// protocol version and, optionally, an elicitation handler such as one made by
// [Accept], [Decline] or [Cancel]. [Call] sends raw JSON arguments and checks
// the result contract every mcpwrite tool keeps: a tool result (never a
// protocol error), exactly one text content, and that text being the same JSON
// object as structuredContent.
//
// The helpers use only the Helper, Cleanup and Fatalf methods of the
// testing.TB they are given (and Errorf, for an answer that carries a value
// [ForbidInAnswers] names), and return right after Fatalf, so they also work
// with a TB that records failures instead of stopping the test.
package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// DefaultClientName is the client name Connect announces when Options.ClientName is empty.
const DefaultClientName = "mcptest"

// Options chooses how Connect's client presents itself to the server.
type Options struct {
	// Protocol is the protocol version the client asks for; empty means the
	// SDK's latest, which is what a current agent sends.
	Protocol string
	// Elicit answers the server's elicitation requests; nil means the client
	// does not declare elicitation, so the server must fall back (for
	// mcpwrite tools: to a proposal applied by ID).
	Elicit func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error)
	// ClientName is the name in the client's implementation info, which the
	// server sees as the caller's identity; empty means DefaultClientName.
	ClientName string
}

// Connect connects a new client to s over in-memory transports and closes
// both sessions when the test ends; it fails the test if either side cannot
// connect.
func Connect(tb testing.TB, s *mcp.Server, o Options) *mcp.ClientSession {
	tb.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		tb.Fatalf("mcptest: server connect: %v", err)
		return nil
	}
	tb.Cleanup(func() { _ = ss.Close() })
	name := o.ClientName
	if name == "" {
		name = DefaultClientName
	}
	var copts *mcp.ClientOptions
	if o.Elicit != nil {
		copts = &mcp.ClientOptions{ElicitationHandler: o.Elicit}
	}
	var sopts *mcp.ClientSessionOptions
	if o.Protocol != "" {
		sopts = &mcp.ClientSessionOptions{ProtocolVersion: o.Protocol}
	}
	client := NewClient(tb, &mcp.Implementation{Name: name, Version: "test"}, copts)
	cs, err := client.Connect(ctx, ct, sopts)
	if err != nil {
		tb.Fatalf("mcptest: client connect: %v", err)
		return nil
	}
	tb.Cleanup(func() { _ = cs.Close() })
	return cs
}

// Result is one checked tool answer.
type Result struct {
	// IsError is the result's isError flag: true for an error envelope.
	IsError bool
	// Text is the text content exactly as the server sent it, for byte-exact
	// comparisons with an expected answer.
	Text string
	// Body is the answer parsed as a JSON object (numbers are float64).
	Body map[string]any
}

// Call calls tool with args (raw JSON) and returns the checked result. It
// fails the test on a protocol error (bad input must come back as a tool
// result), on anything but exactly one text content, when that text is not
// the same JSON as structuredContent, and when the answer is not a JSON object.
func Call(tb testing.TB, cs *mcp.ClientSession, tool, args string) Result {
	tb.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		tb.Fatalf("%s: protocol error: %v (bad input must come back as a tool result)", tool, err)
		return Result{}
	}
	if len(res.Content) != 1 {
		tb.Fatalf("%s: want exactly one content block, got %d", tool, len(res.Content))
		return Result{}
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		tb.Fatalf("%s: content is %T, want *mcp.TextContent", tool, res.Content[0])
		return Result{}
	}
	structured, err := json.Marshal(res.StructuredContent)
	if err != nil {
		tb.Fatalf("%s: structuredContent does not marshal: %v", tool, err)
		return Result{}
	}
	var fromText, fromStructured any
	if err := json.Unmarshal([]byte(tc.Text), &fromText); err != nil {
		tb.Fatalf("%s: text content is not JSON (%v): %s", tool, err, tc.Text)
		return Result{}
	}
	if err := json.Unmarshal(structured, &fromStructured); err != nil {
		tb.Fatalf("%s: structuredContent is not JSON (%v): %s", tool, err, structured)
		return Result{}
	}
	if !reflect.DeepEqual(fromText, fromStructured) {
		tb.Fatalf("%s: text content differs from structuredContent\ntext:              %s\nstructuredContent: %s", tool, compact(tc.Text), structured)
		return Result{}
	}
	body, ok := fromText.(map[string]any)
	if !ok {
		tb.Fatalf("%s: answer is not a JSON object: %s", tool, compact(tc.Text))
		return Result{}
	}
	return Result{IsError: res.IsError, Text: tc.Text, Body: body}
}

// compact shortens valid JSON for failure messages; other text is kept as is.
func compact(s string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(s)) != nil {
		return s
	}
	return b.String()
}

// Elicitor is a simulated user answering every elicitation request the same
// way, and remembering what it was asked so tests can check the wording a
// user would see. Its Handler is what Options.Elicit takes.
type Elicitor struct {
	// Action is the answer: "accept", "decline" or "cancel".
	Action string
	// Confirm is the form's confirm field, sent only with Action "accept".
	Confirm bool

	mu    sync.Mutex
	asked []string
}

// Accept returns an Elicitor that submits the confirmation form with confirm set as given.
func Accept(confirm bool) *Elicitor { return &Elicitor{Action: "accept", Confirm: confirm} }

// Decline returns an Elicitor that explicitly refuses every request.
func Decline() *Elicitor { return &Elicitor{Action: "decline"} }

// Cancel returns an Elicitor that dismisses every request without choosing.
func Cancel() *Elicitor { return &Elicitor{Action: "cancel"} }

// Handler records req's message and answers with e's action; it fits Options.Elicit.
func (e *Elicitor) Handler(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var msg string
	if req != nil && req.Params != nil {
		msg = req.Params.Message
	}
	e.asked = append(e.asked, msg)
	if e.Action == "accept" {
		return &mcp.ElicitResult{Action: e.Action, Content: map[string]any{"confirm": e.Confirm}}, nil
	}
	return &mcp.ElicitResult{Action: e.Action}, nil
}

// Asked returns a copy of the messages shown so far, oldest first (nil when none).
func (e *Elicitor) Asked() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.asked) == 0 {
		return nil
	}
	return append([]string(nil), e.asked...)
}

// Masked is r's answer as a JSON object with each of ids replaced by
// "<id0>", "<id1>", ..., the given keys of a validate_write preview's request
// removed (values generated anew on every call), and "isError" added: for
// comparing answers that must be the same but for ids, such as another
// tenant's id and an id that never existed.
func Masked(t testing.TB, r Result, previewKeys []string, ids ...string) map[string]any {
	t.Helper()
	s := r.Text
	for i, id := range ids {
		s = strings.ReplaceAll(s, id, "<id"+strconv.Itoa(i)+">")
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("answer is not JSON: %v", err)
	}
	if p, ok := v["preview"].(map[string]any); ok {
		if req, ok := p["request"].(map[string]any); ok {
			for _, k := range previewKeys {
				delete(req, k)
			}
		}
	}
	v["isError"] = r.IsError
	return v
}

// ContextByClientName is a request-context function for tests with several
// callers on one server: each client, connected with Options.ClientName,
// acts as the identity who names for it; any other client has none.
func ContextByClientName(who map[string]runtime.RequestContext) func(context.Context, *mcp.CallToolRequest) (runtime.RequestContext, bool) {
	return func(_ context.Context, req *mcp.CallToolRequest) (runtime.RequestContext, bool) {
		ci := req.ClientInfo()
		if ci == nil {
			return runtime.RequestContext{}, false
		}
		rc, ok := who[ci.Name]
		return rc, ok
	}
}
