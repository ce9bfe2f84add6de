package runtime

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// staleState is the answer when the state a user confirmed changed before
// the write; now is the current state (ok false: it no longer exists).
func staleState(field, what string, was EntityState, now EntityState, ok bool) *impl.ErrorEntry {
	after := now.Summary
	if !ok {
		after = "no longer exists"
	}
	return &impl.ErrorEntry{
		Code: impl.CodeProposalStale, Field: field,
		Message: fmt.Sprintf("%s is stale: %s changed since the user saw it (was: %s; now: %s). Nothing was written.",
			what, was.Target, orUnknown(was.Summary), orUnknown(after)),
		Details:     map[string]any{"target": was.Target, "before": was.Summary, "after": after},
		Suggestions: &impl.Suggestions{Hint: "Call the write tool again so the user confirms the current state."},
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// neutralize makes text safe to show a user who decides on it: control
// characters (newlines, escapes) and the Unicode formatting characters that
// reorder or hide text (bidi overrides and isolates, zero-width marks) are
// shown as \uXXXX instead of acting on the display, and invalid UTF-8 as
// U+FFFD.
func neutralize(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unsafeRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			b.WriteRune(utf8.RuneError)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// unsafeRune reports a rune that acts on how text displays rather than
// showing: C0/C1 controls and format characters (Cf: bidi controls,
// zero-width joiners and marks, the BOM), and line/paragraph separators.
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029'
}

// truncateText cuts s to at most n bytes on a rune boundary, marking the cut.
func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
