package idempotency

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"
)

func TestCanonicalArgumentsExactOutput(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"keys sorted and whitespace dropped", "{ \"b\" : 1 ,\n\t\"a\" : [ true , false , null ] }", `{"a":[true,false,null],"b":1}`},
		{"nested objects sorted", `{"z":{"y":1,"x":{"b":2,"a":1}},"a":[{"d":1,"c":2}]}`, `{"a":[{"c":2,"d":1}],"z":{"x":{"a":1,"b":2},"y":1}}`},
		{"key and dry run removed at top level only", `{"client_request_id":"k1","dry_run":true,"name":"x","meta":{"client_request_id":"keep","dry_run":false}}`, `{"meta":{"client_request_id":"keep","dry_run":false},"name":"x"}`},
		{"numbers keep their literal text", `{"a":1.0,"b":1,"c":1e2,"d":-0,"e":12345678901234567890123}`, `{"a":1.0,"b":1,"c":1e2,"d":-0,"e":12345678901234567890123}`},
		{"string escapes re-encoded one way", `{"s":"\u0041\/\u00e9\n\u0001\"\\"}`, `{"s":"A/é\n\u0001\"\\"}`},
		{"html characters stay literal", `{"s":"<a&b>"}`, `{"s":"<a&b>"}`},
		{"escaped key sorts by its value", `{"\u0062":1,"a":2}`, `{"a":2,"b":1}`},
		{"empty input is an empty object", "", `{}`},
		{"null is an empty object", " null ", `{}`},
		{"only the key is an empty object", `{"client_request_id":"k"}`, `{}`},
		{"key and dry run in JSON naming removed too", `{"clientRequestId":"k1","dryRun":true,"name":"x"}`, `{"name":"x"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CanonicalArguments([]byte(tc.in))
			if err != nil || string(got) != tc.want {
				t.Fatalf("CanonicalArguments(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestCanonicalArgumentsRejectsBadInput(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"array", `[1]`, "idempotency: tool arguments must be a JSON object"},
		{"string", `"x"`, "idempotency: tool arguments must be a JSON object"},
		{"duplicate key", `{"a":1,"a":2}`, `idempotency: tool arguments repeat the key "a"`},
		{"nested duplicate key", `{"o":{"b":1,"b":1}}`, `idempotency: tool arguments repeat the key "b"`},
		{"trailing data", `{} {}`, "idempotency: tool arguments have data after the JSON object"},
		{"truncated", `{"a":`, "idempotency: tool arguments end unexpectedly"},
		{"invalid UTF-8", "{\"a\":\"\xff\"}", "idempotency: tool arguments are not valid UTF-8"},
		{"too deep", `{"a":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`, "idempotency: tool arguments nest deeper than 512 levels"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Fingerprint([]byte(tc.in))
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Fingerprint(%q) = %q, %v; want error %q", tc.in, got, err, tc.want)
			}
		})
	}
	if _, err := Fingerprint([]byte(`{"a" 1}`)); err == nil || !strings.HasPrefix(err.Error(), "idempotency: tool arguments are not valid JSON: ") {
		t.Errorf("missing colon: err = %v, want a not-valid-JSON error", err)
	}
}

func TestFingerprintKnownValue(t *testing.T) {
	// printf '{"name":"OrderService","type":"ApplicationComponent"}' | sha256sum
	const want = "1ff3dccbd858968dd9ff6c472ca380e516f8cd90b2200e313cc1a4473599d036"
	got, err := Fingerprint([]byte(`{"type":"ApplicationComponent","client_request_id":"k","name":"OrderService","dry_run":true}`))
	if err != nil || got != want {
		t.Fatalf("Fingerprint = %q, %v; want %q", got, err, want)
	}
}

// numLit is a JSON number kept as literal text.
type numLit string

// genValue builds a random JSON value (map[string]any, []any, string, numLit,
// bool, nil).
func genValue(r *rand.Rand, depth int) any {
	k := r.IntN(9)
	if depth >= 4 {
		k = r.IntN(5)
	}
	switch k {
	case 0:
		return genString(r)
	case 1:
		return numLit([]string{"0", "1", "-1", "1.0", "1e2", "3.25", "-0.5E-3", "12345678901234567890"}[r.IntN(8)])
	case 2:
		return r.IntN(2) == 0
	case 3:
		return nil
	case 4:
		return numLit(strconv.Itoa(r.IntN(1000)))
	case 5, 6:
		m := map[string]any{}
		for range r.IntN(5) {
			m[genString(r)] = genValue(r, depth+1)
		}
		return m
	default:
		a := make([]any, r.IntN(4))
		for i := range a {
			a[i] = genValue(r, depth+1)
		}
		return a
	}
}

func genString(r *rand.Rand) string {
	alphabet := []rune("abcXYZ_-09 \"/\n\t\x01é€😀<&>")
	b := make([]rune, r.IntN(6))
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// render writes v as JSON with a random key order, random whitespace and a
// random (valid) escaping of every string.
func render(r *rand.Rand, buf *bytes.Buffer, v any) {
	ws := func() {
		for range r.IntN(3) {
			buf.WriteByte(" \t\n\r"[r.IntN(4)])
		}
	}
	ws()
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			ws()
			renderString(r, buf, k)
			ws()
			buf.WriteByte(':')
			render(r, buf, v[k])
		}
		ws()
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			render(r, buf, e)
		}
		ws()
		buf.WriteByte(']')
	case string:
		renderString(r, buf, v)
	case numLit:
		buf.WriteString(string(v))
	case bool:
		buf.WriteString(strconv.FormatBool(v))
	case nil:
		buf.WriteString("null")
	}
	ws()
}

func renderString(r *rand.Rand, buf *bytes.Buffer, s string) {
	buf.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			buf.WriteByte('\\')
			buf.WriteRune(c)
		case c < 0x20 || r.IntN(3) == 0:
			if c > 0xffff {
				hi, lo := 0xd800+((c-0x10000)>>10), 0xdc00+((c-0x10000)&0x3ff)
				fmt.Fprintf(buf, "\\u%04x\\u%04X", hi, lo)
			} else if c == '/' && r.IntN(2) == 0 {
				buf.WriteString(`\/`)
			} else {
				fmt.Fprintf(buf, "\\u%04x", c)
			}
		default:
			buf.WriteRune(c)
		}
	}
	buf.WriteByte('"')
}

// oracle is the expected canonical form, written independently of the code
// under test: sorted keys, no whitespace, minimal escaping.
func oracle(buf *strings.Builder, v any) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			oracle(buf, k)
			buf.WriteByte(':')
			oracle(buf, v[k])
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			oracle(buf, e)
		}
		buf.WriteByte(']')
	case string:
		buf.WriteByte('"')
		for _, c := range v {
			switch {
			case c == '"' || c == '\\':
				buf.WriteByte('\\')
				buf.WriteRune(c)
			case c == '\n':
				buf.WriteString(`\n`)
			case c == '\t':
				buf.WriteString(`\t`)
			case c < 0x20:
				fmt.Fprintf(buf, "\\u%04x", c)
			default:
				buf.WriteRune(c)
			}
		}
		buf.WriteByte('"')
	case numLit:
		buf.WriteString(string(v))
	case bool:
		buf.WriteString(strconv.FormatBool(v))
	case nil:
		buf.WriteString("null")
	}
}

// mutate returns a copy of the arguments object with one value changed.
func mutate(r *rand.Rand, v any) any {
	switch v := v.(type) {
	case map[string]any:
		cp := make(map[string]any, len(v)+1)
		keys := make([]string, 0, len(v))
		for k, e := range v {
			cp[k] = e
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if len(keys) == 0 || r.IntN(4) == 0 {
			cp["added-"+genString(r)] = genValue(r, 3)
			return cp
		}
		k := keys[r.IntN(len(keys))]
		cp[k] = mutate(r, v[k])
		return cp
	case []any:
		if len(v) == 0 || r.IntN(4) == 0 {
			return append(append([]any(nil), v...), numLit("7"))
		}
		cp := append([]any(nil), v...)
		i := r.IntN(len(cp))
		cp[i] = mutate(r, cp[i])
		return cp
	case string:
		return v + "x"
	case numLit:
		if strings.HasPrefix(string(v), "-") {
			return v[1:]
		}
		return "-" + v
	case bool:
		return !v
	default:
		return numLit("0")
	}
}

// TestFingerprintIsInvariantUnderKeyOrderAndWhitespace is a seeded property
// test: any rendering of the same arguments (key order, whitespace, string
// escaping, client_request_id and dry_run values) has one fingerprint, equal to
// the hash of the oracle's canonical form, and changing any value changes it.
func TestFingerprintIsInvariantUnderKeyOrderAndWhitespace(t *testing.T) {
	const seed, iterations = 20260101, 2000
	r := rand.New(rand.NewPCG(seed, 7))
	for i := range iterations {
		args := map[string]any{}
		for range 1 + r.IntN(6) {
			args[genString(r)] = genValue(r, 0)
		}
		var want strings.Builder
		oracle(&want, args)
		var fps [3]string
		for j := range fps {
			withKey := map[string]any{}
			for k, v := range args {
				withKey[k] = v
			}
			if r.IntN(2) == 0 {
				withKey[KeyField] = genString(r)
			}
			if r.IntN(2) == 0 {
				withKey[DryRunField] = r.IntN(2) == 0
			}
			var buf bytes.Buffer
			render(r, &buf, withKey)
			canon, err := CanonicalArguments(buf.Bytes())
			if err != nil {
				t.Fatalf("seed %d iteration %d: CanonicalArguments(%q): %v", seed, i, buf.String(), err)
			}
			if string(canon) != want.String() {
				t.Fatalf("seed %d iteration %d: CanonicalArguments(%q) = %q, want %q", seed, i, buf.String(), canon, want.String())
			}
			if fps[j], err = Fingerprint(buf.Bytes()); err != nil {
				t.Fatal(err)
			}
		}
		if fps[0] != fps[1] || fps[1] != fps[2] {
			t.Fatalf("seed %d iteration %d: renderings of %s have fingerprints %v", seed, i, want.String(), fps)
		}
		changed := mutate(r, args)
		var other strings.Builder
		oracle(&other, changed)
		if other.String() == want.String() {
			t.Fatalf("seed %d iteration %d: mutation did not change %s", seed, i, want.String())
		}
		var buf bytes.Buffer
		render(r, &buf, changed)
		fp, err := Fingerprint(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if fp == fps[0] {
			t.Fatalf("seed %d iteration %d: %s and %s share fingerprint %s", seed, i, want.String(), other.String(), fp)
		}
	}
}

// canonicalStringByByte is AppendCanonicalString's definition, one byte at
// a time.
func canonicalStringByByte(s string) string {
	out := []byte{'"'}
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case b == '"':
			out = append(out, `\"`...)
		case b == '\\':
			out = append(out, `\\`...)
		case b == '\n':
			out = append(out, `\n`...)
		case b == '\r':
			out = append(out, `\r`...)
		case b == '\t':
			out = append(out, `\t`...)
		case b == '\b':
			out = append(out, `\b`...)
		case b == '\f':
			out = append(out, `\f`...)
		case b < 0x20:
			out = append(out, fmt.Sprintf(`\u%04x`, b)...)
		default:
			out = append(out, b)
		}
	}
	return string(append(out, '"'))
}

// Every byte, alone and between runs that need no escape, and runs of
// escapes, are written as the definition writes them.
func TestAppendCanonicalStringEscapesEachByteOnce(t *testing.T) {
	var cases []string
	for b := range 256 {
		c := string([]byte{byte(b)})
		cases = append(cases, c, "ab"+c, c+"cd", "ab"+c+"cd", c+c, "é"+c+"€")
	}
	cases = append(cases, "", "plain", `say "hi"\n`, "tab\there\r\n", "\x00\x1f\x7f", "Order \"Service\" <v2>")
	for _, s := range cases {
		if got, want := string(AppendCanonicalString([]byte("x"), s)), "x"+canonicalStringByByte(s); got != want {
			t.Errorf("AppendCanonicalString(%q) = %s, want %s", s, got, want)
		}
	}
}
