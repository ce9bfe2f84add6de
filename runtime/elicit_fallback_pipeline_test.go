package runtime_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// refuseWithoutElicitation gives delete_note elicit_fallback REFUSE.
func refuseWithoutElicitation(doc string) string {
	return strings.Replace(doc, `"confirmation": "ELICIT",`, `"confirmation": "ELICIT", "elicit_fallback": "REFUSE",`, 1)
}

const confirmationRequiredN1 = `{"code":"CONFIRMATION_REQUIRED","message":"The user must confirm Delete note: id=\"n1\", and this client cannot ask (it does not support MCP elicitation forms). Nothing was written.","suggestions":{"hint":"Tell the user this change needs their confirmation in a client that can show confirmation prompts; do not retry it here."}}`

// With elicit_fallback REFUSE, a client that cannot ask gets
// CONFIRMATION_REQUIRED and nothing is written or proposed, on both
// protocols; a client that can ask is asked as before.
func TestElicitFallbackRefuseWritesNothingWithoutElicitation(t *testing.T) {
	for _, protocol := range []string{inCallProtocol, roundTripProtocol} {
		t.Run(protocol+"/no elicitation capability", func(t *testing.T) {
			h := newHarness(t, harnessOpts{doc: refuseWithoutElicitation, clientSession: &mcp.ClientSessionOptions{ProtocolVersion: protocol}})
			h.seedNote("n1")
			got := h.call(alice, "delete_note", `{"id":"n1","client_request_id":"k1"}`)
			if want := envelope(confirmationRequiredN1); got.text != want || !got.isError {
				t.Fatalf("got (isError %v)\n%s\nwant\n%s", got.isError, got.text, want)
			}
			if n := h.dom.count("delete_note"); n != 0 {
				t.Fatalf("handler calls %d, want 0", n)
			}
			// Nothing was claimed: the same key is free once the user can confirm.
			again := h.call(alice, "delete_note", `{"id":"n1","client_request_id":"k1"}`)
			if again.text != got.text {
				t.Fatalf("retry answered\n%s\nwant the same refusal", again.text)
			}
		})
		t.Run(protocol+"/client asks", func(t *testing.T) {
			a := &asker{answer: mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}}
			h := newHarness(t, harnessOpts{doc: refuseWithoutElicitation, client: &mcp.ClientOptions{ElicitationHandler: a.handle}, clientSession: &mcp.ClientSessionOptions{ProtocolVersion: protocol}})
			h.seedNote("n1")
			if got := h.call(alice, "delete_note", `{"id":"n1"}`); got.text != deletedN1 || got.isError {
				t.Fatalf("got (isError %v)\n%s\nwant\n%s", got.isError, got.text, deletedN1)
			}
			if q := a.questions(); !equalStrings(q, []string{deleteN1Message}) {
				t.Fatalf("asked %q", q)
			}
		})
	}
}

// A client that declares elicitation but whose request fails (not a
// timeout) is refused too, and the idempotency claim is released.
func TestElicitFallbackRefuseWhenTheElicitationFails(t *testing.T) {
	failing := &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return nil, errors.New("no one to ask")
	}}
	h := newHarness(t, harnessOpts{doc: refuseWithoutElicitation, client: failing, clientSession: &mcp.ClientSessionOptions{ProtocolVersion: inCallProtocol}})
	h.seedNote("n1")
	got := h.call(alice, "delete_note", `{"id":"n1","client_request_id":"k2"}`)
	if want := envelope(confirmationRequiredN1); got.text != want || !got.isError {
		t.Fatalf("got (isError %v)\n%s\nwant\n%s", got.isError, got.text, want)
	}
	if n := h.dom.count("delete_note"); n != 0 {
		t.Fatalf("handler calls %d, want 0", n)
	}
	// The key was released: the retry is asked again, not IDEMPOTENCY_IN_PROGRESS.
	if again := h.call(alice, "delete_note", `{"id":"n1","client_request_id":"k2"}`); again.text != got.text {
		t.Fatalf("retry answered\n%s\nwant the same refusal", again.text)
	}
}
