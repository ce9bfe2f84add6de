package mcpwriteimpl

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
				p.report(start-1, CodeConstraintViolation, fmt.Sprintf("%s is %d bytes; the limit is %d bytes", what, i-start, p.lim.MaxStringBytes), depth-1)
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
	p     *jsonParser
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
	s := stringScan{p: p, depth: depth, what: what, start: start, keep: p.build || what != "string", n: i - start}
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
			return s.finish(i)
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
			i = s.escape(i)
		case c < 0x20:
			s.problem(i, fmt.Sprintf("unescaped control character U+%04X", c))
			i++
		case c >= 0x80:
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size <= 1 {
				s.problem(i, "invalid UTF-8")
				i++
				continue
			}
			s.add(raw[i : i+size]...)
			i += size
		default:
			s.add(c)
			i++
		}
	}
}

// problem reports the string's first problem, at byte off.
func (s *stringScan) problem(off int, msg string) {
	if !s.bad {
		s.bad = true
		s.p.syntax(off, s.depth-1, msg+" in "+s.what)
	}
}

// add counts decoded bytes b, buffering them while the string is kept,
// escaped, without problem and within the limit.
func (s *stringScan) add(b ...byte) {
	s.n += len(b)
	if s.escaped && s.keep && !s.bad && s.n <= s.p.lim.MaxStringBytes {
		s.p.buf = append(s.p.buf, b...)
	}
}

// finish ends the string whose closing quote is at byte i.
func (s *stringScan) finish(i int) (string, bool) {
	p := s.p
	if s.bad {
		return "", false
	}
	if s.n > p.lim.MaxStringBytes {
		p.report(s.start-1, CodeConstraintViolation, fmt.Sprintf("%s is %d bytes; the limit is %d bytes", s.what, s.n, p.lim.MaxStringBytes), s.depth-1)
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

// escape decodes the escape sequence at byte i (a backslash with at least
// one byte after it) and returns where the string goes on.
func (s *stringScan) escape(i int) int {
	switch e := s.p.raw[i+1]; e {
	case '"', '\\', '/':
		s.add(e)
	case 'b':
		s.add('\b')
	case 'f':
		s.add('\f')
	case 'n':
		s.add('\n')
	case 'r':
		s.add('\r')
	case 't':
		s.add('\t')
	case 'u':
		return s.unicodeEscape(i)
	default:
		if e >= 0x20 && e < 0x7f {
			s.problem(i, `invalid escape \`+string(rune(e)))
		} else {
			s.problem(i, "invalid escape")
			return i + 1
		}
	}
	return i + 2
}

// unicodeEscape decodes the \u escape at byte i, joining a surrogate pair,
// and returns where the string goes on.
func (s *stringScan) unicodeEscape(i int) int {
	raw := s.p.raw
	r, ok := hex4(raw, i+2)
	if !ok {
		s.problem(i, `invalid \u escape (expected 4 hex digits)`)
		return i + 2
	}
	var tmp [utf8.UTFMax]byte
	if utf16.IsSurrogate(r) {
		if r < 0xDC00 && i+12 <= len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
			if lo, ok := hex4(raw, i+8); ok && lo >= 0xDC00 && lo <= 0xDFFF {
				s.add(tmp[:utf8.EncodeRune(tmp[:], utf16.DecodeRune(r, lo))]...)
				return i + 12
			}
		}
		s.problem(i, "lone surrogate "+string(raw[i:i+6]))
		return i + 6
	}
	s.add(tmp[:utf8.EncodeRune(tmp[:], r)]...)
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
