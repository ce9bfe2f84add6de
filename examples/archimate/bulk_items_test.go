package archimate_test

import (
	"testing"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// The generator fills each item of a batch (its id from its key, its layer
// from its type) and keeps item keys unique within the call: the dry run
// shows every item's id and layer, the write gives the items those ids,
// and two items with one key refuse the call before anything is written.
func TestBatchItemsAreFilledByTheServerEachItsOwn(t *testing.T) {
	repo := domain.New()
	s, err := server.New(repo, runtime.WithClock(func() time.Time { return fixedNow }), runtime.WithRequestContextFunc(runtime.StaticRequestContext(devRC)))
	if err != nil {
		t.Fatal(err)
	}
	cs := mcptest.Connect(t, s, mcptest.Options{})
	items := `"elements":[{"type":"Node","name":"Host A","client_request_id":"host-a"},{"type":"ApplicationService","name":"Orders API","client_request_id":"orders-api"}]`

	preview := mustOK(t, cs, "createElements", `{`+items+`,"dry_run":true}`)["preview"].(map[string]any)
	shown := preview["request"].(map[string]any)["elements"].([]any)
	var ids []string
	for i, want := range []string{"Technology", "Application"} {
		it := shown[i].(map[string]any)
		id, _ := it["id"].(string)
		if len(id) != 36 || it["layer"] != want {
			t.Fatalf("dry run elements[%d]: id %q, layer %v (want %s)", i, id, it["layer"], want)
		}
		ids = append(ids, id)
	}
	if ids[0] == ids[1] {
		t.Fatalf("two items share the id %s", ids[0])
	}

	// The write (another call, without the dry run) gives each item the id
	// its key gave it in the dry run.
	written := mustOK(t, cs, "createElements", `{`+items+`}`)["results"].([]any)
	for i, r := range written {
		el := r.(map[string]any)["element"].(map[string]any)
		if el["id"] != ids[i] {
			t.Errorf("elements[%d] written as %v, the dry run showed %s", i, el["id"], ids[i])
		}
	}

	dup := `{"elements":[{"type":"Node","name":"Host C","client_request_id":"host-c"},{"type":"Node","name":"Host D"},{"type":"Node","name":"Host E","client_request_id":"host-c"}]}`
	got, isErr := call(t, cs, "createElements", dup)
	e, _ := got["error"].(map[string]any)
	if !isErr || e["code"] != "CONSTRAINT_VIOLATION" || e["field"] != "elements[2].client_request_id" ||
		e["message"] != "client_request_id of elements[2] is also the client_request_id of elements[0]: each item needs its own key" {
		t.Fatalf("two items with one key: %v", got)
	}
	if n := len(repo.Received()); n != 2 {
		t.Fatalf("the domain received %d requests, want the 2 items written", n)
	}
}
