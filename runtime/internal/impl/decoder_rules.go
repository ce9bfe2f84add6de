package impl

import (
	"fmt"
	"math"
	"net"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The checks below enforce the value rules of agent-supplied fields: the
// mcpwrite rules (lengths, pattern, bounds, item counts) and the
// buf.validate rules the plugin maps onto them, with the same codes.

// ExclusiveMinimum reports x not above min (buf.validate gt).
func (d *Decoder) ExclusiveMinimum(key string, x, min float64) {
	if x <= min {
		d.violation(key, fmt.Sprintf("must be greater than %s, got %s", formatNumber(min), formatNumber(x)))
	}
}

// ExclusiveMaximum reports x not below max (buf.validate lt).
func (d *Decoder) ExclusiveMaximum(key string, x, max float64) {
	if x >= max {
		d.violation(key, fmt.Sprintf("must be less than %s, got %s", formatNumber(max), formatNumber(x)))
	}
}

// StringIn reports s that is not one of allowed (buf.validate string.in).
// The allowed values are the schema's own words, so they are listed.
func (d *Decoder) StringIn(key, s string, allowed ...string) {
	if !slices.Contains(allowed, s) {
		d.report(key, &ErrorEntry{Code: CodeConstraintViolation, Message: "must be one of " + quoteList(allowed), Suggestions: &Suggestions{ValidValues: allowed}})
	}
}

// StringNotIn reports s that is one of denied (buf.validate string.not_in).
func (d *Decoder) StringNotIn(key, s string, denied ...string) {
	if slices.Contains(denied, s) {
		d.violation(key, "must not be any of "+quoteList(denied))
	}
}

// HasPrefix reports s that does not start with prefix (buf.validate
// string.prefix).
func (d *Decoder) HasPrefix(key, s, prefix string) {
	if !strings.HasPrefix(s, prefix) {
		d.violation(key, fmt.Sprintf("must start with %q, got %s", prefix, Excerpt(s)))
	}
}

// HasSuffix reports s that does not end with suffix (buf.validate
// string.suffix).
func (d *Decoder) HasSuffix(key, s, suffix string) {
	if !strings.HasSuffix(s, suffix) {
		d.violation(key, fmt.Sprintf("must end with %q, got %s", suffix, Excerpt(s)))
	}
}

// Contains reports s without sub (buf.validate string.contains).
func (d *Decoder) Contains(key, s, sub string) {
	if !strings.Contains(s, sub) {
		d.violation(key, fmt.Sprintf("must contain %q, got %s", sub, Excerpt(s)))
	}
}

// NotContains reports s with sub (buf.validate string.not_contains).
func (d *Decoder) NotContains(key, s, sub string) {
	if strings.Contains(s, sub) {
		d.violation(key, fmt.Sprintf("must not contain %q, got %s", sub, Excerpt(s)))
	}
}

// NumberIn reports x that is not one of allowed (buf.validate in).
func (d *Decoder) NumberIn(key string, x float64, allowed ...float64) {
	if !slices.Contains(allowed, x) {
		d.violation(key, fmt.Sprintf("must be one of %s, got %s", numberList(allowed), formatNumber(x)))
	}
}

// NumberNotIn reports x that is one of denied (buf.validate not_in).
func (d *Decoder) NumberNotIn(key string, x float64, denied ...float64) {
	if slices.Contains(denied, x) {
		d.violation(key, fmt.Sprintf("must not be any of %s, got %s", numberList(denied), formatNumber(x)))
	}
}

// EnumIn reports an enum value outside allowed (buf.validate enum.in,
// not_in and defined_only), naming the aliases the field accepts.
func (d *Decoder) EnumIn(key string, x int32, t *EnumTable, allowed ...int32) {
	if slices.Contains(allowed, x) {
		return
	}
	valid := make([]string, 0, len(allowed))
	for _, n := range allowed {
		valid = append(valid, t.Alias(n))
	}
	d.report(key, &ErrorEntry{Code: CodeInvalidEnumValue,
		Message:     fmt.Sprintf("%s is not accepted for %s; use one of %s", t.Alias(x), key, strings.Join(valid, ", ")),
		Suggestions: &Suggestions{ValidValues: valid}})
}

// formats are the string formats of buf.validate the decoder checks, with
// the words its message uses.
var formats = map[string]struct {
	words string
	ok    func(string) bool
}{
	"uuid":     {"a UUID such as 3f0c5a5e-8a1f-4c7e-9b1d-2f6a7c9e0b12", isUUID},
	"email":    {"an email address", isEmail},
	"uri":      {"an absolute URI such as https://example.com/x", isURI},
	"hostname": {"a hostname such as api.example.com", isHostname},
	"ip":       {"an IPv4 or IPv6 address", func(s string) bool { return net.ParseIP(s) != nil }},
	"ipv4": {"an IPv4 address", func(s string) bool {
		ip := net.ParseIP(s)
		return ip != nil && ip.To4() != nil && !strings.Contains(s, ":")
	}},
	"ipv6": {"an IPv6 address", func(s string) bool { return net.ParseIP(s) != nil && strings.Contains(s, ":") }},
}

// FormatWords describes a format for descriptions and messages; "" when
// the decoder does not know it.
func FormatWords(format string) string { return formats[format].words }

// Format reports s that is not of the named format (buf.validate
// string.uuid, email, uri, hostname, ip, ipv4, ipv6). The value is not
// echoed, as for patterns.
func (d *Decoder) Format(key, s, format string) {
	f, known := formats[format]
	if !known {
		d.report(key, &ErrorEntry{Code: CodeInternal, Message: "unknown format " + format + " for " + key})
		return
	}
	if !f.ok(s) {
		d.violation(key, fmt.Sprintf("must be %s (got %d characters that are not)", f.words, utf8.RuneCountInString(s)))
	}
}

// UniqueItems reports the first repeated item of xs (buf.validate
// repeated.unique), by index.
func UniqueItems[T comparable](d *Decoder, key string, xs []T) {
	seen := make(map[T]int, len(xs))
	for i, x := range xs {
		if j, dup := seen[x]; dup {
			d.violation(key, fmt.Sprintf("items must be unique: item %d repeats item %d", i, j))
			return
		}
		seen[x] = i
	}
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

func isUUID(s string) bool { return uuidRE.MatchString(s) }

func isEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && a.Name == "" && isHostname(s[strings.LastIndexByte(s, '@')+1:])
}

func isURI(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && !strings.ContainsAny(s, " \t\n")
}

var hostLabel = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$`)

func isHostname(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 253 {
		return false
	}
	labels := strings.Split(s, ".")
	for _, l := range labels {
		if !hostLabel.MatchString(l) {
			return false
		}
	}
	// The last label is not all digits (that would be an IPv4 address).
	return strings.Trim(labels[len(labels)-1], "0123456789") != ""
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = ClipQuote(s)
	}
	return strings.Join(q, ", ")
}

func numberList(xs []float64) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = formatNumber(x)
	}
	return strings.Join(q, ", ")
}

// OneOf reports an agent that sent more than one of keys (members of a
// oneof, or of a (buf.validate.message).oneof rule) and, when required,
// one that sent none. A key holding null counts as not sent.
func (d *Decoder) OneOf(obj *Object, required bool, keys ...string) {
	var first, second string
	n := 0
	for _, k := range keys {
		if v := obj.Get(k); v != nil && v.Kind != KindNull {
			switch n {
			case 0:
				first = k
			case 1:
				second = k
			}
			n++
		}
	}
	switch {
	case n == 0 && required:
		msg := "set exactly one of " + strings.Join(keys, ", ")
		if len(keys) == 1 {
			msg = fmt.Sprintf("missing required field %q", keys[0])
		}
		d.Add(&ErrorEntry{Code: CodeMissingRequired, Field: keys[0], Message: msg})
	case n > 1:
		d.Add(&ErrorEntry{Code: CodeValidation, Field: second, Message: "set only one of " + strings.Join(keys, ", ") + ", not " + first + " and " + second})
	}
}

// MinLength reports s shorter than n characters (Unicode code points).
func (d *Decoder) MinLength(key, s string, n int) {
	if len(s) >= utf8.UTFMax*n {
		return // even four-byte characters make n
	}
	if c := utf8.RuneCountInString(s); c < n {
		d.violation(key, fmt.Sprintf("must be at least %s, got %d", countOf(n, "character"), c))
	}
}

// MaxLength reports s longer than n characters (Unicode code points).
func (d *Decoder) MaxLength(key, s string, n int) {
	if len(s) <= n {
		return // no more characters than bytes
	}
	if c := utf8.RuneCountInString(s); c > n {
		d.violation(key, fmt.Sprintf("must be at most %s, got %d", countOf(n, "character"), c))
	}
}

// Pattern reports s not matching re (a search, as in JSON Schema: anchor
// the pattern to match the whole string).
func (d *Decoder) Pattern(key, s string, re *regexp.Regexp) {
	if re != nil && !re.MatchString(s) {
		// The value is not echoed: free text may carry personal data, and
		// error envelopes are logged and replayed.
		d.violation(key, fmt.Sprintf("must match the pattern %s (got %d characters that do not)", re.String(), utf8.RuneCountInString(s)))
	}
}

// Minimum reports x below min.
func (d *Decoder) Minimum(key string, x, min float64) {
	if x < min {
		d.violation(key, fmt.Sprintf("must be at least %s, got %s", formatNumber(min), formatNumber(x)))
	}
}

// Maximum reports x above max.
func (d *Decoder) Maximum(key string, x, max float64) {
	if x > max {
		d.violation(key, fmt.Sprintf("must be at most %s, got %s", formatNumber(max), formatNumber(x)))
	}
}

// MinItems reports a list of n items shorter than min.
func (d *Decoder) MinItems(key string, n, min int) {
	if n < min {
		d.violation(key, fmt.Sprintf("must have at least %s, got %d", countOf(min, "item"), n))
	}
}

// MaxItems reports a list of n items longer than max.
func (d *Decoder) MaxItems(key string, n, max int) {
	if n > max {
		d.violation(key, fmt.Sprintf("must have at most %s, got %d", countOf(max, "item"), n))
	}
}

func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// formatNumber writes f as the shortest decimal that reads back as f, a
// whole number below 1e21 in digits (2000000, not 2e+06), as an agent
// writes it (an int64 is a string of digits).
func formatNumber(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
