package gen

// The bool and bytes rules of a field's values as schema keywords. The
// request check applies them (protovalidate); the schema states them so an
// agent's first call meets them: bool.const as const, and the byte counts
// of bytes.len, min_len and max_len as the base64 string lengths and a
// pattern admitting exactly the encodings of those counts the decoder takes.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"github.com/invopop/jsonschema"
)

// boolBytesSchema puts the bool and bytes rules of f's values on v (one
// value's schema) and their words on s (the field's).
func boolBytesSchema(f *fieldModel, s, v *jsonschema.Schema) {
	r, prefix := oneValueRules(f)
	if r == nil {
		return
	}
	switch ruleKindFor(f.proto.Desc, prefix) {
	case "bool":
		if b := r.GetBool(); b != nil && b.HasConst() {
			v.Const = b.GetConst()
		}
	case "bytes":
		if w := bytesLengthSchema(r.GetBytes(), v); w != "" {
			s.Description = appendSentence(s.Description, w)
		}
	}
}

// bytesLengthSchema states bytes.len, min_len and max_len on v, the
// schema of a base64 value, and returns their words ("" when none).
func bytesLengthSchema(b *validate.BytesRules, v *jsonschema.Schema) string {
	if b == nil || !b.HasLen() && !b.HasMinLen() && !b.HasMaxLen() {
		return ""
	}
	lo, hi := uint64(0), int64(-1) // hi -1: no upper bound
	if b.HasMinLen() {
		lo = b.GetMinLen()
	}
	if b.HasMaxLen() {
		hi = int64(b.GetMaxLen())
	}
	if b.HasLen() {
		lo, hi = b.GetLen(), int64(b.GetLen())
	}
	if hi >= 0 && uint64(hi) < lo {
		return "" // no count fits; the request check refuses every value
	}
	if lo > 0 {
		v.MinLength = u64(base64Len(lo, false))
	}
	if hi >= 0 {
		v.MaxLength = u64(base64Len(uint64(hi), true))
	}
	if p, ok := base64CountPattern(lo, hi); ok {
		v.Pattern = p
	}
	switch {
	case hi >= 0 && uint64(hi) == lo:
		return "Must be exactly " + counted(lo, "byte") + " (base64)."
	case hi >= 0 && lo > 0:
		return fmt.Sprintf("Must be %d to %s (base64).", lo, counted(uint64(hi), "byte"))
	case hi >= 0:
		return "Must be at most " + counted(uint64(hi), "byte") + " (base64)."
	}
	return "Must be at least " + counted(lo, "byte") + " (base64)."
}

// base64Len is the length of the base64 of n bytes: padded to a group of
// four, or without padding (the shortest form).
func base64Len(n uint64, padded bool) uint64 {
	if padded {
		return (n + 2) / 3 * 4
	}
	return n/3*4 + []uint64{0, 2, 3}[n%3]
}

// maxPatternRepeat is the largest repeat count an RE2 pattern takes.
const maxPatternRepeat = 1000

// base64CountPattern is base64Pattern narrowed to the encodings of lo to hi
// bytes (hi -1: no upper bound): k groups of four for 3k bytes, then 2
// characters (padded with ==) for one byte more or 3 (padded with =) for
// two. ok is false when a count is past what RE2 repeats; the lengths and
// the words then state the bounds.
func base64CountPattern(lo uint64, hi int64) (string, bool) {
	var branches []string
	for _, a := range []string{`[A-Za-z0-9+/]`, `[A-Za-z0-9_-]`} {
		for t, tail := range []string{"", a + `{2}(?:==)?`, a + `{3}=?`} {
			kmin := int64(0)
			if int64(lo) > int64(t) {
				kmin = (int64(lo) - int64(t) + 2) / 3
			}
			kmax := int64(-1)
			if hi >= 0 {
				if hi < int64(t) {
					continue
				}
				kmax = (hi - int64(t)) / 3
				if kmax < kmin {
					continue
				}
			}
			if kmin > maxPatternRepeat || kmax > maxPatternRepeat {
				return "", false
			}
			if b := groups(a, kmin, kmax) + tail; !slices.Contains(branches, b) {
				branches = append(branches, b) // "" (no bytes) once
			}
		}
	}
	return `^(?:` + strings.Join(branches, "|") + `)$`, true
}

// groups repeats a group of four characters of class a kmin to kmax times
// (kmax -1: no upper bound).
func groups(a string, kmin, kmax int64) string {
	g := `(?:` + a + `{4})`
	switch {
	case kmax == 0:
		return ""
	case kmax < 0 && kmin == 0:
		return g + "*"
	case kmax < 0 && kmin == 1:
		return g + "+"
	case kmax < 0:
		return fmt.Sprintf("%s{%d,}", g, kmin)
	case kmin == 0 && kmax == 1:
		return g + "?"
	case kmin == 1 && kmax == 1:
		return g
	case kmin == kmax:
		return fmt.Sprintf("%s{%d}", g, kmin)
	}
	return fmt.Sprintf("%s{%d,%d}", g, kmin, kmax)
}

// pvKeywords puts the rules of pv with a portable keyword on v, the schema
// of one value: bounds, string in as the enum, a format.
func pvKeywords(pv *pvRules, v *jsonschema.Schema) {
	if v.Type == "integer" || v.Type == "number" {
		pvBounds(pv, v)
	}
	if len(pv.strIn) > 0 {
		for _, x := range pv.strIn {
			v.Enum = append(v.Enum, x)
		}
	}
	if pv.numConst && (v.Type == "integer" || v.Type == "number") {
		v.Const = json.Number(pv.numInText[0])
	}
	if formatKeywords[pv.format] {
		v.Format = pv.format
	}
}

// pvBounds puts pv's bounds on v, a number's schema: a 64-bit integer is
// a decimal string, where a bound does not apply (validators ignore it,
// strict ones refuse it); its description states the bound.
func pvBounds(pv *pvRules, v *jsonschema.Schema) {
	if pv.minimum != nil {
		v.Minimum = numOf(*pv.minimum, pv.f32)
	}
	if pv.maximum != nil {
		v.Maximum = numOf(*pv.maximum, pv.f32)
	}
	if pv.exclusiveMin != nil {
		v.ExclusiveMinimum = numOf(*pv.exclusiveMin, pv.f32)
	}
	if pv.exclusiveMax != nil {
		v.ExclusiveMaximum = numOf(*pv.exclusiveMax, pv.f32)
	}
}

// numOf is x as a JSON number, a float rule's (f32) as floatText states it.
func numOf(x float64, f32 bool) json.Number { return json.Number(floatText(x, f32)) }
