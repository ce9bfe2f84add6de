package runtime

import "testing"

func TestNeutralizeShowsWhatWouldActOnTheDisplay(t *testing.T) {
	tests := []struct{ in, want string }{
		{"OrderService", "OrderService"},
		{"naïve ✓ 日本", "naïve ✓ 日本"},
		{"evil\u202Egnp.exe", `evil\u202Egnp.exe`},
		{"line1\nDelete everything", `line1\u000ADelete everything`},
		{"\x1b[31mred", `\u001B[31mred`},
		{"a\u2066b\u2069c\u200Bd", `a\u2066b\u2069c\u200Bd`},
		{"tab\there", `tab\u0009here`},
		{"bad\xffbyte", "bad\uFFFDbyte"},
		{"sep\u2028x", `sep\u2028x`},
	}
	for _, tt := range tests {
		if got := neutralize(tt.in); got != tt.want {
			t.Errorf("neutralize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTruncateTextCutsOnARuneBoundary(t *testing.T) {
	if got := truncateText("ééé", 3); got != "é..." {
		t.Fatalf("got %q", got)
	}
	if got := truncateText("abc", 3); got != "abc" {
		t.Fatalf("got %q", got)
	}
}
