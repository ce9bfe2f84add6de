package runtime_test

import "testing"

// A tool's next steps are worked out once and kept: every later answer,
// for any tenant, carries the same sentences as the first.
func TestNextStepsAreTheSameOnEveryCall(t *testing.T) {
	h := newReadHarness(t)
	want := `{"success":true,"note":{"id":"note-a","title":"Buy milk"},"suggestions":["Call delete_note to delete a note"],"warnings":[]}`
	for i := range 3 {
		if got := h.call(alice, "get_note", `{"id":"note-a"}`); got.isError || got.text != want {
			t.Fatalf("call %d: got isError=%v\n%s\nwant\n%s", i+1, got.isError, got.text, want)
		}
	}
}
