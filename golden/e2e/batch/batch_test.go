// Package batch_test drives server fills inside the items of a repeated
// field and the values of a map end to end, through the official MCP Go SDK
// client: every item gets its own fills, the schema leaves them out of the
// item, the dry run shows them per item, an error names the item's field
// by its whole path, and an item's own key is unique within the call and
// keys its REQUEST_SCOPED ID.
package batch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"

	batchv1 "github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/batch/gen/batch/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/batch/gen/batch/v1/batchv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// handler keeps the requests it received; its folder resolver answers
// "inbox", or folderErr.
type handler struct {
	mu        sync.Mutex
	got       []*batchv1.ImportNotesRequest
	folderErr error
}

func (h *handler) ImportNotes(_ context.Context, in *batchv1.ImportNotesRequest) (*batchv1.ImportNotesResponse, error) {
	h.mu.Lock()
	h.got = append(h.got, proto.Clone(in).(*batchv1.ImportNotesRequest))
	h.mu.Unlock()
	// The notes as imported, without owner: the principal ID the server
	// filled it with is never shown to the agent.
	out := &batchv1.ImportNotesResponse{}
	for _, n := range in.GetNotes() {
		n = proto.Clone(n).(*batchv1.Note)
		n.Owner = ""
		out.Notes = append(out.Notes, n)
	}
	return out, nil
}

func (h *handler) ResolveFolder(context.Context, proto.Message) (string, error) {
	if h.folderErr != nil {
		return "", h.folderErr
	}
	return "inbox", nil
}

func (h *handler) last(t *testing.T) *batchv1.ImportNotesRequest {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.got) == 0 {
		t.Fatal("the handler was not called")
	}
	return h.got[len(h.got)-1]
}

var now = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

func connect(t *testing.T, h *handler, principal string) *mcp.ClientSession {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "batch", Version: "test"}, nil)
	rc := func(context.Context, *mcp.CallToolRequest) (runtime.RequestContext, bool) {
		return runtime.RequestContext{TenantID: "acme", PrincipalID: principal}, true
	}
	if err := batchv1mcpwrite.RegisterNoteServiceTools(server, h,
		runtime.WithRequestContextFunc(rc),
		runtime.WithClock(func() time.Time { return now }),
		runtime.WithSecrets([]byte("k7Qm2xVr9LpT4wZs8NcY1bHf6GdJ3eUa"), nil),
	); err != nil {
		t.Fatalf("register: %v", err)
	}
	return mcptest.Connect(t, server, mcptest.Options{})
}

const threeNotes = `"notes":[` +
	`{"kind":"Task","title":"Ship it","client_request_id":"n-1"},` +
	`{"kind":"Idea","title":"Try it","client_request_id":"n-2"},` +
	`{"kind":"Task","title":"Ship it"}]`

// TestEveryItemGetsItsOwnFills: three notes and two tags reach the handler
// each filled on its own.
func TestEveryItemGetsItsOwnFills(t *testing.T) {
	h := &handler{}
	cs := connect(t, h, "ada")
	r := mcptest.Call(t, cs, "import_notes", `{`+threeNotes+`,"tags":[{"key":"red","value":{"label":"Red"}},{"key":"blue","value":{"label":"Blue"}}],"client_request_id":"call-1"}`)
	if r.IsError {
		t.Fatalf("import_notes failed: %s", r.Text)
	}
	got := h.last(t)
	ids := map[string]bool{}
	for i, n := range got.GetNotes() {
		if !strings.HasPrefix(n.GetId(), "01a207a2-3280-7") || ids[n.GetId()] {
			t.Errorf("notes[%d].id = %q: want a UUIDv7 of the call's time, unlike the others", i, n.GetId())
		}
		ids[n.GetId()] = true
		if !n.GetCreatedAt().AsTime().Equal(now) || n.GetOwner() != "ada" || n.GetFolder() != "inbox" {
			t.Errorf("notes[%d]: created_at %v, owner %q, folder %q", i, n.GetCreatedAt().AsTime(), n.GetOwner(), n.GetFolder())
		}
		if want := runtime.ContentHash(n.GetTitle()); n.GetFingerprint() != want {
			t.Errorf("notes[%d].fingerprint = %q, want %q", i, n.GetFingerprint(), want)
		}
	}
	areas := []batchv1.Area{got.GetNotes()[0].GetArea(), got.GetNotes()[1].GetArea(), got.GetNotes()[2].GetArea()}
	if want := []batchv1.Area{batchv1.Area_AREA_WORK, batchv1.Area_AREA_THINKING, batchv1.Area_AREA_WORK}; !reflect.DeepEqual(areas, want) {
		t.Errorf("areas = %v, want %v", areas, want)
	}
	stable := []string{got.GetNotes()[0].GetStableId(), got.GetNotes()[1].GetStableId(), got.GetNotes()[2].GetStableId()}
	if stable[0] == stable[1] || stable[1] == stable[2] || stable[0] == stable[2] || !strings.HasPrefix(stable[0], "note-") {
		t.Errorf("stable ids are not each item's own: %q", stable)
	}
	tags := got.GetTags()
	if tags["red"].GetId() == "" || tags["red"].GetId() == tags["blue"].GetId() || tags["red"].GetId() == got.GetBatchId() {
		t.Errorf("tag ids: red %q, blue %q, batch %q", tags["red"].GetId(), tags["blue"].GetId(), got.GetBatchId())
	}

	// The same call to a server that lost every record (a new server with
	// the same ID secret) gives every item the same stable ID; another call
	// key (or none) keeps the keyed items' IDs and changes the unkeyed
	// item's.
	args := func(callKey string) string {
		return `{` + threeNotes + `,"tags":[{"key":"red","value":{"label":"Red"}},{"key":"blue","value":{"label":"Blue"}}]` + callKey + `}`
	}
	again := func(cs *mcp.ClientSession, callKey string) *batchv1.ImportNotesRequest {
		if r := mcptest.Call(t, cs, "import_notes", args(callKey)); r.IsError {
			t.Fatalf("import_notes failed: %s", r.Text)
		}
		return h.last(t)
	}
	retry := again(connect(t, h, "ada"), `,"client_request_id":"call-1"`)
	other := again(cs, `,"client_request_id":"call-2"`)
	none := again(cs, ``)
	for i, want := range []string{stable[0], stable[1]} {
		for name, m := range map[string]*batchv1.ImportNotesRequest{"call-2": other, "no call key": none} {
			if got := m.GetNotes()[i].GetStableId(); got != want {
				t.Errorf("%s: notes[%d].stable_id = %q, want the item key's %q", name, i, got, want)
			}
		}
	}
	if retry.GetNotes()[2].GetStableId() != stable[2] || other.GetNotes()[2].GetStableId() == stable[2] {
		t.Errorf("unkeyed notes[2].stable_id: first %q, retry %q, other call %q", stable[2], retry.GetNotes()[2].GetStableId(), other.GetNotes()[2].GetStableId())
	}
	if retry.GetTags()["red"].GetId() != tags["red"].GetId() || retry.GetTags()["blue"].GetId() != tags["blue"].GetId() {
		t.Errorf("tag ids: first %q %q, retry %q %q", tags["red"].GetId(), tags["blue"].GetId(), retry.GetTags()["red"].GetId(), retry.GetTags()["blue"].GetId())
	}
}

// TestItemSchemaLeavesServerFillsOut: the item schema has the agent's
// fields only; the key's description says it is the item's own.
func TestItemSchemaLeavesServerFillsOut(t *testing.T) {
	cs := connect(t, &handler{}, "ada")
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var tool *mcp.Tool
	for _, x := range res.Tools {
		if x.Name == "import_notes" {
			tool = x
		}
	}
	if tool == nil {
		t.Fatal("import_notes not listed")
	}
	raw, err := json.Marshal(tool.InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties struct {
			Notes struct {
				Items struct {
					Properties map[string]struct {
						Description string `json:"description"`
					} `json:"properties"`
					Required []string `json:"required"`
				} `json:"items"`
			} `json:"notes"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	item := s.Properties.Notes.Items
	var names []string
	for n := range item.Properties {
		names = append(names, n)
	}
	if fmt.Sprint(sorted(names)) != "[client_request_id kind title]" || fmt.Sprint(item.Required) != "[kind title]" {
		t.Errorf("item properties %v, required %v", sorted(names), item.Required)
	}
	if d := item.Properties["client_request_id"].Description; d != "The note's idempotency key. Each item's own key: no two items of one call share it." {
		t.Errorf("client_request_id description: %q", d)
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// TestDryRunShowsEachItemsFills: the preview holds every item's filled
// fields but the principal's ID, and names what the server fills per item.
func TestDryRunShowsEachItemsFills(t *testing.T) {
	h := &handler{}
	cs := connect(t, h, "ada")
	r := mcptest.Call(t, cs, "import_notes", `{`+threeNotes+`,"dry_run":true}`)
	if r.IsError {
		t.Fatalf("dry run failed: %s", r.Text)
	}
	preview := r.Body["preview"].(map[string]any)
	notes := preview["request"].(map[string]any)["notes"].([]any)
	if len(notes) != 3 {
		t.Fatalf("preview notes: %v", notes)
	}
	for i, n := range notes {
		n := n.(map[string]any)
		for _, f := range []string{"id", "stable_id", "created_at", "area", "fingerprint", "folder"} {
			if v, ok := n[f].(string); !ok || v == "" {
				t.Errorf("preview notes[%d].%s = %v", i, f, n[f])
			}
		}
		// owner is filled with the principal ID: named in server_filled,
		// its value left out of the preview.
		if _, shown := n["owner"]; n["created_at"] != "2026-11-23T09:00:00Z" || shown || n["folder"] != "inbox" {
			t.Errorf("preview notes[%d] = %v", i, n)
		}
	}
	var want []string
	for _, f := range []string{"id", "stable_id", "created_at", "owner", "area", "fingerprint", "folder"} {
		for i := range 3 {
			want = append(want, fmt.Sprintf("notes[%d].%s", i, f))
		}
	}
	// No tags were sent: no tag was filled.
	want = append([]string{"batch_id"}, want...)
	if got, want := fmt.Sprint(preview["server_filled"]), fmt.Sprint(want); got != want {
		t.Errorf("server_filled = %s, want %s", got, want)
	}
	// A map's values are named by their keys, in key order; a key that
	// would read as a path is quoted.
	r = mcptest.Call(t, cs, "import_notes", `{"notes":[{"kind":"Idea","title":"T"}],"tags":[{"key":"red","value":{"label":"Red"}},{"key":"a.b","value":{"label":"AB"}}],"dry_run":true}`)
	preview = r.Body["preview"].(map[string]any)
	if got, want := fmt.Sprint(preview["server_filled"]), `[batch_id notes[0].id notes[0].stable_id notes[0].created_at notes[0].owner notes[0].area notes[0].fingerprint notes[0].folder tags["a.b"].id tags.red.id]`; got != want {
		t.Errorf("server_filled = %s, want %s", got, want)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.got) != 0 {
		t.Errorf("a dry run reached the handler")
	}
}

// errorOf is the single error of an error answer: code, field, message.
func errorOf(t *testing.T, r mcptest.Result) string {
	t.Helper()
	if !r.IsError {
		t.Fatalf("want an error answer, got %s", r.Text)
	}
	es := r.Body["errors"].([]any)
	var out []string
	for _, e := range es {
		e := e.(map[string]any)
		out = append(out, fmt.Sprintf("%s %s: %s", e["code"], e["field"], e["message"]))
	}
	return strings.Join(out, "\n")
}

// TestItemErrorsNameTheItemsField: a duplicate item key, a resolver that
// fails and a missing principal are each answered on notes[i].<field>.
func TestItemErrorsNameTheItemsField(t *testing.T) {
	h := &handler{}
	cs := connect(t, h, "ada")
	dup := `{"notes":[{"kind":"Task","title":"A","client_request_id":"k"},{"kind":"Task","title":"B"},{"kind":"Idea","title":"C","client_request_id":"k"}]}`
	if got, want := errorOf(t, mcptest.Call(t, cs, "import_notes", dup)), "CONSTRAINT_VIOLATION notes[2].client_request_id: client_request_id of notes[2] is also the client_request_id of notes[0]: each item needs its own key"; got != want {
		t.Errorf("duplicate key:\n got %s\nwant %s", got, want)
	}
	// The duplicate comes with the other problems of the same answer.
	both := `{"notes":[{"kind":"Task","title":"A","client_request_id":"k"},{"kind":"Task","title":"B","client_request_id":"k","colour":"red"}]}`
	if got, want := errorOf(t, mcptest.Call(t, cs, "import_notes", both)), "CONSTRAINT_VIOLATION notes[1].client_request_id: client_request_id of notes[1] is also the client_request_id of notes[0]: each item needs its own key\nUNKNOWN_FIELD notes[1].colour: unknown field \"colour\""; got != want {
		t.Errorf("duplicate key with an unknown field:\n got %s\nwant %s", got, want)
	}
	// A field the server fills in each item, sent by the agent: leave it
	// out, and no other field offered.
	sent := mcptest.Call(t, cs, "import_notes", `{"notes":[{"kind":"Task","title":"A"},{"kind":"Task","title":"B","id":"mine"}]}`)
	if got, want := errorOf(t, sent), `UNKNOWN_FIELD notes[1].id: unknown field "notes[1].id": the server fills id itself`; got != want {
		t.Errorf("a server-filled item field sent:\n got %s\nwant %s", got, want)
	}
	if got := fmt.Sprint(sent.Body["error"].(map[string]any)["suggestions"]); got != "map[hint:id is filled by the server (generated UUID v7); leave it out valid_values:[kind title client_request_id]]" {
		t.Errorf("suggestions: %s", got)
	}
	// The same inside a map value, named by its key, dotted or quoted.
	for key, path := range map[string]string{"red": "tags.red.id", "a.b": `tags[\"a.b\"].id`} {
		sent := mcptest.Call(t, cs, "import_notes", `{"notes":[{"kind":"Task","title":"A"}],"tags":[{"key":"`+key+`","value":{"label":"L","id":"mine"}}]}`)
		if got, want := errorOf(t, sent), `UNKNOWN_FIELD `+strings.ReplaceAll(path, `\"`, `"`)+`: unknown field "`+path+`": the server fills id itself`; got != want {
			t.Errorf("a server-filled map value field sent:\n got %s\nwant %s", got, want)
		}
		if got := fmt.Sprint(sent.Body["error"].(map[string]any)["suggestions"]); got != "map[hint:id is filled by the server (deterministic UUID from tenant, tool, client_request_id and the entry's key); leave it out valid_values:[label]]" {
			t.Errorf("suggestions: %s", got)
		}
	}
	four := `{"notes":[{"kind":"Task","title":"A"},{"kind":"Task","title":"B"},{"kind":"Task","title":"C"},{"kind":"Task","title":"D"}]}`
	if got := errorOf(t, mcptest.Call(t, cs, "import_notes", four)); got != "CONSTRAINT_VIOLATION notes: must have at most 3 items, got 4" {
		t.Errorf("four notes: %s", got)
	}
	h.folderErr = &runtime.ErrorEntry{Code: runtime.CodeNotFound, Message: "no folder for this note"}
	if got, want := errorOf(t, mcptest.Call(t, cs, "import_notes", `{"notes":[{"kind":"Task","title":"A"}]}`)), "NOT_FOUND notes[0].folder: no folder for this note"; got != want {
		t.Errorf("resolver error:\n got %s\nwant %s", got, want)
	}
	h.folderErr = errors.New("disk on fire")
	if got, want := errorOf(t, mcptest.Call(t, cs, "import_notes", `{"notes":[{"kind":"Task","title":"A"}]}`)), "INTERNAL notes[0].folder: could not resolve notes[0].folder"; got != want {
		t.Errorf("resolver failure:\n got %s\nwant %s", got, want)
	}
	anon := connect(t, &handler{}, "")
	if got, want := errorOf(t, mcptest.Call(t, anon, "import_notes", `{"notes":[{"kind":"Task","title":"A"}]}`)), "PERMISSION_DENIED notes[0].owner: cannot fill notes[0].owner: the request carries no authenticated principal"; got != want {
		t.Errorf("no principal:\n got %s\nwant %s", got, want)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.got) != 0 {
		t.Errorf("a refused call reached the handler %d times", len(h.got))
	}
}
