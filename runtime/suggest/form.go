package suggest

import (
	"strings"
	"unicode"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/naming"
)

func newForm(s string) form {
	n := Normalize(s)
	f := form{norm: n, normR: []rune(n)}
	for _, t := range Tokens(s) {
		w := tokenWeight(t)
		f.toks = append(f.toks, token{s: t, r: []rune(t), w: w, stems: stems(t), sing: []rune(singular(t))})
		f.totalW += w
	}
	return f
}

func tokenWeight(t string) float64 {
	switch t {
	case "id":
		return idTokenWeight
	case "of", "the", "a", "an", "to", "for", "and", "or", "by", "in", "on", "at", "with", "is":
		return lowTokenWeight
	}
	return 1
}

// form is one spelling (the name or a synonym) prepared for scoring.
type form struct {
	norm   string
	normR  []rune
	toks   []token
	totalW float64
}

type token struct {
	s     string
	r     []rune
	w     float64
	stems []string
	sing  []rune // singular form, for abbreviated plurals ("props" ~ "properties")
}

// Normalize folds case and drops separators ('_', '-', ' ', '.'): "Application_Component" -> "applicationcomponent".
// Every rune that is neither a letter nor a digit counts as a separator. It is
// the vocabulary's one normalisation (naming.Normalize), which the plugin
// uses too.
func Normalize(s string) string { return naming.Normalize(s) }

// Tokens splits a name into lower-case words at separators, camel-case humps and letter/digit
// boundaries: "parentTaskID" -> [parent task id], "HTTPServer2" -> [http server 2].
func Tokens(s string) []string {
	var toks []string
	rs := []rune(s)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			toks = append(toks, strings.ToLower(string(rs[start:end])))
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		p := rs[i-1]
		switch {
		case unicode.IsDigit(r) != unicode.IsDigit(p):
			flush(i)
			start = i
		case unicode.IsUpper(r) && unicode.IsLower(p):
			flush(i)
			start = i
		case unicode.IsLower(r) && unicode.IsUpper(p) && i-1 > start:
			// "IDField": the last capital of a run starts the next word.
			flush(i - 1)
			start = i - 1
		}
	}
	flush(len(rs))
	return toks
}

// Weights of tokens that say little on their own.
const (
	lowTokenWeight = 0.3 // filler words carry little meaning
	idTokenWeight  = 0.5 // "id" is a suffix on many names and says little on its own
)
