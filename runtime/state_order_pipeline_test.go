package runtime_test

import (
	"context"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// When both the entity the user saw and the request the server would fill
// changed, a confirmation answers with what changed about the entity, not
// only that the request differs.
func TestRoundTripStaleAnswerNamesTheChangedState(t *testing.T) {
	elicitCreates := func(ctx context.Context, pc runtime.PolicyCall) runtime.Confirmation {
		if pc.Tool == "create_note" {
			return runtime.ConfirmElicit
		}
		return ""
	}
	var h *harness
	modelState := func(_ context.Context, tool string, _ proto.Message) (runtime.EntityState, bool, error) {
		if tool != "create_note" {
			return runtime.EntityState{}, false, nil
		}
		h.dom.mu.Lock()
		defer h.dom.mu.Unlock()
		m := h.dom.activeModel
		return runtime.EntityState{Target: "the active model", Digest: m, Summary: "model " + m}, true, nil
	}
	h = manualRoundTrip(t, runtime.WithPolicy(elicitCreates), runtime.WithPreviews(runtime.Previews{State: modelState}))
	msg := "Confirm Create note: title=\"Buy milk\". This changes data.\n\n" +
		"id: note-01010101\ntitle: Buy milk"
	state := h.ask(alice, "create_note", `{"title":"Buy milk"}`, msg)
	h.dom.setModel("model-2")
	got := text(t, h.rawCall(alice, "create_note", `{"title":"Buy milk"}`, state, yes))
	want := envelope(`{"code":"PROPOSAL_STALE","message":"The confirmation is stale: the active model changed since the user saw it (was: model model-1; now: model model-2). Nothing was written.",
		"details":{"after":"model model-2","before":"model model-1","target":"the active model"},
		"suggestions":{"hint":"Call the write tool again so the user confirms the current state."}}`)
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if h.dom.count("create_note") != 0 {
		t.Fatal("a stale confirmation wrote")
	}
}
