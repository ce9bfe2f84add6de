package runtime_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/gosdk"
)

// Protocol versions a client can pin; "" is the SDK default (2026-07-28),
// which confirms through the input-request round trip.
const (
	inCallProtocol    = "2025-11-25"
	roundTripProtocol = ""
)

// deleteN1Message is the confirmation a user reads for delete_note n1.
const deleteN1Message = "Confirm Delete note: id=\"n1\". This permanently deletes data; it cannot be undone.\n\n" +
	"id: n1"

// envelope is the error envelope around one entry.
func envelope(entry string) string {
	e := compact(entry)
	return `{"success":false,"error":` + e + `,"errors":[` + e + `]}`
}

const (
	deletedN1   = `{"success":true,"id":"n1","deleted":true,"suggestions":[],"warnings":[]}`
	declinedN1  = `{"code":"CONFIRMATION_DECLINED","message":"The user declined: Delete note: id=\"n1\". Nothing was written.","suggestions":{"hint":"Do not retry unless the user asks for the change again."}}`
	cancelledN1 = `{"code":"CONFIRMATION_CANCELLED","message":"The user dismissed the confirmation without deciding: Delete note: id=\"n1\". Nothing was written.","suggestions":{"hint":"Ask the user whether they want this change; call again only if they say yes."}}`
)

// asker is a client elicitation handler that records what it was asked and
// answers with a fixed result.
type asker struct {
	mu     sync.Mutex
	asked  []string
	answer mcp.ElicitResult
}

func (a *asker) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, req.Params.Message)
	res := a.answer
	return &res, nil
}

func (a *asker) questions() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.asked...)
}

func TestElicitationOnBothProtocols(t *testing.T) {
	tests := []struct {
		name      string
		answer    *mcp.ElicitResult // nil: the client has no elicitation capability
		wantCalls int
		want      string // "" means a proposal
	}{
		{"accepted", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, 1, deletedN1},
		{"accepted without confirming", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": false}}, 0, envelope(declinedN1)},
		{"declined", &mcp.ElicitResult{Action: "decline"}, 0, envelope(declinedN1)},
		{"cancelled", &mcp.ElicitResult{Action: "cancel"}, 0, envelope(cancelledN1)},
		{"no elicitation capability proposes", nil, 0, ""},
	}
	for _, protocol := range []string{inCallProtocol, roundTripProtocol} {
		for _, tt := range tests {
			t.Run(protocol+"/"+tt.name, func(t *testing.T) {
				a := &asker{}
				client := &mcp.ClientOptions{}
				if tt.answer != nil {
					a.answer = *tt.answer
					client.ElicitationHandler = a.handle
				}
				h := newHarness(t, harnessOpts{client: client, clientSession: &mcp.ClientSessionOptions{ProtocolVersion: protocol}})
				h.seedNote("n1")
				got := h.call(alice, "delete_note", `{"id":"n1"}`)
				want := tt.want
				if want == "" {
					id := field(t, got.text, "proposal.proposal_id")
					want = compact(`{"success":true,"proposal":{"proposal_id":"` + id + `","action":"delete","tool":"delete_note","classification":"DESTRUCTIVE_DELETE",
						"summary":"Delete note: id=\"n1\"",
						"preview":{"id":"n1"},
						"expires_at":"2025-01-02T03:19:05Z","apply_with":"apply_proposal"},
						"suggestions":["Nothing was written yet. Show the summary and preview to the user; if they confirm, call apply_proposal with proposal_id \"` + id + `\" before it expires."],
						"warnings":[]}`)
				}
				if got.text != want || got.isError != (want != deletedN1 && tt.want != "") {
					t.Fatalf("got (isError %v)\n%s\nwant\n%s", got.isError, got.text, want)
				}
				if n := h.dom.count("delete_note"); n != tt.wantCalls {
					t.Fatalf("handler calls %d, want %d", n, tt.wantCalls)
				}
				wantAsked := []string{deleteN1Message}
				if tt.answer == nil {
					wantAsked = nil
				}
				if q := a.questions(); !equalStrings(q, wantAsked) {
					t.Fatalf("asked %q\nwant %q", q, wantAsked)
				}
			})
		}
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// manualRoundTrip is a 2026-07-28 client that can elicit but answers input
// requests itself, so a test can alter what it sends back.
func manualRoundTrip(t *testing.T, opts ...runtime.Option) *harness {
	t.Helper()
	client := &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("the SDK answered an input request; the test answers them itself")
			return &mcp.ElicitResult{Action: "cancel"}, nil
		},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	}
	return newHarness(t, harnessOpts{opts: opts, client: client})
}

// rawCall sends one tools/call as the client wrote it.
func (h *harness) rawCall(who caller, tool, args, state string, answer mcp.InputResponse) *mcp.CallToolResult {
	h.t.Helper()
	params := &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args), RequestState: state}
	if who.tenant != "" {
		params.Meta = mcp.Meta{"test/tenant": who.tenant, "test/principal": who.principal}
	}
	if answer != nil {
		params.InputResponses = mcp.InputResponseMap{"mcpwrite_confirm": answer}
	}
	res, err := h.cs.CallTool(context.Background(), params)
	if err != nil {
		h.t.Fatalf("CallTool %s: protocol error %v", tool, err)
	}
	return res
}

// ask runs the first round and checks that it is exactly the confirmation
// form, with nothing written; it returns the request state.
func (h *harness) ask(who caller, tool, args, wantMessage string) string {
	h.t.Helper()
	res := h.rawCall(who, tool, args, "", nil)
	if !res.NeedsInput() || len(res.Content) != 0 || res.StructuredContent != nil || res.IsError || len(res.InputRequests) != 1 {
		b, _ := json.Marshal(res)
		h.t.Fatalf("first round is not an input request: %s", b)
	}
	ep, ok := res.InputRequests["mcpwrite_confirm"].(*mcp.ElicitParams)
	if !ok {
		h.t.Fatalf("input request %q is %T", "mcpwrite_confirm", res.InputRequests["mcpwrite_confirm"])
	}
	schema, _ := json.Marshal(ep.RequestedSchema)
	wantSchema := `{"properties":{"confirm":{"description":"Perform this change","title":"Confirm","type":"boolean"}},"required":["confirm"],"type":"object"}`
	if ep.Message != wantMessage || string(schema) != wantSchema {
		h.t.Fatalf("input request:\n%q %s\nwant\n%q %s", ep.Message, schema, wantMessage, wantSchema)
	}
	if !strings.HasPrefix(res.RequestState, "mcpw1.") {
		h.t.Fatalf("request state %q", res.RequestState)
	}
	return res.RequestState
}

// text is the envelope of a final result.
func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if res.NeedsInput() || len(res.Content) != 1 {
		b, _ := json.Marshal(res)
		t.Fatalf("not a final result: %s", b)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// withPayload re-signs nothing: it swaps the state's payload for edited
// JSON and keeps the original signature, as a forging client would.
func withPayload(t *testing.T, state string, edit func(map[string]any)) string {
	t.Helper()
	rest := strings.TrimPrefix(state, "mcpw1.")
	payload, mac, _ := strings.Cut(rest, ".")
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	b, _ = json.Marshal(m)
	return "mcpw1." + base64.RawURLEncoding.EncodeToString(b) + "." + mac
}

func invalidEntry(reason, message string) string {
	return envelope(`{"code":"CONFIRMATION_INVALID","message":"` + message + `","details":{"reason":"` + reason + `"},
		"suggestions":{"hint":"Call the tool again without inputResponses or requestState to ask the user again."}}`)
}

var (
	yes = &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}
	bob = caller{"acme", "bob"}
)

func TestRoundTripConfirmationIsBoundToItsCall(t *testing.T) {
	altered := invalidEntry("altered", "The confirmation state does not verify: it was altered, or issued for another tool, caller or client_request_id. Nothing was written.")
	tests := []struct {
		name    string
		args    string // first round; default {"id":"n1"}
		second  func(h *harness, state string) *mcp.CallToolResult
		want    string
		deleted []string // notes gone afterwards
	}{{
		name: "accepted",
		second: func(h *harness, s string) *mcp.CallToolResult {
			return h.rawCall(alice, "delete_note", `{"id":"n1"}`, s, yes)
		},
		want:    deletedN1,
		deleted: []string{"n1"},
	}, {
		name: "declined",
		second: func(h *harness, s string) *mcp.CallToolResult {
			return h.rawCall(alice, "delete_note", `{"id":"n1"}`, s, &mcp.ElicitResult{Action: "decline"})
		},
		want: envelope(declinedN1),
	}, {
		name: "cancelled",
		second: func(h *harness, s string) *mcp.CallToolResult {
			return h.rawCall(alice, "delete_note", `{"id":"n1"}`, s, &mcp.ElicitResult{Action: "cancel"})
		},
		want: envelope(cancelledN1),
	}, {
		name: "state replayed for other arguments",
		second: func(h *harness, s string) *mcp.CallToolResult {
			return h.rawCall(alice, "delete_note", `{"id":"n2"}`, s, yes)
		},
		want: invalidEntry("other_arguments", "The confirmation was given for different arguments. Nothing was written."),
	}, {
		name: "payload edited to claim the other arguments",
		second: func(h *harness, s string) *mcp.CallToolResult {
			h.t.Helper()
			other := h.ask(alice, "delete_note", `{"id":"n2"}`, strings.ReplaceAll(deleteN1Message, "n1", "n2"))
			var otherArgs string
			withPayload(h.t, other, func(m map[string]any) { otherArgs = m["args"].(string) })
			forged := withPayload(h.t, s, func(m map[string]any) { m["args"] = otherArgs })
			return h.rawCall(alice, "delete_note", `{"id":"n2"}`, forged, yes)
		},
		want: altered,
	}, {
		name: "expiry extended by the client",
		second: func(h *harness, s string) *mcp.CallToolResult {
			h.clock.Advance(10 * time.Minute)
			forged := withPayload(h.t, s, func(m map[string]any) { m["exp"] = m["exp"].(float64) + 3600 })
			return h.rawCall(alice, "delete_note", `{"id":"n1"}`, forged, yes)
		},
		want: altered,
	}, {
		name: "signature replaced",
		second: func(h *harness, s string) *mcp.CallToolResult {
			i := strings.LastIndexByte(s, '.')
			return h.rawCall(alice, "delete_note", `{"id":"n1"}`, s[:i+1]+base64.RawURLEncoding.EncodeToString(make([]byte, 32)), yes)
		},
		want: altered,
	}, {
		name: "not a state",
		second: func(h *harness, s string) *mcp.CallToolResult {
			return h.rawCall(alice, "delete_note", `{"id":"n1"}`, "yes please", yes)
		},
		want: altered,
	}, {
		name: "used by another principal",
		second: func(h *harness, s string) *mcp.CallToolResult {
			return h.rawCall(bob, "delete_note", `{"id":"n1"}`, s, yes)
		},
		want: altered,
	}, {
		name: "used by another tenant",
		second: func(h *harness, s string) *mcp.CallToolResult {
			return h.rawCall(caller{"globex", "alice"}, "delete_note", `{"id":"n1"}`, s, yes)
		},
		want: altered,
	}, {
		name: "used with another client_request_id",
		args: `{"id":"n1","client_request_id":"k1"}`,
		second: func(h *harness, s string) *mcp.CallToolResult {
			return h.rawCall(alice, "delete_note", `{"id":"n1","client_request_id":"k2"}`, s, yes)
		},
		want: altered,
	}, {
		name: "acceptance without state",
		second: func(h *harness, s string) *mcp.CallToolResult {
			return h.rawCall(alice, "delete_note", `{"id":"n1"}`, "", yes)
		},
		want: invalidEntry("missing_state", "The call carries a confirmation answer but no requestState from this server. Nothing was written."),
	}, {
		name: "state without an answer",
		second: func(h *harness, s string) *mcp.CallToolResult {
			return h.rawCall(alice, "delete_note", `{"id":"n1"}`, s, nil)
		},
		want: invalidEntry("missing_answer", `The call carries no answer to the confirmation input request \"mcpwrite_confirm\". Nothing was written.`),
	}, {
		name: "answered too late",
		second: func(h *harness, s string) *mcp.CallToolResult {
			h.clock.Advance(5 * time.Minute)
			return h.rawCall(alice, "delete_note", `{"id":"n1"}`, s, yes)
		},
		want: invalidEntry("expired", "The confirmation expired: answers are accepted for 5m0s. Nothing was written."),
	}, {
		name: "one acceptance, one write",
		second: func(h *harness, s string) *mcp.CallToolResult {
			if got := text(h.t, h.rawCall(alice, "delete_note", `{"id":"n1"}`, s, yes)); got != deletedN1 {
				h.t.Fatalf("first use: %s", got)
			}
			h.seedNote("n1") // recreated: a second use would delete it again
			return h.rawCall(alice, "delete_note", `{"id":"n1"}`, s, yes)
		},
		want: envelope(`{"code":"CONFIRMATION_INVALID","message":"This confirmation was already used for a write. Nothing was written again.","details":{"reason":"used"},
			"suggestions":{"hint":"To get the first result, retry with its client_request_id; to write again, call the tool without inputResponses or requestState so the user confirms again."}}`),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := manualRoundTrip(t)
			h.seedNote("n1")
			h.seedNote("n2")
			args := tt.args
			if args == "" {
				args = `{"id":"n1"}`
			}
			state := h.ask(alice, "delete_note", args, deleteN1Message)
			if h.dom.count("delete_note") != 0 {
				t.Fatal("asking wrote")
			}
			if got := text(t, tt.second(h, state)); got != tt.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tt.want)
			}
			wantCalls := len(tt.deleted)
			if tt.name == "one acceptance, one write" {
				wantCalls = 1
			}
			if n := h.dom.count("delete_note"); n != wantCalls {
				t.Fatalf("handler calls %d, want %d", n, wantCalls)
			}
			h.dom.mu.Lock()
			defer h.dom.mu.Unlock()
			for _, id := range []string{"n1", "n2"} {
				gone := len(tt.deleted) == 1 && tt.deleted[0] == id
				if h.dom.notes[id] == gone {
					t.Fatalf("note %s present=%v, want %v", id, h.dom.notes[id], !gone)
				}
			}
		})
	}
}

func TestRoundTripRetryWithClientRequestIDReplays(t *testing.T) {
	h := manualRoundTrip(t)
	h.seedNote("n1")
	args := `{"id":"n1","client_request_id":"del-1"}`
	state := h.ask(alice, "delete_note", args, deleteN1Message)
	if got := text(t, h.rawCall(alice, "delete_note", args, state, yes)); got != deletedN1 {
		t.Fatalf("confirmed: %s", got)
	}
	// The answer got lost; the client retries the confirmed call, then asks afresh.
	wantReplay := strings.TrimSuffix(deletedN1, "}") + `,"idempotent_replay":true,"original_request_time":"2025-01-02T03:04:05Z"}`
	if got := text(t, h.rawCall(alice, "delete_note", args, state, yes)); got != wantReplay {
		t.Fatalf("retried confirmation:\n%s\nwant\n%s", got, wantReplay)
	}
	if got := text(t, h.rawCall(alice, "delete_note", args, "", nil)); got != wantReplay {
		t.Fatalf("new first round:\n%s\nwant\n%s", got, wantReplay)
	}
	if n := h.dom.count("delete_note"); n != 1 {
		t.Fatalf("handler calls %d, want 1", n)
	}
}

func TestRoundTripConfirmationOfAChangedWorldIsStale(t *testing.T) {
	elicitCreates := func(ctx context.Context, pc runtime.PolicyCall) runtime.Confirmation {
		if pc.Tool == "create_note" {
			return runtime.ConfirmElicit
		}
		return ""
	}
	h := manualRoundTrip(t, runtime.WithPolicy(elicitCreates))
	msg := "Confirm Create note: title=\"Buy milk\". This changes data.\n\n" +
		"id: note-01010101\ntitle: Buy milk"
	state := h.ask(alice, "create_note", `{"title":"Buy milk"}`, msg)
	h.dom.setModel("model-2") // the user confirmed a write into model-1
	got := text(t, h.rawCall(alice, "create_note", `{"title":"Buy milk"}`, state, yes))
	want := envelope(`{"code":"PROPOSAL_STALE","message":"The confirmation is stale: the server would now fill the request differently from what the user confirmed. Nothing was written.",
		"suggestions":{"hint":"Call the tool again without inputResponses or requestState so the user confirms the current state."}}`)
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if h.dom.count("create_note") != 0 {
		t.Fatal("a stale confirmation wrote")
	}
}

func TestSigningKeyLetsAnotherInstanceVerify(t *testing.T) {
	shared := []byte("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")
	tests := []struct {
		name    string
		second  []runtime.Option
		want    string
		wantLog string
	}{
		{"same key verifies on another instance", []runtime.Option{runtime.WithSecrets(nil, shared)}, deletedN1, ""},
		{"another key does not", []runtime.Option{runtime.WithSecrets(nil, []byte("60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752"))},
			invalidEntry("altered", "The confirmation state does not verify: it was altered, or issued for another tool, caller or client_request_id. Nothing was written."), ""},
		{"default keys are per instance", nil,
			invalidEntry("altered", "The confirmation state does not verify: it was altered, or issued for another tool, caller or client_request_id. Nothing was written."), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := manualRoundTrip(t, runtime.WithSecrets(nil, shared))
			first.seedNote("n1")
			state := first.ask(alice, "delete_note", `{"id":"n1"}`, deleteN1Message)
			second := manualRoundTrip(t, tt.second...)
			second.seedNote("n1")
			if got := text(t, second.rawCall(alice, "delete_note", `{"id":"n1"}`, state, yes)); got != tt.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tt.want)
			}
			if first.dom.count("delete_note") != 0 {
				t.Fatal("the first instance wrote")
			}
		})
	}
}

func TestWeakSigningKeyFailsRegistration(t *testing.T) {
	for key, why := range map[string]string{
		"short":                            "it has 5 bytes, want at least 32",
		strings.Repeat("k", 32):            "it has only 1 distinct byte values, want at least 8: it is not random",
		"0123456789abcdef0123456789abcdef": "it repeats a 16-byte pattern: it is not random",
		strings.Repeat(" ", 40):            "it is only white space",
	} {
		s := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v0.0.1"}, nil)
		err := gosdk.Register(s, newDomain().service(), runtime.WithSecrets(nil, []byte(key)))
		want := "runtime: service notes.v1.NoteService: WithSecrets: signing key refused: " + why
		if err == nil || err.Error() != want {
			t.Errorf("key %q: Register = %v, want %q", key, err, want)
		}
	}
}

// logLineHas reports whether one log line contains every part.
func logLineHas(logs string, parts ...string) bool {
	for _, line := range strings.Split(logs, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			return true
		}
	}
	return false
}

// The observer sees the first round of a 2026-07-28 confirmation as an
// input request the client must answer, and the retry as accepted.
func TestObserverSeesTheRoundTrip(t *testing.T) {
	obs := &endsObserver{}
	h := manualRoundTrip(t, runtime.WithObserver(obs))
	h.seedNote("n1")
	state := h.ask(alice, "delete_note", `{"id":"n1"}`, deleteN1Message)
	if got := text(t, h.rawCall(alice, "delete_note", `{"id":"n1"}`, state, yes)); got != deletedN1 {
		t.Fatalf("answered call: %s", got)
	}
	want := []runtime.CallEnd{
		{Tool: "delete_note", Outcome: "input_required", Confirmation: "asked"},
		{Tool: "delete_note", Outcome: "success", Confirmation: "accepted"},
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if d := cmp.Diff(want, obs.ends); d != "" {
		t.Errorf("call ends (-want +got):\n%s", d)
	}
}
