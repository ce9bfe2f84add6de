package impl

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

const (
	// clipLen bounds how much of a name (an unknown key) an error message
	// repeats.
	clipLen = 24
	// excerptLen bounds how much of a rejected value an error message
	// repeats (Excerpt).
	excerptLen = 12
)

// describeByte names the character at raw[i] for a message: 'x', or the
// byte in hex when it does not start valid UTF-8.
func describeByte(raw []byte, i int) string {
	r, size := utf8.DecodeRune(raw[i:])
	if r == utf8.RuneError && size <= 1 {
		return fmt.Sprintf("byte 0x%02X", raw[i])
	}
	return strconv.QuoteRune(r)
}

// ClipQuote quotes s for a message, shortened to clipLen runes.
func ClipQuote(s string) string {
	if len(s) > clipLen {
		cut := 0
		for n := 0; n < clipLen && cut < len(s); n++ {
			_, size := utf8.DecodeRuneInString(s[cut:])
			cut += size
		}
		if cut < len(s) {
			return strconv.Quote(s[:cut]) + "…"
		}
	}
	return strconv.Quote(s)
}

// Excerpt quotes the start of a value the agent sent, for an error message.
// The value may be personal data, so the message never repeats all of it:
// at most half its characters and at most excerptLen, then "…", inside the
// quotes ("JaneDoeSSN123" -> "JaneDo…"). The field path says which value
// it was.
func Excerpt(s string) string {
	n := min(utf8.RuneCountInString(s)/2, excerptLen)
	cut := 0
	for ; n > 0; n-- {
		_, size := utf8.DecodeRuneInString(s[cut:])
		cut += size
	}
	return strconv.Quote(s[:cut] + "…")
}
