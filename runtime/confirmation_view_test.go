package runtime

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// A person reads one "field: value" line per value: nested fields by
// dotted path, list elements by index, scalar lists joined, text unquoted
// and made safe to show on one line.
func TestPersonLinesShowOneFieldPerLine(t *testing.T) {
	raw := []byte(`{"order_number":"PO-1","supplier_id":"7","confirm":true,"tags":["a","b"],` +
		`"items":[{"sku":"BOLT","quantity":2},{"sku":"NUT\nX","quantity":1}],"note":{"text":"hi","empty":{}},"none":[]}`)
	want := "order_number: PO-1\nsupplier_id: 7\nconfirm: true\ntags: a, b\n" +
		"items[0].sku: BOLT\nitems[0].quantity: 2\nitems[1].sku: NUT\\u000AX\nitems[1].quantity: 1\n" +
		"note.text: hi\nnote.empty: {}\nnone: "
	if got := personLines(raw); got != want {
		t.Errorf("personLines:\n got %q\nwant %q", got, want)
	}
}

// Server-filled fields leave the view, through nested objects and lists,
// and an object left empty goes with them.
func TestDropPathRemovesServerFilledFields(t *testing.T) {
	obj, errs := impl.Parse([]byte(`{"id":"t1","meta":{"tenantId":"acme","principalId":"u1"},`+
		`"items":[{"sku":"A","lineId":"l1"},{"sku":"B","lineId":"l2"}],"rootDir":"/srv/projects/acme"}`), impl.Limits{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, p := range [][]string{{"meta", "tenantId"}, {"meta", "principalId"}, {"items[]", "lineId"}, {"rootDir"}, {"absent"}, {"id", "deeper"}} {
		dropPath(obj, p)
	}
	var buf bytes.Buffer
	writeObject(&buf, obj)
	if got, want := buf.String(), `{"id":"t1","items":[{"sku":"A"},{"sku":"B"}]}`; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

// A dotted path through a repeated message, as a ServerFill names the
// field of each item ("notes.owner"), drops the field from every item.
func TestDropPathFollowsAPlainSegmentIntoEachItem(t *testing.T) {
	obj, errs := impl.Parse([]byte(`{"notes":[{"title":"A","owner":"ada"},{"title":"B","owner":"ada"}],"tags":["x"]}`), impl.Limits{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	dropPath(obj, []string{"notes", "owner"})
	dropPath(obj, []string{"tags", "id"})
	var buf bytes.Buffer
	writeObject(&buf, obj)
	if got, want := buf.String(), `{"notes":[{"title":"A"},{"title":"B"}],"tags":["x"]}`; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

// The person's view of a request: the agent's own value of a reference (a
// name stays a name), a resolved fact kept, and the request context,
// generated timestamps, an overridable session default and the
// preview_unless flag left out.
func TestPersonRequestShowsTheAgentsRequest(t *testing.T) {
	m, err := structpb.NewStruct(map[string]any{
		"person": "p-1", "note": "hello", "version": 3, "confirm": true, "root": "/srv/projects/acme",
		"meta": map[string]any{"tenant_id": "acme", "requested_at": "2026-11-22T10:00:00Z"},
	})
	if err != nil {
		t.Fatal(err)
	}
	d := &schemadoc.Tool{
		Kind: "ACTION",
		ServerFills: []schemadoc.ServerFill{
			{Field: "meta.tenant_id", Source: "context"},
			{Field: "meta.requested_at", Source: "generated"},
			{Field: "root", Source: "resolver", Overridable: true},
			{Field: "version", Source: "resolver"},
		},
		References:    []schemadoc.Reference{{Field: "person", Kind: "person"}},
		PreviewUnless: &schemadoc.PreviewUnless{Field: "confirm", Argument: "confirm"},
	}
	body, errs := impl.Parse([]byte(`{"person":"Ada Lovelace","note":"hello","confirm":true}`), impl.Limits{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got, err := (answerShape{}).personRequest(d, m, body)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"note":"hello","person":"Ada Lovelace","version":3}`; string(got) != want {
		t.Errorf("personRequest = %s, want %s", got, want)
	}
	if lines, want := personLines(got), "note: hello\nperson: Ada Lovelace\nversion: 3"; lines != want {
		t.Errorf("personLines = %q, want %q", lines, want)
	}
}
