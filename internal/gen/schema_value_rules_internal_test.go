package gen

import (
	"encoding/base64"
	"regexp"
	"strings"
	"testing"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"github.com/invopop/jsonschema"
)

// The pattern of a bytes field with length rules admits exactly the base64
// the decoder takes (base64Pattern: one alphabet, padded or not) of a
// byte count within the rules: every encoding of 0 to 14 bytes, in both
// alphabets, padded and not, and each with a character cut or added, is
// matched exactly when it is such base64 of a count from lo to hi.
func TestBase64CountPatternAdmitsExactlyTheCounts(t *testing.T) {
	whole := regexp.MustCompile(base64Pattern)
	var samples []string
	for n := 0; n <= 14; n++ {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(0xfb + 7*i) // both alphabets' own characters appear
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			s := enc.EncodeToString(b)
			samples = append(samples, s, s+"A", s+"=")
			if s != "" {
				samples = append(samples, s[:len(s)-1])
			}
		}
	}
	count := func(s string) (int, bool) {
		if !whole.MatchString(s) {
			return 0, false
		}
		raw := strings.TrimRight(s, "=")
		enc := base64.RawStdEncoding
		if strings.ContainsAny(raw, "-_") {
			enc = base64.RawURLEncoding
		}
		b, err := enc.DecodeString(raw)
		return len(b), err == nil
	}
	bounds := [][2]int64{{0, -1}, {1, -1}, {3, -1}, {4, 4}, {3, 12}, {0, 5}, {1, 2}, {0, 0}, {5, 7}, {7, 14}}
	matched := 0
	for _, lh := range bounds {
		p, ok := base64CountPattern(uint64(lh[0]), lh[1])
		if !ok {
			t.Fatalf("%v: no pattern", lh)
		}
		re := regexp.MustCompile(p)
		for _, s := range samples {
			n, valid := count(s)
			want := valid && int64(n) >= lh[0] && (lh[1] < 0 || int64(n) <= lh[1])
			if re.MatchString(s) != want {
				t.Errorf("bytes %d to %d: %q matched %v, want %v (decodes: %v, %d bytes)", lh[0], lh[1], s, re.MatchString(s), want, valid, n)
			}
			if want {
				matched++
			}
		}
	}
	if matched != 608 {
		t.Errorf("%d samples matched a pattern, want 608", matched)
	}
	if _, ok := base64CountPattern(3001, 6000); ok {
		t.Error("a count past what RE2 repeats must leave the pattern to base64Pattern")
	}
}

// Counts in words say "1 byte" and "1 item", and the plural otherwise.
func TestCountWordsAgreeWithTheirNumber(t *testing.T) {
	u32 := func(n uint32) *uint32 { return &n }
	rules := func(lo, hi uint64) *validate.BytesRules {
		return validate.BytesRules_builder{MinLen: &lo, MaxLen: &hi}.Build()
	}
	exact := func(n uint64) *validate.BytesRules { return validate.BytesRules_builder{Len: &n}.Build() }
	for got, want := range map[string]string{
		itemCountWords(u32(1), u32(1)):                        "The array holds exactly 1 item.",
		itemCountWords(u32(1), u32(100)):                      "The array holds 1 to 100 items.",
		itemCountWords(nil, u32(1)):                           "The array holds at most 1 item.",
		itemCountWords(u32(2), nil):                           "The array holds at least 2 items.",
		bytesLengthSchema(exact(1), &jsonschema.Schema{}):     "Must be exactly 1 byte (base64).",
		bytesLengthSchema(rules(0, 1), &jsonschema.Schema{}):  "Must be at most 1 byte (base64).",
		bytesLengthSchema(rules(3, 12), &jsonschema.Schema{}): "Must be 3 to 12 bytes (base64).",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
