package runtime_test

import (
	"encoding/json"
	"testing"
)

// In a service with proto field names the control arguments are
// client_request_id and dry_run; clientRequestId and dryRun are accepted as
// aliases, and neither is ever taken for a field the server fills.
func TestCamelControlArgumentsAreAliasesInASnakeService(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	first := h.call(alice, "create_note", `{"title":"x","description":"y","clientRequestId":"k-1"}`)
	replay := h.call(alice, "create_note", `{"title":"x","description":"y","client_request_id":"k-1"}`)
	if first.isError || replay.isError {
		t.Fatalf("calls failed:\n%s\n%s", first.text, replay.text)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(replay.text), &out); err != nil {
		t.Fatal(err)
	}
	if out["idempotent_replay"] != true || h.dom.count("create_note") != 1 {
		t.Fatalf("the alias key did not replay (handler ran %d times): %s", h.dom.count("create_note"), replay.text)
	}
	dry := h.call(alice, "create_note", `{"title":"x","description":"y","dryRun":true}`)
	if dry.isError || field(t, dry.text, "preview.request.title") != "x" || h.dom.count("create_note") != 1 {
		t.Fatalf("dryRun: %s", dry.text)
	}
	both := h.call(alice, "create_note", `{"title":"x","description":"y","client_request_id":"k-2","clientRequestId":"k-2"}`)
	if !both.isError || field(t, both.text, "error.code") != "VALIDATION_ERROR" || field(t, both.text, "error.field") != "client_request_id" ||
		field(t, both.text, "error.message") != "client_request_id and clientRequestId are the same argument; send it once" {
		t.Fatalf("both spellings: %s", both.text)
	}
}
