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

// parseStringSlow handles escapes, non-ASCII and errors from byte i on,
// counting the decoded length and buffering at most the limit.
func (p *jsonParser) parseStringSlow(depth int, what string, start, i int) (string, bool) {
	raw := p.raw
	keep := p.build || what != "string"
	escaped := false
	bad := false
	n := i - start // decoded bytes so far
	problem := func(off int, msg string) {
		if !bad {
			bad = true
			p.syntax(off, depth-1, msg+" in "+what)
		}
	}
	add := func(b ...byte) {
		n += len(b)
		if escaped && keep && !bad && n <= p.lim.MaxStringBytes {
			p.buf = append(p.buf, b...)
		}
	}
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
			if bad {
				return "", false
			}
			if n > p.lim.MaxStringBytes {
				p.report(start-1, CodeConstraintViolation, fmt.Sprintf("%s is %d bytes; the limit is %d bytes", what, n, p.lim.MaxStringBytes), depth-1)
				return "", false
			}
			if !keep {
				return "", true
			}
			if escaped {
				return string(p.buf), true
			}
			return p.str(start, i), true
		case c == '\\':
			if !escaped {
				escaped = true
				p.buf = append(p.buf[:0], raw[start:i]...)
			}
			if i+1 >= len(raw) {
				p.pos = len(raw)
				p.eof(depth-1, "in "+what)
				return "", false
			}
			switch e := raw[i+1]; e {
			case '"', '\\', '/':
				add(e)
				i += 2
			case 'b':
				add('\b')
				i += 2
			case 'f':
				add('\f')
				i += 2
			case 'n':
				add('\n')
				i += 2
			case 'r':
				add('\r')
				i += 2
			case 't':
				add('\t')
				i += 2
			case 'u':
				r, ok := hex4(raw, i+2)
				if !ok {
					problem(i, `invalid \u escape (expected 4 hex digits)`)
					i += 2
					continue
				}
				if utf16.IsSurrogate(r) {
					if r < 0xDC00 && i+12 <= len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
						if lo, ok := hex4(raw, i+8); ok && lo >= 0xDC00 && lo <= 0xDFFF {
							var tmp [utf8.UTFMax]byte
							add(tmp[:utf8.EncodeRune(tmp[:], utf16.DecodeRune(r, lo))]...)
							i += 12
							continue
						}
					}
					problem(i, "lone surrogate "+string(raw[i:i+6]))
					i += 6
					continue
				}
				var tmp [utf8.UTFMax]byte
				add(tmp[:utf8.EncodeRune(tmp[:], r)]...)
				i += 6
			default:
				if e >= 0x20 && e < 0x7f {
					problem(i, `invalid escape \`+string(rune(e)))
					i += 2
				} else {
					problem(i, "invalid escape")
					i++
				}
			}
		case c < 0x20:
			problem(i, fmt.Sprintf("unescaped control character U+%04X", c))
			i++
		case c >= 0x80:
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size <= 1 {
				problem(i, "invalid UTF-8")
				i++
				continue
			}
			add(raw[i : i+size]...)
			i += size
		default:
			add(c)
			i++
		}
	}
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
