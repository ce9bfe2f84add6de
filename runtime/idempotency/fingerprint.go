package idempotency

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// maxFingerprintDepth bounds nesting so hostile arguments cannot exhaust the stack.
const maxFingerprintDepth = 512

// Fingerprint returns the hex SHA-256 of CanonicalArguments(args). Two calls
// with the same key and the same fingerprint ask for the same write; the same
// key with another fingerprint is a reused key.
func Fingerprint(args []byte) (string, error) {
	canon, err := CanonicalArguments(args)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}

// FingerprintCanonical is Fingerprint of arguments already in canonical
// form (a caller that parsed them builds it with AppendCanonicalString).
func FingerprintCanonical(canon []byte) string {
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:])
}

// CanonicalArguments returns the canonical JSON that Fingerprint hashes: the
// tool arguments object without its top-level KeyField and DryRunField (in
// either spelling, IsControlField),
// object keys sorted (byte order of their UTF-8) at every level, no
// insignificant whitespace, strings re-escaped in one way (only '"', '\\' and
// control characters escaped; everything else literal UTF-8). Numbers keep
// their literal text: 1, 1.0 and 1e0 are different arguments, since picking a
// numeric model (int64, float64, decimal) would make some distinct values
// equal and a retry re-sends the same text anyway. Empty input and null count
// as {}; anything else that is not one JSON object, or has invalid UTF-8 or a
// duplicate key, is an error.
func CanonicalArguments(args []byte) ([]byte, error) {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return []byte("{}"), nil
	}
	if !utf8.Valid(args) {
		return nil, errors.New("idempotency: tool arguments are not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	c := canonicalizer{dec: dec}
	tok, err := c.token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("idempotency: tool arguments must be a JSON object")
	}
	var out bytes.Buffer
	if err := c.object(&out, 1, true); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("idempotency: tool arguments have data after the JSON object")
	}
	return out.Bytes(), nil
}

type canonicalizer struct{ dec *json.Decoder }

func (c *canonicalizer) token() (json.Token, error) {
	tok, err := c.dec.Token()
	if err == io.EOF {
		return nil, errors.New("idempotency: tool arguments end unexpectedly")
	}
	if err != nil {
		return nil, fmt.Errorf("idempotency: tool arguments are not valid JSON: %w", err)
	}
	return tok, nil
}

// value writes the canonical form of the value starting with tok.
func (c *canonicalizer) value(out *bytes.Buffer, tok json.Token, depth int) error {
	switch v := tok.(type) {
	case json.Delim:
		if depth >= maxFingerprintDepth {
			return fmt.Errorf("idempotency: tool arguments nest deeper than %d levels", maxFingerprintDepth)
		}
		if v == '{' {
			return c.object(out, depth+1, false)
		}
		if v == '[' {
			return c.array(out, depth+1)
		}
		return fmt.Errorf("idempotency: tool arguments are not valid JSON: unexpected %q", rune(v))
	case string:
		writeCanonicalString(out, v)
	case json.Number:
		out.WriteString(string(v))
	case bool:
		if v {
			out.WriteString("true")
		} else {
			out.WriteString("false")
		}
	case nil:
		out.WriteString("null")
	default:
		return fmt.Errorf("idempotency: tool arguments are not valid JSON: unexpected token %v", tok)
	}
	return nil
}

type member struct {
	key string
	val []byte
}

// object reads the members after '{' and writes them sorted by key.
func (c *canonicalizer) object(out *bytes.Buffer, depth int, top bool) error {
	var members []member
	seen := map[string]bool{}
	for {
		tok, err := c.token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok && d == '}' {
			break
		}
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("idempotency: tool arguments are not valid JSON: object key %v is not a string", tok)
		}
		if seen[key] {
			return fmt.Errorf("idempotency: tool arguments repeat the key %q", key)
		}
		seen[key] = true
		vtok, err := c.token()
		if err != nil {
			return err
		}
		var val bytes.Buffer
		if err := c.value(&val, vtok, depth); err != nil {
			return err
		}
		if top && IsControlField(key) {
			continue
		}
		members = append(members, member{key: key, val: val.Bytes()})
	}
	slices.SortFunc(members, func(a, b member) int { return strings.Compare(a.key, b.key) })
	out.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			out.WriteByte(',')
		}
		writeCanonicalString(out, m.key)
		out.WriteByte(':')
		out.Write(m.val)
	}
	out.WriteByte('}')
	return nil
}

// array reads the elements after '[' and writes them in order.
func (c *canonicalizer) array(out *bytes.Buffer, depth int) error {
	out.WriteByte('[')
	for i := 0; ; i++ {
		tok, err := c.token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok && d == ']' {
			break
		}
		if i > 0 {
			out.WriteByte(',')
		}
		if err := c.value(out, tok, depth); err != nil {
			return err
		}
	}
	out.WriteByte(']')
	return nil
}

const hexDigits = "0123456789abcdef"

// writeCanonicalString escapes only what JSON requires, in one fixed way.
func writeCanonicalString(out *bytes.Buffer, s string) {
	out.Write(AppendCanonicalString(out.AvailableBuffer(), s))
}

// AppendCanonicalString appends s as CanonicalArguments writes a string:
// quoted, with only '"', '\\' and control characters escaped, one way.
func AppendCanonicalString(out []byte, s string) []byte {
	out = append(out, '"')
	start := 0 // s[start:i] needs no escape: appended as one run
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b >= 0x20 && b != '"' && b != '\\' {
			continue
		}
		out = append(out, s[start:i]...)
		start = i + 1
		switch b {
		case '"':
			out = append(out, `\"`...)
		case '\\':
			out = append(out, `\\`...)
		case '\n':
			out = append(out, `\n`...)
		case '\r':
			out = append(out, `\r`...)
		case '\t':
			out = append(out, `\t`...)
		case '\b':
			out = append(out, `\b`...)
		case '\f':
			out = append(out, `\f`...)
		default:
			out = append(out, `\u00`...)
			out = append(out, hexDigits[b>>4], hexDigits[b&0xf])
		}
	}
	out = append(out, s[start:]...)
	return append(out, '"')
}
