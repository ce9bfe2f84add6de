package gen

import (
	"regexp"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
)

// TestBase64PatternIsWhatTheDecoderTakes holds the advertised bytes pattern
// and the decoder to the same language: every string up to 9 characters over
// both alphabets and the padding matches the pattern exactly when the
// decoder accepts it (no 4n+1 lengths, no mixed alphabets, padding only to
// a group of 4).
func TestBase64PatternIsWhatTheDecoderTakes(t *testing.T) {
	re := regexp.MustCompile(base64Pattern)
	alphabet := []byte("Q+_=")
	var matched, checked int
	var walk func(prefix []byte)
	walk = func(prefix []byte) {
		s := string(prefix)
		d := mcpwriteimpl.NewDecoder(mcpwriteimpl.Limits{})
		_, ok := d.Bytes(&mcpwriteimpl.Value{Kind: mcpwriteimpl.KindString, Str: s}, "b")
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
