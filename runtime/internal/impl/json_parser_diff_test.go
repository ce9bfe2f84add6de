package impl

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
	"testing"
	"unicode/utf8"
)

// diffLimits are the limits the differential fuzz target parses with: small,
// so that random input reaches every one of them.
var diffLimits = Limits{MaxDepth: 8, MaxStringBytes: 64, MaxArrayLen: 16, MaxObjectKeys: 16}

// stdView is what encoding/json makes of an input, plus what it cannot see:
// the rules the strict parser adds on top of JSON validity.
type stdView struct {
	valid      bool // json.Valid
	object     bool // the top-level value is an object
	value      any  // decoded with UseNumber, when valid
	extraRule  string
	emptyInput bool // empty, whitespace only, or null: an empty object
}

// viewOf decodes in with encoding/json and names the first strict rule the
// input breaks that encoding/json accepts, independently of the parser under test.
func viewOf(in []byte) stdView {
	t := bytes.Trim(in, " \t\r\n") // JSON's whitespace, not Unicode's
	if len(t) == 0 || string(t) == "null" {
		return stdView{valid: true, emptyInput: true}
	}
	v := stdView{valid: json.Valid(in)}
	if !v.valid {
		return v
	}
	v.object = t[0] == '{'
	d := json.NewDecoder(bytes.NewReader(in))
	d.UseNumber()
	if err := d.Decode(&v.value); err != nil {
		panic("json.Valid accepted what Decode refuses: " + err.Error())
	}
	switch {
	case !utf8.Valid(in):
		v.extraRule = "invalid UTF-8"
	case hasLoneSurrogate(in):
		v.extraRule = "lone surrogate"
	default:
		v.extraRule = tokenRules(in, diffLimits)
	}
	return v
}

// tokenRules walks the tokens of valid JSON and reports a duplicate key or
// the first limit exceeded.
func tokenRules(in []byte, lim Limits) string {
	type frame struct {
		object bool
		n      int
		keys   map[string]bool
		key    bool // next string token in an object is a key
	}
	var stack []*frame
	d := json.NewDecoder(bytes.NewReader(in))
	d.UseNumber()
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return ""
		}
		if err != nil {
			panic("valid JSON failed to tokenize: " + err.Error())
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if delim, ok := tok.(json.Delim); ok && (delim == '}' || delim == ']') {
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].object {
				stack[len(stack)-1].key = true
			}
			continue
		}
		if top != nil && top.object && top.key {
			k := tok.(string)
			if top.keys[k] {
				return "duplicate key"
			}
			top.keys[k] = true
			if top.n++; top.n > lim.MaxObjectKeys {
				return "too many keys"
			}
			if len(k) > lim.MaxStringBytes {
				return "long key"
			}
			top.key = false
			continue
		}
		if top != nil && !top.object {
			if top.n++; top.n > lim.MaxArrayLen {
				return "long array"
			}
		}
		switch tok := tok.(type) {
		case json.Delim:
			if len(stack)+1 > lim.MaxDepth {
				return "too deep"
			}
			stack = append(stack, &frame{object: tok == '{', keys: map[string]bool{}, key: tok == '{'})
			continue
		case string:
			if len(tok) > lim.MaxStringBytes {
				return "long string"
			}
		}
		if top != nil && top.object {
			top.key = true
		}
	}
}

// hasLoneSurrogate reports a \u escape of a UTF-16 surrogate that is not
// part of a high+low pair.
func hasLoneSurrogate(in []byte) bool {
	inString := false
	pendingHigh := false
	for i := 0; i < len(in); i++ {
		c := in[i]
		if !inString {
			if c == '"' {
				inString = true
			}
			continue
		}
		switch c {
		case '"':
			if pendingHigh {
				return true
			}
			inString = false
		case '\\':
			if i+1 < len(in) && in[i+1] == 'u' && i+5 < len(in) {
				r, err := strconv.ParseUint(string(in[i+2:i+6]), 16, 32)
				if err == nil {
					switch {
					case r >= 0xD800 && r < 0xDC00:
						if pendingHigh {
							return true
						}
						pendingHigh = true
					case r >= 0xDC00 && r < 0xE000:
						if !pendingHigh {
							return true
						}
						pendingHigh = false
					default:
						if pendingHigh {
							return true
						}
					}
				}
				i += 5
				continue
			}
			if pendingHigh {
				return true
			}
			i++
		default:
			if pendingHigh {
				return true
			}
		}
	}
	return false
}

// plain converts a parsed value to what encoding/json decodes with UseNumber.
func plain(v *Value) any {
	switch v.Kind {
	case KindBool:
		return v.Bool
	case KindNumber:
		return json.Number(v.Str)
	case KindString:
		return v.Str
	case KindArray:
		a := make([]any, len(v.Arr))
		for i, e := range v.Arr {
			a[i] = plain(e)
		}
		return a
	case KindObject:
		return plainObject(v.Obj)
	}
	return nil
}

func plainObject(o *Object) map[string]any {
	m := make(map[string]any, len(o.Keys))
	for i, k := range o.Keys {
		m[k] = plain(o.Vals[i])
	}
	return m
}

// checkAgainstEncodingJSON is the oracle: the strict parser accepts exactly
// the JSON objects encoding/json accepts minus the documented strict rules,
// and what it accepts has the values encoding/json decodes.
func checkAgainstEncodingJSON(t *testing.T, in []byte) {
	obj, errs := Parse(in, diffLimits)
	v := viewOf(in)
	switch {
	case v.emptyInput:
		if len(errs) > 0 || obj == nil || len(obj.Keys) != 0 {
			t.Fatalf("%q: want an empty object, got %v, errors %v", in, obj, errs)
		}
	case !v.valid:
		if len(errs) == 0 {
			t.Fatalf("%q: encoding/json refuses it, the parser accepted %v", in, plainObject(obj))
		}
	case !v.object:
		if len(errs) == 0 {
			t.Fatalf("%q: a valid non-object root was accepted", in)
		}
	case v.extraRule != "":
		if len(errs) == 0 {
			t.Fatalf("%q: breaks the strict rule %q but was accepted", in, v.extraRule)
		}
	default:
		if len(errs) > 0 {
			t.Fatalf("%q: valid, within limits, yet refused: %v", in, errs)
		}
		if got := plainObject(obj); !reflect.DeepEqual(got, v.value) {
			t.Fatalf("%q: parsed %#v, encoding/json decodes %#v", in, got, v.value)
		}
	}
	if bytes.HasPrefix(in, utf8BOM) && len(errs) == 0 {
		t.Fatalf("%q: a leading byte order mark was accepted", in)
	}
}

func TestParseAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range diffSeeds {
		t.Run(strconv.Quote(in), func(t *testing.T) { checkAgainstEncodingJSON(t, []byte(in)) })
	}
}

var diffSeeds = []string{
	``, ` `, `null`, `{}`, `{"a":1}`, `{"a":[1,2,{"b":null}],"c":"\u00e9\ud83d\ude00"}`,
	`{"a":1,"a":2}`, `{"a":"\ud800"}`, `{"a":"\udc00\ud800"}`, "{\"a\":\"\xff\"}", "\xef\xbb\xbf{}",
	`{"a":01}`, `{"a":NaN}`, `{"a":1} x`, `[1]`, `"s"`, `true`, `{"a":1e400}`, `{"a":-0.0e-0}`,
	`{"a":[[[[[[[1]]]]]]]}`, `{"a":[[[[[[[[1]]]]]]]]}`, `{"a":"` + string(bytes.Repeat([]byte("x"), 64)) + `"}`,
	`{"a":"` + string(bytes.Repeat([]byte("x"), 65)) + `"}`, `{"a":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]}`,
	`{"a":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]}`, `{"A":1,"a":2}`, `{"a\u0000":1}`, `{"\u0061":1,"a":2}`,
}

// FuzzParseDifferential runs the oracle on arbitrary input.
func FuzzParseDifferential(f *testing.F) {
	for _, s := range diffSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkAgainstEncodingJSON)
}

// reusedScratch is shared by every input of FuzzParseWithReusedScratch, so
// each parse runs on slabs the previous input wrote.
var reusedScratch = func() *Scratch {
	s := new(Scratch)
	s.rand.used = len(s.rand.b)
	s.dec.reset()
	return s
}()

// FuzzParseWithReusedScratch checks that parsing into a scratch's reused
// slabs gives exactly what Parse gives with fresh storage: nothing of an
// earlier payload shows through.
func FuzzParseWithReusedScratch(f *testing.F) {
	for _, s := range diffSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"a":{"b":[1,{"c":"d"}],"e":true},"f":[],"g":{}}`))
	f.Add([]byte(`{"a":[[],[1],{"x":null}],"b":"\u00e9\"","c":-1.5e3}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		want, wantErrs := Parse(in, diffLimits)
		got, gotErrs := ParseObjectInto(in, diffLimits, reusedScratch)
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotErrs, wantErrs) {
			t.Fatalf("%q: with a reused scratch %+v, errors %v; fresh %+v, errors %v", in, got, gotErrs, want, wantErrs)
		}
	})
}
