package runtime_test

import (
	"context"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// The domain check takes part before the write: its preview shows in the
// validate answer and in proposals, and its refusal answers validate_write
// (valid false) and the write itself before any proposal is stored.
func TestDomainCheckTakesPartBeforeTheWrite(t *testing.T) {
	check := func(_ context.Context, tool string, req proto.Message) (map[string]any, error) {
		m := req.ProtoReflect()
		switch tool {
		case "create_note":
			return map[string]any{"words": 2}, nil
		case "delete_note":
			if m.Get(m.Descriptor().Fields().ByName("id")).String() == "missing" {
				return nil, status.Error(codes.NotFound, "note missing not found")
			}
			return map[string]any{"notes_left": 0}, nil
		}
		return nil, nil
	}
	h := newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithPreviews(runtime.Previews{Check: check})}})
	v := h.call(alice, "validate_write", `{"operation":"create_note","payload":{"title":"Buy milk"}}`)
	if valueAt(t, v.text, "valid") != "true" || valueAt(t, v.text, "preview.domain.words") != "2" {
		t.Fatalf("validate: %s", v.text)
	}
	bad := h.call(alice, "validate_write", `{"operation":"delete_note","payload":{"id":"missing"}}`)
	if valueAt(t, bad.text, "valid") != "false" || valueAt(t, bad.text, "errors") != "[map[code:NOT_FOUND message:note missing not found]]" {
		t.Fatalf("validate refused: %s", bad.text)
	}
	refused := h.call(alice, "delete_note", `{"id":"missing"}`)
	if !refused.isError || field(t, refused.text, "error.code") != "NOT_FOUND" {
		t.Fatalf("delete of a missing note: %s", refused.text)
	}
	h.seedNote("n1")
	prop := h.call(alice, "delete_note", `{"id":"n1"}`)
	if valueAt(t, prop.text, "proposal.domain_preview.notes_left") != "0" {
		t.Fatalf("proposal: %s", prop.text)
	}
	if h.dom.count("delete_note") != 0 || h.dom.count("create_note") != 0 {
		t.Fatal("a check wrote")
	}
}
