package runtime

import (
	"strings"
	"testing"
)

func TestOneLineKeepsTheFirstSentenceWithinTheBound(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Create a note.", "Create a note."},
		{"Create a note. It lands in the active model.", "Create a note."},
		{"Create a note\nin the active model.", "Create a note"},
		{"  Create a note.  ", "Create a note."},
		{"", ""},
		{strings.Repeat("word ", 30), strings.TrimSpace(strings.Repeat("word ", 15)) + "…"},
		{strings.Repeat("é", 60), strings.Repeat("é", 38) + "…"},
	} {
		if got := oneLine(tc.in, maxCompactDescription); got != tc.want {
			t.Errorf("oneLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := oneLine(tc.in, maxCompactDescription); len(got) > 80 {
			t.Errorf("oneLine(%q) has %d bytes", tc.in, len(got))
		}
	}
}
