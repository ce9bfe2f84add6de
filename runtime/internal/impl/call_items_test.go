package impl

import (
	"errors"
	"reflect"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/callmeta"
)

// itemCall is a call of tool import_notes for tenant-a with the test secret
// and call key key.
func itemCall(key string) *Call {
	return &Call{Tool: "import_notes", ClientRequestID: key, RC: callmeta.RequestMetadata{TenantID: "tenant-a", PrincipalID: "ada"}, HasRC: true,
		Rand: &counter{}, IDSecret: []byte("0123456789abcdef0123456789abcdef")}
}

// Inside an item, a request-scoped ID hashes the item's path too: each item
// has its own, the same on every retry with the call's key. The expected
// values are HMAC-SHA256(secret, len|label, len|tenant, len|principal,
// len|tool, len|key, len|path), first 16 bytes, version 8, computed outside Go.
func TestRequestScopedIDInsideAnItemIsTheItemsOwn(t *testing.T) {
	c := itemCall("req-1")
	c.Enter("notes")
	got := map[string]string{}
	for i := range 2 {
		c.EnterIndex(i)
		got[c.path("id")] = c.RequestScopedID()
		c.Leave()
	}
	c.Leave()
	c.Enter("tags")
	c.EnterKey("red")
	got[c.path("id")] = c.RequestScopedID()
	c.Leave()
	c.Leave()
	want := map[string]string{
		"notes[0].id": "012704d8-a406-8784-becb-b269bccf065c",
		"notes[1].id": "d9544211-8cd2-8e33-84eb-1aba0de738ee",
		"tags.red.id": "fbb6af57-5bbd-804b-805d-f61fd8faf08a",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("item IDs:\n got %v\nwant %v", got, want)
	}
	// Outside any item (a singular nested message) the ID is the call's.
	c.Enter("meta")
	if id := c.RequestScopedID(); id != "e027bdc4-f96c-804a-bd6e-df8c1d624160" {
		t.Errorf("request-scoped ID in meta = %q", id)
	}
}

// An item with a key of its own gets the ID of its key, whichever call
// carries it (another call key, none) and wherever it stands in the list.
func TestItemScopedIDDerivesFromTheItemKey(t *testing.T) {
	at := func(callKey string, i int, itemKey string) string {
		c := itemCall(callKey)
		c.Enter("notes")
		c.EnterIndex(i)
		return c.ItemScopedID(itemKey)
	}
	want := "2a77c663-a0a4-8bae-97bc-d0d5f250a76b"
	for _, got := range []string{at("req-1", 0, "k-1"), at("req-2", 3, "k-1"), at("", 1, "k-1")} {
		if got != want {
			t.Errorf("ItemScopedID(k-1) = %q, want %q", got, want)
		}
	}
	if got := at("req-1", 0, ""); got != "012704d8-a406-8784-becb-b269bccf065c" {
		t.Errorf("without an item key: %q, want the item's request-scoped ID", got)
	}
	if got := at("req-1", 0, "k-2"); got == want {
		t.Errorf("another item key gave the same ID %q", got)
	}
}

// An error of a fill inside an item names the field by its whole path.
func TestFillErrorsInsideAnItemNameTheWholePath(t *testing.T) {
	c := &Call{}
	c.Enter("notes")
	c.EnterIndex(2)
	_, err := c.ContextValue(callmeta.ContextTenantID, "owner")
	want := &ErrorEntry{Code: CodePermissionDenied, Field: "notes[2].owner", Message: "cannot fill notes[2].owner: the request carries no authenticated tenant",
		Suggestions: &Suggestions{Hint: "The tenant comes from the authenticated connection, never from tool arguments; reconnect with credentials that carry it."}}
	if !reflect.DeepEqual(err, want) {
		t.Errorf("ContextValue error:\n got %#v\nwant %#v", err, want)
	}
	rerr := c.ResolverError("folder", errors.New("boom"))
	var e *ErrorEntry
	if !errors.As(rerr, &e) || e.Field != "notes[2].folder" || e.Message != "could not resolve notes[2].folder" {
		t.Errorf("ResolverError = %v", rerr)
	}
}

// Two items with the same key are refused, the later one named with the
// index of the first, however many times the key repeats; empty keys are
// no keys.
func TestUniqueItemKeysNamesBothItems(t *testing.T) {
	d := NewDecoder(Limits{})
	keys := []string{"a", "", "b", "a", "", "a"}
	UniqueItemKeys(d, "notes", "client_request_id", keys, func(s string) string { return s })
	UniqueItemKeys(d, "other", "key", []string{"x", "y"}, func(s string) string { return s })
	var got []string
	for _, e := range d.Errors() {
		got = append(got, e.Code+" "+e.Field+": "+e.Message+" / "+e.Suggestions.Hint)
	}
	want := []string{
		"CONSTRAINT_VIOLATION notes[3].client_request_id: client_request_id of notes[3] is also the client_request_id of notes[0]: each item needs its own key / Give every item of notes its own client_request_id; reuse a key only to retry the same item",
		"CONSTRAINT_VIOLATION notes[5].client_request_id: client_request_id of notes[5] is also the client_request_id of notes[0]: each item needs its own key / Give every item of notes its own client_request_id; reuse a key only to retry the same item",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("errors:\n got %q\nwant %q", got, want)
	}
}

// Descending into a nested message and the items of a list, and reading
// context values there, costs no allocation: the path lives in the Call.
func TestEnrichmentPathsDoNotAllocate(t *testing.T) {
	c := itemCall("req-1")
	allocs := testing.AllocsPerRun(100, func() {
		*c = Call{RC: callmeta.RequestMetadata{TenantID: "tenant-a"}, HasRC: true}
		c.Enter("meta")
		if v, err := c.ContextValue(callmeta.ContextTenantID, "tenant_id"); v != "tenant-a" || err != nil {
			t.Fatalf("ContextValue = %q, %v", v, err)
		}
		c.Leave()
		c.Enter("notes")
		for i := range 3 {
			c.EnterIndex(i)
			c.Enter("meta")
			c.Leave()
			c.Leave()
		}
		c.Leave()
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per call, want 0", allocs)
	}
}

// A message with an item key that is also a map's value, or a singular
// field inside an item, is no list item there: UniqueItemKeys checks no
// key of it, so its ID is the request-scoped ID of where it stands, and two
// entries that carry the same key still get IDs of their own.
func TestItemScopedIDOutsideAListItemIsTheRequestScopedID(t *testing.T) {
	at := func(enter func(c *Call)) (item, request string) {
		c := itemCall("req-1")
		enter(c)
		return c.ItemScopedID("k-1"), c.RequestScopedID()
	}
	red, redWant := at(func(c *Call) { c.Enter("by_name"); c.EnterKey("red") })
	blue, blueWant := at(func(c *Call) { c.Enter("by_name"); c.EnterKey("blue") })
	if red != redWant || blue != blueWant {
		t.Errorf("map values: ItemScopedID = %q and %q, want the entries' request-scoped IDs %q and %q", red, blue, redWant, blueWant)
	}
	if red == blue {
		t.Errorf("two map entries with item key k-1 got one ID %q", red)
	}
	main, mainWant := at(func(c *Call) { c.Enter("groups"); c.EnterIndex(0); c.Enter("main") })
	if main != mainWant {
		t.Errorf("singular field in an item: ItemScopedID = %q, want %q", main, mainWant)
	}
	// A list's item inside another item keeps its item key's ID: the same
	// with another call key.
	nested := func(callKey string) string {
		c := itemCall(callKey)
		c.Enter("groups")
		c.EnterIndex(0)
		c.Enter("notes")
		c.EnterIndex(1)
		return c.ItemScopedID("k-1")
	}
	if a, b := nested("req-1"), nested("req-2"); a != b {
		t.Errorf("list item inside an item: ItemScopedID %q with req-1, %q with req-2", a, b)
	}
}
