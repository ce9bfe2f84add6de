package impl

import (
	"encoding/binary"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// parseString parses the string at p.pos. what names it in messages
// ("string" or "object key"). ok is false when the string had a problem;
// the first problem of each string is reported.
func (p *jsonParser) parseString(depth int, what string) (string, bool) {
	raw := p.raw
	start := p.pos + 1
	i := start
	// Eight bytes at a time while none ends the string or needs a look.
	for i+8 <= len(raw) && !needsLook(binary.LittleEndian.Uint64(raw[i:])) {
		i += 8
	}
	for ; i < len(raw); i++ {
		c := raw[i]
		if c == '"' {
			p.pos = i + 1
			if i-start > p.lim.MaxStringBytes {
				p.limitReport(start-1, depth-1, fmt.Sprintf("%s is %d bytes; the limit is %d bytes", what, i-start, p.lim.MaxStringBytes), p.lim.MaxStringBytes, tooLongHint)
				return "", false
			}
			if !p.build && what == "string" {
				return "", true
			}
			return p.str(start, i), true
		}
		if c < 0x20 || c == '\\' || c >= 0x80 {
			return p.parseStringSlow(depth, what, start, i)
		}
	}
	p.pos = len(raw)
	p.eof(depth-1, "in "+what)
	return "", false
}

// Masks for needsLook: every byte 0x01, 0x80, ' ', '"' and '\\'.
const (
	lanes01    = 0x0101010101010101
	lanes80    = 0x8080808080808080
	lanesSpace = 0x20 * lanes01
	lanesQuote = '"' * lanes01
	lanesBack  = '\\' * lanes01
)

// needsLook reports whether one of the eight bytes in x is a quote, a
// backslash, a control character or not ASCII: the bytes parseString
// stops at. It may report true for a byte after such a byte, never false
// when one is there.
func needsLook(x uint64) bool {
	q := x ^ lanesQuote // zero lanes where x has a quote
	b := x ^ lanesBack  // zero lanes where x has a backslash
	control := (x - lanesSpace) &^ x
	quote := (q - lanes01) &^ q
	back := (b - lanes01) &^ b
	return (control|quote|back|x)&lanes80 != 0
}

// stringScan is the state of parseStringSlow over one string.
type stringScan struct {
	depth int
	what  string
	start int
	// keep: the decoded string is wanted; escaped: p.buf holds the decoded
	// string so far; bad: a problem was reported.
	keep, escaped, bad bool
	// n counts the decoded bytes so far.
	n int
}

// parseStringSlow handles escapes, non-ASCII and errors from byte i on,
// counting the decoded length and buffering at most the limit.
func (p *jsonParser) parseStringSlow(depth int, what string, start, i int) (string, bool) {
	raw := p.raw
	s := stringScan{depth: depth, what: what, start: start, keep: p.build || what != "string", n: i - start}
	for {
		if i >= len(raw) {
			p.pos = len(raw)
			p.eof(depth-1, "in "+what)
			return "", false
		}
		c := raw[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return p.finishString(&s, i)
		case c == '\\':
			if !s.escaped {
				s.escaped = true
				p.buf = append(p.buf[:0], raw[start:i]...)
			}
			if i+1 >= len(raw) {
				p.pos = len(raw)
				p.eof(depth-1, "in "+what)
				return "", false
			}
			i = p.stringEscape(&s, i)
		case c < 0x20:
			p.stringProblem(&s, i, fmt.Sprintf("unescaped control character U+%04X", c))
			i++
		case c >= 0x80:
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size <= 1 {
				p.stringProblem(&s, i, "invalid UTF-8")
				i++
				continue
			}
			p.stringAdd(&s, raw[i:i+size]...)
			i += size
		default:
			p.stringAdd(&s, c)
			i++
		}
	}
}

// stringProblem reports the string's first problem, at byte off.
func (p *jsonParser) stringProblem(s *stringScan, off int, msg string) {
	if !s.bad {
		s.bad = true
		p.syntax(off, s.depth-1, msg+" in "+s.what)
	}
}

// stringAdd counts decoded bytes b, buffering them while the string is kept,
// escaped, without problem and within the limit.
func (p *jsonParser) stringAdd(s *stringScan, b ...byte) {
	s.n += len(b)
	if s.escaped && s.keep && !s.bad && s.n <= p.lim.MaxStringBytes {
		p.buf = append(p.buf, b...)
	}
}

// finishString ends the string whose closing quote is at byte i.
func (p *jsonParser) finishString(s *stringScan, i int) (string, bool) {
	if s.bad {
		return "", false
	}
	if s.n > p.lim.MaxStringBytes {
		p.limitReport(s.start-1, s.depth-1, fmt.Sprintf("%s is %d bytes; the limit is %d bytes", s.what, s.n, p.lim.MaxStringBytes), p.lim.MaxStringBytes, tooLongHint)
		return "", false
	}
	if !s.keep {
		return "", true
	}
	if s.escaped {
		return string(p.buf), true
	}
	return p.str(s.start, i), true
}

// stringEscape decodes the escape sequence at byte i (a backslash with at least
// one byte after it) and returns where the string goes on.
func (p *jsonParser) stringEscape(s *stringScan, i int) int {
	switch e := p.raw[i+1]; e {
	case '"', '\\', '/':
		p.stringAdd(s, e)
	case 'b':
		p.stringAdd(s, '\b')
	case 'f':
		p.stringAdd(s, '\f')
	case 'n':
		p.stringAdd(s, '\n')
	case 'r':
		p.stringAdd(s, '\r')
	case 't':
		p.stringAdd(s, '\t')
	case 'u':
		return p.unicodeEscape(s, i)
	default:
		if e >= 0x20 && e < 0x7f {
			p.stringProblem(s, i, `invalid escape \`+string(rune(e)))
		} else {
			p.stringProblem(s, i, "invalid escape")
			return i + 1
		}
	}
	return i + 2
}

// unicodeEscape decodes the \u escape at byte i, joining a surrogate pair,
// and returns where the string goes on.
func (p *jsonParser) unicodeEscape(s *stringScan, i int) int {
	raw := p.raw
	r, ok := hex4(raw, i+2)
	if !ok {
		p.stringProblem(s, i, `invalid \u escape (expected 4 hex digits)`)
		return i + 2
	}
	var tmp [utf8.UTFMax]byte
	if utf16.IsSurrogate(r) {
		if r < 0xDC00 && i+12 <= len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
			if lo, ok := hex4(raw, i+8); ok && lo >= 0xDC00 && lo <= 0xDFFF {
				p.stringAdd(s, tmp[:utf8.EncodeRune(tmp[:], utf16.DecodeRune(r, lo))]...)
				return i + 12
			}
		}
		p.stringProblem(s, i, "lone surrogate "+string(raw[i:i+6]))
		return i + 6
	}
	p.stringAdd(s, tmp[:utf8.EncodeRune(tmp[:], r)]...)
	return i + 6
}

// hex4 decodes the four hex digits at raw[i:].
func hex4(raw []byte, i int) (rune, bool) {
	if i+4 > len(raw) {
		return 0, false
	}
	var r rune
	for _, c := range raw[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
