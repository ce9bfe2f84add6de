package impl

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// bytesPattern is the pattern the plugin advertises for a bytes field, as
// the committed golden output of well_known_types writes it.
func bytesPattern(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("../../../golden/testdata/well_known_types/want/telemetry/v1/telemetryv1mcpwrite/observations.mcpwrite.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if p, ok := x["pattern"].(string); ok && strings.Contains(p, "A-Za-z0-9+/") {
				found[p] = true
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(doc)
	if len(found) != 1 {
		t.Fatalf("found %d distinct base64 patterns in the golden document, want 1: %v", len(found), found)
	}
	for p := range found {
		return p
	}
	return ""
}

// TestBase64PatternIsWhatTheDecoderTakes holds the advertised bytes pattern
// and the decoder to the same language: every string up to 9 characters over
// both alphabets and the padding matches the pattern exactly when the
// decoder accepts it (no 4n+1 lengths, no mixed alphabets, padding only to
// a group of 4).
func TestBase64PatternIsWhatTheDecoderTakes(t *testing.T) {
	re := regexp.MustCompile(bytesPattern(t))
	alphabet := []byte("Q+_=")
	var matched, checked int
	var walk func(prefix []byte)
	walk = func(prefix []byte) {
		s := string(prefix)
		d := NewDecoder(Limits{})
		_, ok := d.Bytes(&Value{Kind: KindString, Str: s}, "b")
		if re.MatchString(s) != ok {
			t.Errorf("%q: pattern matches %v, decoder accepts %v", s, re.MatchString(s), ok)
		}
		checked++
		if ok {
			matched++
		}
		if len(prefix) == 9 {
			return
		}
		for _, c := range alphabet {
			walk(append(prefix, c))
		}
	}
	walk(nil)
	if checked != 349525 || matched == 0 {
		t.Fatalf("checked %d strings, %d accepted; want 349525 checked and some accepted", checked, matched)
	}
}
