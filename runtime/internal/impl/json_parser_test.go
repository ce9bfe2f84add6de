package impl

import (
	"encoding/binary"
	"fmt"
	"reflect"
	goruntime "runtime"
	"strings"
	"testing"
)

// errLine is the part of an ErrorEntry the parse tests pin down.
type errLine struct{ code, msg, field string }

func linesOf(es Errors) []errLine {
	var out []errLine
	for _, e := range es {
		out = append(out, errLine{e.Code, e.Message, e.Field})
	}
	return out
}

func bad(msgAt int, what, field string) errLine {
	return errLine{CodeInvalidJSON, fmt.Sprintf("invalid JSON at byte %d: %s", msgAt, what), field}
}

func TestParseRejectsHostileInputWithExactErrors(t *testing.T) {
	deep := `{"a":` + strings.Repeat("[", 10000)
	tenMB := `{"s":"` + strings.Repeat("a", 10<<20) + `"}`
	hundredK := `{"a":[` + strings.Repeat("0,", 99999) + `0]}`
	many := `{"a":[` + strings.Repeat("NaN,", 59) + `NaN]}`
	var manyWant []errLine
	for i := 0; i < maxParseErrors; i++ {
		manyWant = append(manyWant, bad(6+4*i, "NaN is not a JSON number; send a finite number", fmt.Sprintf("a[%d]", i)))
	}
	manyWant = append(manyWant, errLine{CodeValidation, "more than 50 problems; fix these and send again", ""})

	tests := []struct {
		name string
		in   string
		lim  Limits
		want []errLine
	}{
		{"deep nesting stops at the depth limit", deep, Limits{},
			[]errLine{{CodeConstraintViolation, "nesting is deeper than the limit of 32 levels (objects and arrays, counted from the top of the arguments, JSON text included)", "a" + strings.Repeat("[0]", 31)}}},
		{"raised depth limit tracks longer paths", deep, Limits{MaxDepth: 40},
			[]errLine{{CodeConstraintViolation, "nesting is deeper than the limit of 40 levels (objects and arrays, counted from the top of the arguments, JSON text included)", "a" + strings.Repeat("[0]", 39)}}},
		{"10 MB string is rejected before parsing", tenMB, Limits{},
			[]errLine{{CodePayloadTooLarge, "arguments are 10485768 bytes; the limit is 1048576 bytes", ""}}},
		{"100k-element array", hundredK, Limits{},
			[]errLine{{CodeConstraintViolation, "array has 100000 elements; the limit is 1000", "a"}}},
		{"duplicate key", `{"name":"a","name":"b"}`, Limits{},
			[]errLine{{CodeValidation, `duplicate key "name"`, "name"}}},
		{"nested duplicate key", `{"profile":{"owner":1,"owner":2}}`, Limits{},
			[]errLine{{CodeValidation, `duplicate key "owner"`, "profile.owner"}}},
		{"duplicate among many keys uses the index", `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":0,"k11":1,"k12":2,"k13":3,"k14":4,"k15":5,"k16":6,"k17":7,"k3":3}`, Limits{},
			[]errLine{{CodeValidation, `duplicate key "k3"`, "k3"}}},
		{"NaN", `{"x":NaN}`, Limits{},
			[]errLine{bad(5, "NaN is not a JSON number; send a finite number", "x")}},
		{"Infinity and -Infinity", `{"a":Infinity,"b":-Infinity}`, Limits{},
			[]errLine{bad(5, "Infinity is not a JSON number; send a finite number", "a"), bad(18, "-Infinity is not a JSON number; send a finite number", "b")}},
		{"invalid UTF-8 in a string", "{\"s\":\"a\xffb\"}", Limits{},
			[]errLine{bad(7, "invalid UTF-8 in string", "s")}},
		{"UTF-8-encoded surrogate", "{\"s\":\"\xed\xa0\x80\"}", Limits{},
			[]errLine{bad(6, "invalid UTF-8 in string", "s")}},
		{"invalid UTF-8 in a key", "{\"\xfe\":1}", Limits{},
			[]errLine{bad(2, "invalid UTF-8 in object key", "")}},
		{"lone high surrogate escape", `{"s":"\ud800"}`, Limits{},
			[]errLine{bad(6, `lone surrogate \ud800 in string`, "s")}},
		{"lone low surrogate escape", `{"s":"x\uDC00y"}`, Limits{},
			[]errLine{bad(7, `lone surrogate \uDC00 in string`, "s")}},
		{"high surrogate followed by a non-surrogate", `{"s":"\ud800\u0041"}`, Limits{},
			[]errLine{bad(6, `lone surrogate \ud800 in string`, "s")}},
		{"trailing garbage", `{"a":1} x`, Limits{},
			[]errLine{bad(8, "unexpected data after the top-level value", "")}},
		{"garbage right after the object", `{}garbage`, Limits{},
			[]errLine{bad(2, "unexpected data after the top-level value", "")}},
		{"top-level array", `[1,2]`, Limits{},
			[]errLine{{CodeInvalidType, "arguments must be a JSON object, got array", ""}}},
		{"top-level string", `"create it"`, Limits{},
			[]errLine{{CodeInvalidType, "arguments must be a JSON object, got string", ""}}},
		{"top-level number", ` -12`, Limits{},
			[]errLine{{CodeInvalidType, "arguments must be a JSON object, got number", ""}}},
		{"top-level boolean", `true`, Limits{},
			[]errLine{{CodeInvalidType, "arguments must be a JSON object, got boolean", ""}}},
		{"null followed by data", `null null`, Limits{},
			[]errLine{bad(5, "unexpected data after the top-level value", "")}},
		{"unterminated string", `{"a":"abc`, Limits{},
			[]errLine{bad(9, "unexpected end of input in string", "a")}},
		{"unterminated escaped string", `{"a":"a\"bc`, Limits{},
			[]errLine{bad(11, "unexpected end of input in string", "a")}},
		{"unterminated object", `{"a":1`, Limits{},
			[]errLine{bad(6, "unexpected end of input in object", "")}},
		{"unterminated array", `{"a":[1,`, Limits{},
			[]errLine{bad(8, "unexpected end of input where a value was expected", "a[1]")}},
		{"bad escape", `{"a":"\x"}`, Limits{},
			[]errLine{bad(6, `invalid escape \x in string`, "a")}},
		{"short unicode escape", `{"a":"\u12G4"}`, Limits{},
			[]errLine{bad(6, `invalid \u escape (expected 4 hex digits) in string`, "a")}},
		{"raw control character", "{\"a\":\"x\ny\"}", Limits{},
			[]errLine{bad(7, "unescaped control character U+000A in string", "a")}},
		{"leading zero", `{"n":01}`, Limits{},
			[]errLine{bad(5, `number "0…" has a leading zero`, "n")}},
		{"negative leading zero", `{"n":-007.5}`, Limits{},
			[]errLine{bad(5, `number "-00…" has a leading zero`, "n")}},
		{"malformed numbers", `{"a":1.,"b":1e,"c":1.5.3,"d":-}`, Limits{},
			[]errLine{bad(5, `malformed number "1…"`, "a"), bad(12, `malformed number "1…"`, "b"), bad(19, `malformed number "1.…"`, "c"), bad(29, `malformed number "…"`, "d")}},
		{"byte order mark", "\xef\xbb\xbf{}", Limits{},
			[]errLine{bad(0, "byte order mark is not allowed; send UTF-8 without a BOM", "")}},
		{"Python literals", `{"a":True,"b":None,"c":hello}`, Limits{},
			[]errLine{bad(5, "True is not a JSON literal; use true", "a"), bad(14, "None is not a JSON literal; use null", "b"), bad(23, `unexpected word "he…"; strings must be in double quotes`, "c")}},
		{"single-quoted key", `{'a':1}`, Limits{},
			[]errLine{bad(1, `expected a double-quoted object key, found '\''`, "")}},
		{"single-quoted value", `{"a":'x'}`, Limits{},
			[]errLine{bad(5, `strings must be in double quotes, found '\''`, "a")}},
		{"trailing commas", `{"a":[1,],}`, Limits{},
			[]errLine{bad(8, "trailing comma before ']'", "a"), bad(10, "trailing comma before '}'", "")}},
		{"missing value", `{"a":}`, Limits{},
			[]errLine{bad(5, "expected a value, found '}'", "a")}},
		{"missing colon", `{"a" 1}`, Limits{},
			[]errLine{bad(5, "expected ':' after object key, found '1'", "")}},
		{"missing comma", `{"a":1 "b":2}`, Limits{},
			[]errLine{bad(7, `expected ',' or '}' after object member, found '"'`, "")}},
		{"non-UTF-8 byte where a value belongs", "{\"a\":\xff}", Limits{},
			[]errLine{bad(5, "expected a value, found byte 0xFF", "a")}},
		{"every recoverable problem at once, in input order", `{"a":01,"a":NaN,"items":[{"sku":"\ud800"}]}`, Limits{},
			[]errLine{bad(5, `number "0…" has a leading zero`, "a"), {CodeValidation, `duplicate key "a"`, "a"}, bad(12, "NaN is not a JSON number; send a finite number", "a"), bad(33, `lone surrogate \ud800 in string`, "items[0].sku")}},
		{"keys with dots are quoted in paths", `{"a.b":{"c":NaN}}`, Limits{},
			[]errLine{bad(12, "NaN is not a JSON number; send a finite number", `["a.b"].c`)}},
		{"object key limit", `{"a":1,"b":{"x":NaN},"c":3}`, Limits{MaxObjectKeys: 2},
			[]errLine{{CodeConstraintViolation, "object has 3 keys; the limit is 2", ""}, bad(16, "NaN is not a JSON number; send a finite number", "b.x")}},
		{"string limit counts decoded bytes", `{"s":"abcde","t":"ab\ncd","u":"abcd"}`, Limits{MaxStringBytes: 4},
			[]errLine{{CodeConstraintViolation, "string is 5 bytes; the limit is 4 bytes", "s"}, {CodeConstraintViolation, "string is 5 bytes; the limit is 4 bytes", "t"}}},
		{"key limit", `{"abcdef":1}`, Limits{MaxStringBytes: 4},
			[]errLine{{CodeConstraintViolation, "object key is 6 bytes; the limit is 4 bytes", ""}}},
		{"payload limit", `{"a":"bcd"}`, Limits{MaxBytes: 10},
			[]errLine{{CodePayloadTooLarge, "arguments are 11 bytes; the limit is 10 bytes", ""}}},
		{"error count is bounded", many, Limits{}, manyWant},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj, errs := Parse([]byte(tt.in), tt.lim)
			if obj != nil {
				t.Errorf("object = %+v, want nil on error", obj)
			}
			if got := linesOf(errs); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("errors:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestParseInvalidJSONCarriesOffset(t *testing.T) {
	_, errs := Parse([]byte(`{"x":NaN}`), Limits{})
	if len(errs) != 1 || !reflect.DeepEqual(errs[0].Details, map[string]any{"offset": 5}) {
		t.Fatalf("details = %#v", errs)
	}
}

func TestParseAcceptsValidInput(t *testing.T) {
	tests := []struct {
		name string
		in   string
		keys []string
		want []Value // shallow: Kind, Str, Bool of each value
	}{
		{"empty input is an empty object", "", nil, nil},
		{"whitespace is an empty object", " \n\t", nil, nil},
		{"null is an empty object", " null ", nil, nil},
		{"case variants are different keys", `{"name":"a","Name":"b"}`, []string{"name", "Name"},
			[]Value{{Kind: KindString, Str: "a"}, {Kind: KindString, Str: "b"}}},
		{"out-of-range number keeps its literal", `{"f":1e999,"g":-0.5E-3}`, []string{"f", "g"},
			[]Value{{Kind: KindNumber, Str: "1e999"}, {Kind: KindNumber, Str: "-0.5E-3"}}},
		{"escapes and surrogate pairs decode", `{"s":"a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00","t":"héllo"}`, []string{"s", "t"},
			[]Value{{Kind: KindString, Str: "a\"\\/\b\f\n\r\té😀"}, {Kind: KindString, Str: "héllo"}}},
		{"literals", `{"t":true,"f":false,"n":null}`, []string{"t", "f", "n"},
			[]Value{{Kind: KindBool, Bool: true}, {Kind: KindBool}, {Kind: KindNull}}},
		{"string exactly at the limit", `{"s":"` + strings.Repeat("x", DefaultMaxStringBytes) + `"}`, []string{"s"},
			[]Value{{Kind: KindString, Str: strings.Repeat("x", DefaultMaxStringBytes)}}},
		{"nesting exactly at the limit", `{"a":` + strings.Repeat("[", 31) + strings.Repeat("]", 31) + `}`, []string{"a"},
			[]Value{{Kind: KindArray}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj, errs := Parse([]byte(tt.in), Limits{})
			if errs != nil {
				t.Fatalf("errors: %q", linesOf(errs))
			}
			if !reflect.DeepEqual(obj.Keys, tt.keys) {
				t.Fatalf("keys = %q, want %q", obj.Keys, tt.keys)
			}
			for i, w := range tt.want {
				v := obj.Vals[i]
				if v.Kind != w.Kind || v.Str != w.Str || v.Bool != w.Bool {
					t.Errorf("value %d = {%d %q %v}, want {%d %q %v}", i, v.Kind, v.Str, v.Bool, w.Kind, w.Str, w.Bool)
				}
			}
		})
	}
}

func TestParseBuildsNestedStructure(t *testing.T) {
	obj, errs := Parse([]byte(`{"items":[{"sku":"A-1","qty":2},{"sku":"B-2","tags":[]}],"meta":{}}`), Limits{})
	if errs != nil {
		t.Fatal(errs)
	}
	items := obj.Get("items")
	if items.Kind != KindArray || len(items.Arr) != 2 {
		t.Fatalf("items = %+v", items)
	}
	second := items.Arr[1].Obj
	if got := [2]string{items.Arr[0].Obj.Get("sku").Str, second.Get("sku").Str}; got != [2]string{"A-1", "B-2"} {
		t.Errorf("skus = %q", got)
	}
	if tags := second.Get("tags"); tags.Kind != KindArray || len(tags.Arr) != 0 {
		t.Errorf("tags = %+v", tags)
	}
	if m := obj.Get("meta"); m.Kind != KindObject || len(m.Obj.Keys) != 0 {
		t.Errorf("meta = %+v", m)
	}
	// Slab-carved slices are capped: appending must not clobber a neighbour.
	_ = append(items.Arr[0].Obj.Keys, "x")
	if second.Keys[0] != "sku" {
		t.Errorf("append overwrote a neighbouring object: %q", second.Keys)
	}
	if obj.Get("absent") != nil || (*Object)(nil).Get("x") != nil {
		t.Error("Get of an absent key must be nil")
	}
}

func TestParseLargePayloadKeepsOnlyWhatItReturns(t *testing.T) {
	in := []byte(`{"a":"` + strings.Repeat("é", 40000) + `","b":1}`) // over wholeCopyMax
	obj, errs := Parse(in, Limits{MaxStringBytes: 1 << 20})
	if errs != nil {
		t.Fatal(errs)
	}
	if got := obj.Get("a").Str; got != strings.Repeat("é", 40000) {
		t.Errorf("a has %d bytes", len(got))
	}
	if obj.Get("b").Str != "1" {
		t.Errorf("b = %q", obj.Get("b").Str)
	}
}

// allocatedBytes is the heap allocated by f, averaged over runs.
func allocatedBytes(runs int, f func()) uint64 {
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	for i := 0; i < runs; i++ {
		f()
	}
	goruntime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / uint64(runs)
}

func TestParseDoesNotCopyOversizedStrings(t *testing.T) {
	tenMB := []byte(`{"s":"` + strings.Repeat("a", 10<<20) + `"}`)
	// The heap counters are process-wide: other tests' goroutines may still
	// allocate, so the bounds prove "no copy of the 10 MB" with room for
	// that noise; the exact counts are reported by BenchmarkParseOversized.
	t.Run("default limits reject before reading", func(t *testing.T) {
		if b := allocatedBytes(5, func() { Parse(tenMB, Limits{}) }); b > 64<<10 {
			t.Errorf("allocated %d bytes for a 10 MB payload, want <= 64 KiB", b)
		}
	})
	t.Run("raised payload limit still bounds the string", func(t *testing.T) {
		lim := Limits{MaxBytes: 16 << 20}
		_, errs := Parse(tenMB, lim)
		want := []errLine{{CodeConstraintViolation, "string is 10485760 bytes; the limit is 65536 bytes", "s"}}
		if got := linesOf(errs); !reflect.DeepEqual(got, want) {
			t.Fatalf("errors = %q", got)
		}
		if b := allocatedBytes(5, func() { Parse(tenMB, lim) }); b > 256<<10 {
			t.Errorf("allocated %d bytes for a 10 MB payload, want <= 256 KiB", b)
		}
	})
}

func TestWithDefaultsFillsZeroAndNegative(t *testing.T) {
	got := Limits{MaxBytes: -1, MaxDepth: 4}.WithDefaults()
	want := Limits{MaxBytes: 1 << 20, MaxDepth: 4, MaxStringBytes: 64 << 10, MaxArrayLen: 1000, MaxObjectKeys: 1000}
	if got != want {
		t.Errorf("WithDefaults = %+v, want %+v", got, want)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[1,{"b":"\u00e9"}]}`, `{"a":01}`, "{\"\xff\":1}", `{"a":"\ud800"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		obj, errs := Parse(in, Limits{MaxDepth: 8, MaxStringBytes: 64, MaxArrayLen: 16, MaxObjectKeys: 16})
		if (obj == nil) == (len(errs) == 0) {
			t.Fatalf("object %v with %d errors", obj != nil, len(errs))
		}
		if len(errs) > maxParseErrors+1 {
			t.Fatalf("%d errors", len(errs))
		}
		for _, e := range errs {
			if e == nil || e.Code == "" || e.Message == "" {
				t.Fatalf("incomplete error %+v", e)
			}
		}
	})
}

// BenchmarkParseOversized reports what rejecting a 10 MB payload costs: with
// default limits it is refused before parsing, with a raised payload limit
// the string is measured, never copied.
func BenchmarkParseOversized(b *testing.B) {
	tenMB := []byte(`{"s":"` + strings.Repeat("a", 10<<20) + `"}`)
	for _, lim := range []struct {
		name string
		l    Limits
	}{{"default", Limits{}}, {"raised", Limits{MaxBytes: 16 << 20}}} {
		b.Run(lim.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Parse(tenMB, lim.l)
			}
		})
	}
}

// needsLook, the eight-byte scan of parseString, finds every byte that
// ends a string or needs a closer look, wherever it sits in the word.
func TestNeedsLookFindsEverySpecialByte(t *testing.T) {
	for c := 0; c < 256; c++ {
		special := c == '"' || c == '\\' || c < 0x20 || c >= 0x80
		for pos := 0; pos < 8; pos++ {
			for _, fill := range []byte{'a', ' ', '!', '#', '[', ']', '~', 0x7f} {
				var b [8]byte
				for i := range b {
					b[i] = fill
				}
				b[pos] = byte(c)
				if got := needsLook(binary.LittleEndian.Uint64(b[:])); got != special {
					t.Fatalf("needsLook(%q) = %v, want %v", b, got, special)
				}
			}
		}
	}
}
