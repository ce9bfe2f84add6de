package idempotency

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

func TestValidateKeyReportsExactlyWhatIsWrong(t *testing.T) {
	const prefix = "client_request_id must be 1-255 characters of A-Z a-z 0-9 _ - ("
	cases := []struct {
		name, key, want string
	}{
		{"uuid style key is valid", "createElement-550e8400-e29b-41d4-a716-446655440000", ""},
		{"single character is valid", "a", ""},
		{"underscore and digits are valid", "batch_07_item_3", ""},
		{"255 characters is valid", strings.Repeat("k", 255), ""},
		{"empty key", "", prefix + "got an empty string)"},
		{"256 characters", strings.Repeat("k", 256), prefix + "got 256 characters)"},
		{"300 characters", strings.Repeat("k", 300), prefix + "got 300 characters)"},
		{"space", "create element", prefix + "character ' ' at position 7 is not allowed)"},
		{"colon first", ":abc", prefix + "character ':' at position 1 is not allowed)"},
		{"dot last", "abc.", prefix + "character '.' at position 4 is not allowed)"},
		{"non-ASCII letter counts as one position", "äb c", prefix + "character 'ä' at position 1 is not allowed)"},
		{"position counts characters, not bytes", "éa:", prefix + "character 'é' at position 1 is not allowed)"},
		{"newline is quoted", "ab\n", prefix + "character '\\n' at position 3 is not allowed)"},
		{"invalid UTF-8", "ab\xff", prefix + "byte 0xff at position 3 is not valid UTF-8)"},
		{"length is reported before characters", strings.Repeat(" ", 256), prefix + "got 256 characters)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateKey(tc.key)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("ValidateKey(%q) = %v, want nil", tc.key, err)
				}
				return
			}
			if err == nil || err.Error() != tc.want {
				t.Fatalf("ValidateKey(%q) = %v, want %q", tc.key, err, tc.want)
			}
			if !errors.Is(err, ErrInvalidKey) {
				t.Errorf("errors.Is(err, ErrInvalidKey) = false for %v", err)
			}
		})
	}
}

func TestKeyPatternAgreesWithValidateKey(t *testing.T) {
	re := regexp.MustCompile(KeyPattern)
	for _, key := range []string{"", "a", "a b", "ab-_9Z", strings.Repeat("x", 255), strings.Repeat("x", 256), "é", "a:b"} {
		if got, want := re.MatchString(key), ValidateKey(key) == nil; got != want {
			t.Errorf("KeyPattern matches %q = %v, ValidateKey accepts = %v", key, got, want)
		}
	}
}

func TestScopedKeySeparatesPrincipalsAndCannotBeForged(t *testing.T) {
	a := ScopedKey("t", "alice", "createElement", "k-1")
	if want := (Key{Tenant: "t", Tool: "createElement", Key: "5:alice:k-1"}); a != want {
		t.Fatalf("ScopedKey = %+v, want %+v", a, want)
	}
	if b := ScopedKey("t", "bob", "createElement", "k-1"); b == a {
		t.Fatal("two principals share a key")
	}
	// A principal containing the separator cannot spell another pair.
	if ScopedKey("t", "a:b", "x", "c") == ScopedKey("t", "a", "x", "b:c") {
		t.Fatal("principal/key pairs collide")
	}
	// The scoped key is "<principal's length in bytes>:<principal>:<key>",
	// whatever the principal, made in one allocation.
	for _, p := range []string{"", "a", "Ä-user", strings.Repeat("p", 9), strings.Repeat("p", 10), strings.Repeat("é", 150)} {
		if got, want := ScopedKey("t", p, "x", "k:1").Key, fmt.Sprintf("%d:%s:%s", len(p), p, "k:1"); got != want {
			t.Errorf("ScopedKey(%q).Key = %q, want %q", p, got, want)
		}
	}
	principal, key := strings.Repeat("u", 10), strings.Repeat("k", 7) // not constants: a constant boxes for free
	// The key is kept (scopedKeySink), as a caller keeps it: a result
	// dropped may be built on the stack when the call is inlined.
	if n := testing.AllocsPerRun(100, func() { scopedKeySink = ScopedKey("t", principal, "x", key) }); n != 1 {
		t.Errorf("ScopedKey allocates %v times, want 1", n)
	}
}

// scopedKeySink keeps what the allocation count's ScopedKey makes.
var scopedKeySink Key
