// Package wellknown reads the protobuf well-known types (and bytes) from
// the text an agent writes for them. The runtime's decoder (runtime/internal/impl)
// and the plugin's check of tool examples (internal/gen) both call it, so
// an example is read by the same rules as an agent's call; each caller
// words its own message from the error kind.
package wellknown

import (
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// ErrSyntax is text that is not of the type's form; ErrRange is text of
// its form whose value lies outside the type's range.
var (
	ErrSyntax = errors.New("not of the form")
	ErrRange  = errors.New("out of range")
)

// MaxDurationSeconds is the range of google.protobuf.Duration (10000
// years either way).
const MaxDurationSeconds = 315576000000

// Timestamp reads an RFC 3339 timestamp ("2024-05-01T12:00:00Z", any
// offset, up to nanoseconds) within the range of google.protobuf.Timestamp
// (0001-01-01 to 9999-12-31).
func Timestamp(s string) (*timestamppb.Timestamp, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil, ErrSyntax
	}
	ts := timestamppb.New(t)
	if ts.CheckValid() != nil {
		return nil, ErrRange
	}
	return ts, nil
}

// Duration reads a duration: the protobuf JSON form ("1.5s", "-0.25s",
// "3600s") within ±MaxDurationSeconds, else a Go duration ("90m",
// "1h30m", "250ms").
func Duration(s string) (*durationpb.Duration, error) {
	if dur, ok, inRange := protoDuration(s); ok {
		if !inRange {
			return nil, ErrRange
		}
		return dur, nil
	}
	gd, err := time.ParseDuration(s)
	if err != nil {
		return nil, ErrSyntax
	}
	return durationpb.New(gd), nil
}

// protoDuration parses -?digits(.digits{1,9})?s.
func protoDuration(s string) (dur *durationpb.Duration, ok, inRange bool) {
	body, found := strings.CutSuffix(s, "s")
	if !found {
		return nil, false, false
	}
	neg := strings.HasPrefix(body, "-")
	body = strings.TrimPrefix(body, "-")
	whole, frac, hasFrac := strings.Cut(body, ".")
	if whole == "" || !allDigits(whole) || hasFrac && (frac == "" || len(frac) > 9 || !allDigits(frac)) {
		return nil, false, false
	}
	secs, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || secs > MaxDurationSeconds {
		return nil, true, false
	}
	var nanos int64
	if hasFrac {
		nanos, _ = strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
	}
	if neg {
		secs, nanos = -secs, -nanos
	}
	return &durationpb.Duration{Seconds: secs, Nanos: int32(nanos)}, true, true
}

// FieldMask reads a comma-separated list of paths as the protobuf JSON
// form does ("displayName,owner.teamId"), converting lowerCamel segments
// to the proto field names; snake_case paths are taken as they are,
// blanks around commas are ignored and "*" (AIP-134: the whole resource)
// is kept. "" is the empty mask. A path that is not a dotted path of
// identifiers is returned as bad, with ok false.
func FieldMask(s string) (paths []string, bad string, ok bool) {
	paths = []string{}
	if strings.TrimSpace(s) == "" {
		return paths, "", true
	}
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "*" {
			paths = append(paths, p)
			continue
		}
		snake, ok := MaskPathToSnake(p)
		if !ok {
			return nil, p, false
		}
		paths = append(paths, snake)
	}
	return paths, "", true
}

// MaskPathToSnake converts one dotted path of identifiers to snake_case.
func MaskPathToSnake(p string) (string, bool) {
	if p == "" {
		return "", false
	}
	var b strings.Builder
	for _, seg := range strings.Split(p, ".") {
		if seg == "" || !(isLetter(seg[0]) || seg[0] == '_') {
			return "", false
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			switch {
			case c >= 'A' && c <= 'Z':
				if i > 0 {
					b.WriteByte('_')
				}
				b.WriteByte(c + 'a' - 'A')
			case c >= 'a' && c <= 'z' || isDigit(c) || c == '_':
				b.WriteByte(c)
			default:
				return "", false
			}
		}
	}
	return b.String(), true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// Base64 reads bytes as an agent writes them: base64 in the standard or
// URL alphabet, with or without padding. A string that cannot be base64
// by its length or padding is ErrSyntax; a bad character is the
// base64.CorruptInputError at its offset.
func Base64(s string) ([]byte, error) {
	body := strings.TrimRight(s, "=")
	if pad := len(s) - len(body); len(body)%4 == 1 || pad > 0 && (len(s)%4 != 0 || pad > 2) {
		return nil, ErrSyntax
	}
	enc := base64.RawStdEncoding
	if strings.ContainsAny(body, "-_") {
		enc = base64.RawURLEncoding
	}
	b, err := enc.DecodeString(body)
	if err != nil {
		return nil, err
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}
