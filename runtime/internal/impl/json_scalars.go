package impl

import (
	"strings"
)

// parseNumber scans the longest run of number characters and checks it
// against the JSON grammar, so one malformed number is one error and
// parsing goes on. The literal is kept as written.
func (p *jsonParser) parseNumber(depth int) *Value {
	raw := p.raw
	start := p.pos
	if raw[start] == '-' && start+1 < len(raw) && isLetter(raw[start+1]) {
		return p.parseLiteral(depth)
	}
	i := start
	for i < len(raw) && isNumberByte(raw[i]) {
		i++
	}
	p.pos = i
	if msg := checkNumber(raw[start:i]); msg != "" {
		p.syntax(start, depth-1, msg)
		return nil
	}
	v := p.newValue(KindNumber)
	if v != nil {
		v.Str = p.str(start, i)
	}
	return v
}

func isNumberByte(c byte) bool {
	return isDigit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// checkNumber returns why tok is not a JSON number, or "".
func checkNumber(tok []byte) string {
	bad := "malformed number " + Excerpt(string(tok))
	i := 0
	if i < len(tok) && tok[i] == '-' {
		i++
	}
	switch {
	case i < len(tok) && tok[i] == '0':
		i++
		if i < len(tok) && isDigit(tok[i]) {
			return "number " + Excerpt(string(tok)) + " has a leading zero"
		}
	case i < len(tok) && isDigit(tok[i]):
		for i < len(tok) && isDigit(tok[i]) {
			i++
		}
	default:
		return bad
	}
	if i < len(tok) && tok[i] == '.' {
		i++
		if i == len(tok) || !isDigit(tok[i]) {
			return bad
		}
		for i < len(tok) && isDigit(tok[i]) {
			i++
		}
	}
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		i++
		if i < len(tok) && (tok[i] == '+' || tok[i] == '-') {
			i++
		}
		if i == len(tok) || !isDigit(tok[i]) {
			return bad
		}
		for i < len(tok) && isDigit(tok[i]) {
			i++
		}
	}
	if i != len(tok) {
		return bad
	}
	return ""
}

// parseLiteral reads a bare word: true, false and null are values; the
// words agents send from other languages (NaN, Infinity, True, None, an
// unquoted string) are reported and skipped.
func (p *jsonParser) parseLiteral(depth int) *Value {
	raw := p.raw
	start := p.pos
	i := start
	if raw[i] == '-' {
		i++
	}
	for i < len(raw) && (isLetter(raw[i]) || isDigit(raw[i]) || raw[i] == '_') {
		i++
	}
	p.pos = i
	word := raw[start:i]
	switch string(word) {
	case "true", "false":
		v := p.newValue(KindBool)
		if v != nil {
			v.Bool = word[0] == 't'
		}
		return v
	case "null":
		return p.newValue(KindNull)
	case "NaN", "Infinity", "-Infinity":
		p.syntax(start, depth-1, string(word)+" is not a JSON number; send a finite number")
		return nil
	}
	switch lw := strings.ToLower(string(word)); lw {
	case "true", "false", "null":
		p.syntax(start, depth-1, string(word)+" is not a JSON literal; use "+lw)
	case "none", "nil", "undefined":
		p.syntax(start, depth-1, string(word)+" is not a JSON literal; use null")
	default:
		p.syntax(start, depth-1, "unexpected word "+Excerpt(string(word))+"; strings must be in double quotes")
	}
	return nil
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
