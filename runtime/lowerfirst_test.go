package runtime

import (
	"strings"
	"testing"
)

// lowerFirstRunes is lowerFirst through a rune slice, as it was written
// before its ASCII path.
func lowerFirstRunes(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, ".\n"); i >= 0 {
		s = s[:i]
	}
	if s == "" {
		return s
	}
	r := []rune(s)
	if len(r) > 1 && isUpper(r[1]) {
		return s
	}
	if isUpper(r[0]) {
		r[0] += 'a' - 'A'
	}
	return string(r)
}

func TestLowerFirstMatchesRunes(t *testing.T) {
	for _, s := range []string{
		"", " ", "Create a relationship.", "MCP tools", "A", "a", "AB", "Ab", "Éclair", "ÉA", "AÉ", "aÉ",
		"Z\xffbad", "\xff", "A\xff", "\xffA", "Read it\nmore", "  Trim me  ", "日本", "X日本",
	} {
		if got, want := lowerFirst(s), lowerFirstRunes(s); got != want {
			t.Errorf("lowerFirst(%q) = %q, want %q", s, got, want)
		}
	}
}

func FuzzLowerFirst(f *testing.F) {
	f.Add("Create a relationship.")
	f.Add("A\xff")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := lowerFirst(s), lowerFirstRunes(s); got != want {
			t.Errorf("lowerFirst(%q) = %q, want %q", s, got, want)
		}
	})
}
