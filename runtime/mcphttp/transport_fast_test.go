package mcphttp

import (
	"encoding/json"
	"testing"
)

// SessionUserID writes what encoding/json writes for the pair, whatever the
// strings hold.
func TestSessionUserIDIsJSON(t *testing.T) {
	strs := []string{"", "tenant-a", "alice@example.com", `quo"te`, `back\slash`, "<b>", "a&b", "x>y",
		"tab\there", "\x00", "\x7f", "héllo", "日本", "\u2028", "bad \xff utf8", "a:b", "[\"a\",\"b\"]"}
	for _, a := range strs {
		for _, b := range strs {
			want, err := json.Marshal([2]string{a, b})
			if err != nil {
				t.Fatal(err)
			}
			if got := SessionUserID(a, b); got != string(want) {
				t.Errorf("SessionUserID(%q, %q) = %s, want %s", a, b, got, want)
			}
		}
	}
}
