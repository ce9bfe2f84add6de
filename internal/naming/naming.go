// Package naming is the one vocabulary of names that the plugin and the
// runtime share: how a name splits into words, how words are rendered
// (PascalCase, camelCase, snake_case, kebab-case), how a name is normalised
// for case- and separator-insensitive matching, and which prefix an enum's
// values conventionally carry. The plugin derives the aliases it writes into
// generated enum tables with it and the runtime derives the aliases of a
// table built without them with it, so both agree.
package naming

import (
	"strings"
	"unicode"
)

// Words splits CamelCase, snake_case, kebab-case, dotted and SCREAMING_CASE
// names into lower-case words: "CreateElement" -> [create element],
// "HTTPServer" -> [http server], "APPLICATION_COMPONENT" -> [application
// component]. Digits stay with the word before them: "Sev1" -> [sev1].
func Words(s string) []string {
	var out []string
	var cur []rune
	rs := []rune(s)
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i, r := range rs {
		switch {
		case r == '_' || r == '-' || r == ' ' || r == '.':
			flush()
		case unicode.IsUpper(r):
			if len(cur) > 0 {
				prev := rs[i-1]
				nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
					flush()
				}
			}
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}

// Pascal joins words in PascalCase: [create element] -> CreateElement.
func Pascal(ws []string) string {
	var b strings.Builder
	for _, w := range ws {
		if w == "" {
			continue
		}
		rs := []rune(w)
		rs[0] = unicode.ToUpper(rs[0])
		b.WriteString(string(rs))
	}
	return b.String()
}

// Camel joins words in camelCase: [create element] -> createElement.
func Camel(ws []string) string {
	p := Pascal(ws)
	if p == "" {
		return p
	}
	rs := []rune(p)
	rs[0] = unicode.ToLower(rs[0])
	return string(rs)
}

// Snake joins words in snake_case: [create element] -> create_element.
func Snake(ws []string) string { return strings.Join(ws, "_") }

// Kebab joins words in kebab-case: [create element] -> create-element.
func Kebab(ws []string) string { return strings.Join(ws, "-") }

// PascalOf renders any name in PascalCase: APPLICATION_COMPONENT ->
// ApplicationComponent. It is the default alias of an enum value once its
// prefix (EnumPrefix) is stripped.
func PascalOf(s string) string { return Pascal(Words(s)) }

// EnumPrefix is the conventional value prefix of an enum, its name in
// UPPER_SNAKE_CASE plus "_": ElementType -> ELEMENT_TYPE_, HTTPMethod ->
// HTTP_METHOD_.
func EnumPrefix(enumName string) string {
	return strings.ToUpper(Snake(Words(enumName))) + "_"
}

// Normalize folds a name for case- and separator-insensitive matching: it
// keeps letters and digits, lower-cased ("Application-Component" ->
// "applicationcomponent").
func Normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}
