package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
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

// withConfirmationMessage gives delete_note a confirmation_message template.
func withConfirmationMessage(tpl string) func(string) string {
	return func(doc string) string {
		b, _ := json.Marshal(tpl)
		return strings.Replace(doc, `"confirmation": "ELICIT",`, `"confirmation": "ELICIT", "confirmation_message": `+string(b)+`,`, 1)
	}
}

// The user is asked the tool's own question, filled from the enriched
// request and the domain check's preview; a preview key the domain did not
// return falls back to the default question and is logged.
func TestConfirmationMessageTemplate(t *testing.T) {
	check := runtime.WithPreviews(runtime.Previews{Check: func(_ context.Context, _ string, req proto.Message) (map[string]any, error) {
		return map[string]any{"title": "Groceries {not a placeholder}", "totals": map[string]any{"lines": 3}}, nil
	}})
	const request = "\n\nid: n1"
	tests := []struct {
		name, tpl, want string
		wantLog         string
	}{
		{"request and preview", "Delete note {id} ({preview.title}, {preview.totals.lines} lines) for {meta.tenant_id}? {{sure}}",
			"Delete note n1 (Groceries {not a placeholder}, 3 lines) for acme? {sure} This permanently deletes data; it cannot be undone." + request, ""},
		{"missing preview key", "Delete {preview.nope}?",
			deleteN1Message, `msg="mcpwrite: confirmation message template not filled; asking with the default text" tool=delete_note error="{preview.nope}: the domain preview has no \"nope\""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &asker{answer: mcp.ElicitResult{Action: "decline"}}
			h := newHarness(t, harnessOpts{opts: []runtime.Option{check}, doc: withConfirmationMessage(tt.tpl),
				client: &mcp.ClientOptions{ElicitationHandler: a.handle}, clientSession: &mcp.ClientSessionOptions{ProtocolVersion: inCallProtocol}})
			h.seedNote("n1")
			if got := h.call(alice, "delete_note", `{"id":"n1"}`); got.text != envelope(declinedN1) {
				t.Fatalf("got %s", got.text)
			}
			if q := a.questions(); !equalStrings(q, []string{tt.want}) {
				t.Fatalf("asked %q\nwant %q", q, tt.want)
			}
			h.logMu.Lock()
			logs := h.log.String()
			h.logMu.Unlock()
			if tt.wantLog != "" && !strings.Contains(logs, tt.wantLog) {
				t.Fatalf("log %q\nwant it to contain %q", logs, tt.wantLog)
			}
			if tt.wantLog == "" && strings.Contains(logs, "template not filled") {
				t.Fatalf("unexpected fallback: %s", logs)
			}
		})
	}
}

// previewUnlessConfirm gives create_note preview_unless confirm: its
// document names the field and its binding decodes "confirm" (the harness
// tools know only their own arguments).
func previewUnlessConfirm() harnessOpts {
	return harnessOpts{
		doc: func(doc string) string {
			return strings.Replace(doc, `"confirmation": "DIRECT",`, `"confirmation": "DIRECT", "preview_unless": {"field": "confirm", "argument": "confirm"},`, 1)
		},
		service: func(svc *impl.Service) {
			create := svc.Tools[0]
			decode := create.Decode
			create.Decode = func(d *impl.Decoder, obj *impl.Object, req proto.Message) {
				rest := &impl.Object{}
				for i, k := range obj.Keys {
					if k == "confirm" {
						if b, ok := d.Bool(obj.Vals[i], "confirm"); ok {
							m := req.ProtoReflect()
							m.Set(m.Descriptor().Fields().ByName("confirm"), protoreflect.ValueOfBool(b))
						}
						continue
					}
					rest.Keys, rest.Vals = append(rest.Keys, k), append(rest.Vals, obj.Vals[i])
				}
				decode(d, rest, req)
			}
		},
	}
}

// Without confirm: true the call answers a preview (the complete request
// and the domain's figures) and writes, claims and stores nothing; with it
// the write happens, and the preview's key is still free for it.
func TestPreviewUnlessConfirmed(t *testing.T) {
	ho := previewUnlessConfirm()
	ho.opts = []runtime.Option{runtime.WithPreviews(runtime.Previews{Check: func(_ context.Context, tool string, req proto.Message) (map[string]any, error) {
		return map[string]any{"words": 2}, nil
	}})}
	h := newHarness(t, ho)
	got := h.call(alice, "create_note", `{"title":"Buy milk","client_request_id":"k1"}`)
	want := compact(`{"success":true,"is_preview":true,"valid":true,
		"preview":{"request":{"id":"note-01010101","title":"Buy milk"},"domain":{"words":2}},
		"suggestions":["Nothing was written. Show this preview to the user; to make the change, call create_note again with the same arguments and confirm: true."],
		"warnings":[{"code":"MISSING_DESCRIPTION","message":"Note has no description","field":"description","suggestion":"Add a description for better discoverability"}]}`)
	if got.isError || got.text != want {
		t.Fatalf("preview:\n%s\nwant\n%s", got.text, want)
	}
	if n := h.dom.count("create_note"); n != 0 {
		t.Fatalf("a preview wrote: %d handler calls", n)
	}
	// confirm: false is the same preview.
	if again := h.call(alice, "create_note", `{"title":"Buy milk","confirm":false}`); !strings.Contains(again.text, `"is_preview":true`) || h.dom.count("create_note") != 0 {
		t.Fatalf("confirm false: %s", again.text)
	}
	// The confirmed call writes, under the key the preview left unclaimed.
	done := h.call(alice, "create_note", `{"title":"Buy milk","client_request_id":"k1","confirm":true}`)
	if done.isError || !strings.HasPrefix(done.text, `{"success":true,"note":{`) || h.dom.count("create_note") != 1 {
		t.Fatalf("confirmed: %s", done.text)
	}
}

// A preview the domain would refuse answers the write's own error.
func TestPreviewUnlessConfirmedAnswersTheDomainsRefusal(t *testing.T) {
	ho := previewUnlessConfirm()
	ho.opts = []runtime.Option{runtime.WithPreviews(runtime.Previews{Check: func(context.Context, string, proto.Message) (map[string]any, error) {
		return nil, status.Error(codes.AlreadyExists, "a note with this title exists")
	}})}
	h := newHarness(t, ho)
	got := h.call(alice, "create_note", `{"title":"Buy milk"}`)
	if !got.isError || field(t, got.text, "error.code") != "ALREADY_EXISTS" || strings.Contains(got.text, "is_preview") {
		t.Fatalf("refused preview: %s", got.text)
	}
}
