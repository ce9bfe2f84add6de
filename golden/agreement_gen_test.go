package golden_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
)

// schemaNode is the part of a portable input schema the agreement test
// generates instances of.
type schemaNode struct {
	Type                 any                    `json:"type"`
	Description          string                 `json:"description"`
	Properties           map[string]*schemaNode `json:"properties"`
	Required             []string               `json:"required"`
	Items                *schemaNode            `json:"items"`
	Enum                 []any                  `json:"enum"`
	Const                any                    `json:"const"`
	Pattern              string                 `json:"pattern"`
	Format               string                 `json:"format"`
	MinLength            *int                   `json:"minLength"`
	MaxLength            *int                   `json:"maxLength"`
	Minimum              *float64               `json:"minimum"`
	Maximum              *float64               `json:"maximum"`
	ExclusiveMinimum     *float64               `json:"exclusiveMinimum"`
	ExclusiveMaximum     *float64               `json:"exclusiveMaximum"`
	MinItems             *int                   `json:"minItems"`
	MaxItems             *int                   `json:"maxItems"`
	AdditionalProperties any                    `json:"additionalProperties"`
	// AnyOf are the candidates of a google.protobuf.Any field.
	AnyOf []*schemaNode `json:"anyOf"`
}

// typ is the schema's JSON type ("" when none or a list of types).
func (s *schemaNode) typ() string {
	t, _ := s.Type.(string)
	return t
}

// propNames are the property names in sorted order, for determinism.
func (s *schemaNode) propNames() []string {
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// instanceMode chooses which optional properties an instance carries.
type instanceMode int

const (
	minimal instanceMode = iota // required properties only
	full                        // every property
	random                      // required ones and a random half of the rest
)

// instance builds a schema-valid value of s; depth bounds the optional
// properties of nested objects.
func instance(r *rand.Rand, s *schemaNode, mode instanceMode, depth int) any {
	if s.Const != nil {
		return s.Const
	}
	if len(s.Enum) > 0 {
		return s.Enum[r.IntN(len(s.Enum))]
	}
	if len(s.AnyOf) > 0 {
		return instance(r, s.AnyOf[r.IntN(len(s.AnyOf))], mode, depth)
	}
	switch s.typ() {
	case "object":
		o := map[string]any{}
		req := map[string]bool{}
		for _, n := range s.Required {
			req[n] = true
		}
		for _, n := range s.propNames() {
			if !req[n] && (mode == minimal || mode == random && r.IntN(2) == 0 || depth > 3) {
				continue
			}
			o[n] = instance(r, s.Properties[n], mode, depth+1)
		}
		return o
	case "array":
		n := 1
		if mode == minimal {
			n = 0
		}
		if mode == random {
			n = r.IntN(3)
		}
		if s.MinItems != nil && n < *s.MinItems {
			n = *s.MinItems
		}
		if s.MaxItems != nil && n > *s.MaxItems {
			n = *s.MaxItems
		}
		out := make([]any, 0, n)
		seenKeys := map[string]bool{}
		for len(out) < n {
			v := instance(r, s.Items, mode, depth+1)
			if m, ok := v.(map[string]any); ok {
				// map entries: each key once.
				if k, ok := m["key"].(string); ok {
					if seenKeys[k] {
						m["key"] = k + fmt.Sprint(len(out))
						if !matches(s.Items.Properties["key"], m["key"].(string)) {
							break
						}
					}
					seenKeys[m["key"].(string)] = true
				}
			}
			out = append(out, v)
		}
		return out
	case "boolean":
		return r.IntN(2) == 0
	case "integer", "number":
		return number(r, s)
	case "string":
		return stringOf(r, s)
	}
	return "x"
}

func number(r *rand.Rand, s *schemaNode) float64 {
	lo, hi := -5.0, 100.0
	if s.Minimum != nil {
		lo = *s.Minimum
	}
	if s.ExclusiveMinimum != nil {
		lo = *s.ExclusiveMinimum + 1
	}
	if s.Maximum != nil {
		hi = *s.Maximum
	}
	if s.ExclusiveMaximum != nil {
		hi = *s.ExclusiveMaximum - 1
	}
	if hi < lo {
		// A narrow exclusive range (0 < x < 1): its midpoint.
		return (*firstOf(s.ExclusiveMinimum, s.Minimum) + *firstOf(s.ExclusiveMaximum, s.Maximum)) / 2
	}
	if s.typ() == "number" && s.ExclusiveMinimum != nil && s.ExclusiveMaximum != nil {
		return (*s.ExclusiveMinimum + *s.ExclusiveMaximum) / 2
	}
	return lo + float64(r.IntN(int(min(hi-lo, 1000))+1))
}

func firstOf(xs ...*float64) *float64 {
	for _, x := range xs {
		if x != nil {
			return x
		}
	}
	zero := 0.0
	return &zero
}

// formatValues are valid strings of the formats input schemas use.
var formatValues = map[string]string{
	"date-time": "2026-03-01T09:00:00Z",
	"uuid":      "0190a4c4-5b6e-7f00-8000-000000000001",
	"email":     "ada@example.org",
	"uri":       "https://example.org/a",
	"hostname":  "example.org",
	"ipv4":      "192.0.2.1",
	"ipv6":      "2001:db8::1",
}

var words = []string{"alpha", "Order Service", "payments", "ada lovelace", "note", "Q3 plan"}

func stringOf(r *rand.Rand, s *schemaNode) string {
	if v, ok := formatValues[s.Format]; ok {
		return v
	}
	var v string
	switch {
	case s.Pattern != "":
		// Padding would break the pattern: draw until the length fits.
		v = fromPattern(r, s.Pattern)
		for i := 0; i < 50 && !lengthFits(s, v); i++ {
			v = fromPattern(r, s.Pattern)
		}
	case strings.Contains(s.Description, "JSON text of an object"):
		v = `{"k":"v"}`
	case strings.Contains(s.Description, "JSON text of an array"):
		v = `[1,"two"]`
	case strings.Contains(s.Description, "JSON text"):
		v = []string{`42`, `"text"`, `{"k":1}`, `null`}[r.IntN(4)]
	default:
		v = words[r.IntN(len(words))]
	}
	if s.MinLength != nil {
		pad := "x"
		if s.Pattern != "" && v != "" {
			pad = string([]rune(v)[len([]rune(v))-1:]) // keeps [0-9]+ and its kind
		}
		for len([]rune(v)) < *s.MinLength {
			v += pad
		}
	}
	if s.MaxLength != nil && len([]rune(v)) > *s.MaxLength {
		v = string([]rune(v)[:*s.MaxLength])
	}
	return v
}

// lengthFits reports v within s's length bounds.
func lengthFits(s *schemaNode, v string) bool {
	n := len([]rune(v))
	return (s.MinLength == nil || n >= *s.MinLength) && (s.MaxLength == nil || n <= *s.MaxLength)
}

func matches(s *schemaNode, v string) bool {
	if s == nil || s.Pattern == "" {
		return true
	}
	re, err := regexp.Compile(s.Pattern)
	return err == nil && re.MatchString(v)
}

// fromPattern builds a short string the RE2 pattern p matches.
func fromPattern(r *rand.Rand, p string) string {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return ""
	}
	var b strings.Builder
	genRegexp(r, re.Simplify(), &b)
	return b.String()
}

func genRegexp(r *rand.Rand, re *syntax.Regexp, b *strings.Builder) {
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		// Prefer a letter or digit of the class: readable and safe.
		var picks []rune
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for c := re.Rune[i]; c <= re.Rune[i+1] && c < 128; c++ {
				if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
					picks = append(picks, c)
				}
			}
		}
		if len(picks) == 0 && len(re.Rune) > 0 {
			picks = append(picks, re.Rune[0])
		}
		if len(picks) > 0 {
			b.WriteRune(picks[r.IntN(len(picks))])
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
	case syntax.OpCapture:
		genRegexp(r, re.Sub[0], b)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			genRegexp(r, s, b)
		}
	case syntax.OpAlternate:
		genRegexp(r, re.Sub[r.IntN(len(re.Sub))], b)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := re.Min, re.Max
		switch re.Op {
		case syntax.OpStar:
			lo, hi = 0, 3
		case syntax.OpPlus:
			lo, hi = 1, 3
		case syntax.OpQuest:
			lo, hi = 0, 1
		}
		if hi < 0 {
			hi = lo + 2
		}
		n := lo + r.IntN(hi-lo+1)
		for range n {
			genRegexp(r, re.Sub[0], b)
		}
	}
}

// unmarshalVia decodes v (a schema value) into out through JSON.
func unmarshalVia(v any, out any) error {
	return json.Unmarshal([]byte(mustMarshal(v)), out)
}
