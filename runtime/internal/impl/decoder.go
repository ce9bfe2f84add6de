package impl

import (
	"encoding/base64"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/suggest"
)

// Decoder reads a parsed object into a request on behalf of generated code,
// without reflection, and collects every problem with its JSON path.
//
// JSON null is treated as absent by every reader: the reader returns
// ok=false and reports nothing, so a required field sent as null is
// reported by Missing like an absent one. Inside Struct, StructValue and
// ListValue, nested nulls are kept as google.protobuf.NullValue.
type Decoder struct {
	errs   Errors
	order  [][]int // input position of each error, see orderOf
	segs   []pathSeg
	segBuf [4]pathSeg
	root   *Object
	// dropped counts the problems found after maxCollected were kept: they
	// are counted, not described, so a request of thousands of bad keys
	// costs no more than the answer that lists a few of them.
	dropped int
	// Vocabularies are the call's live vocabularies (nil outside a tool
	// call); Vocabulary reads through them.
	Vocabularies VocabularyLookup
	// lim are the limits the arguments were parsed with (SetLimits); JSON
	// text inside them is read within the same ones.
	lim Limits
}

// NewDecoder returns a decoder for one call. The limits are those the
// arguments were parsed with; parsed values already respect them.
func NewDecoder(l Limits) *Decoder {
	d := &Decoder{lim: l.WithDefaults()}
	d.segs = d.segBuf[:0]
	return d
}

// reset empties d for another call, dropping every reference it held.
func (d *Decoder) reset() {
	d.errs = emptied(d.errs)
	d.order = emptied(d.order)
	d.segs = d.segBuf[:0]
	d.root = nil
	d.dropped = 0
	d.Vocabularies = nil
	d.lim = Limits{}
}

// emptied returns s cleared and empty, or nil when it grew beyond what a
// reused Decoder keeps.
func emptied[T any](s []T) []T {
	if cap(s) > scratchKeep {
		return nil
	}
	clear(s)
	return s[:0]
}

// MaxCollected is how many problems a decoder describes; beyond it it only
// counts them. It is well above MaxErrorEntries, so the problems an answer
// lists (the first ones in input order) are among those described.
const MaxCollected = 10 * MaxErrorEntries

// full reports whether the decoder describes no more problems, counting e
// as one more not described.
func (d *Decoder) full() bool {
	if len(d.errs) < MaxCollected {
		return false
	}
	d.dropped++
	return true
}

// Errors returns the problems reported so far, in the order of the
// offending keys in the input (problems with absent keys, such as missing
// required fields, follow their object's keys); nil when there is none.
// Past the first maxCollected problems the rest are only counted, in a
// last TOO_MANY_ERRORS entry.
func (d *Decoder) Errors() Errors {
	if len(d.errs) == 0 {
		return nil
	}
	idx := make([]int, len(d.errs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return lessOrder(d.order[idx[a]], d.order[idx[b]]) })
	out := make(Errors, len(idx), len(idx)+1)
	for i, j := range idx {
		out[i] = d.errs[j]
	}
	if d.dropped > 0 {
		out = append(out, TooMany(d.dropped))
	}
	return out
}

// Add reports e. e.Field is relative to the current path ("" is the current
// value itself, "[2]" an element of it); Add makes it absolute.
func (d *Decoder) Add(e *ErrorEntry) {
	if e == nil || d.full() {
		return
	}
	base := d.Path("")
	switch {
	case e.Field == "":
		e.Field = base
	case base == "":
	case e.Field[0] == '[':
		e.Field = base + e.Field
	default:
		e.Field = base + "." + e.Field
	}
	d.errs = append(d.errs, e)
	d.order = append(d.order, d.orderOf(e.Field))
}

// report adds e at key of the current level (key "" is the current value).
func (d *Decoder) report(key string, e *ErrorEntry) {
	if d.full() {
		return
	}
	e.Field = d.Path(key)
	d.errs = append(d.errs, e)
	d.order = append(d.order, d.orderOf(e.Field))
}

// Enter descends into the object field key.
func (d *Decoder) Enter(key string) { d.segs = append(d.segs, pathSeg{key: key}) }

// EnterIndex descends into array element i.
func (d *Decoder) EnterIndex(i int) { d.segs = append(d.segs, pathSeg{idx: i, isIdx: true}) }

// Leave returns to the enclosing level.
func (d *Decoder) Leave() {
	if len(d.segs) > 0 {
		d.segs = d.segs[:len(d.segs)-1]
	}
}

// Path returns the absolute JSON path of key at the current level, e.g.
// "items[2].sku"; key "" returns the current path.
func (d *Decoder) Path(key string) string {
	var b []byte
	for _, s := range d.segs {
		b = appendPathSeg(b, s)
	}
	if key != "" {
		b = appendPathSeg(b, pathSeg{key: key})
	}
	return string(b)
}

// orderOf locates path in the root object: the index of each key in its
// object (len(keys) when absent) and each array index. Without a root the
// order is the order of reporting.
func (d *Decoder) orderOf(path string) []int {
	if d.root == nil {
		return nil
	}
	var out []int
	obj, arr := d.root, []*Value(nil)
	for _, s := range parsePath(path) {
		if s.isIdx {
			out = append(out, s.idx)
			if obj != nil || s.idx < 0 || s.idx >= len(arr) {
				return out
			}
			obj, arr = descend(arr[s.idx])
			continue
		}
		if obj == nil {
			return append(out, math.MaxInt)
		}
		i := indexOf(obj.Keys, s.key)
		if i < 0 {
			return append(out, len(obj.Keys))
		}
		out = append(out, i)
		obj, arr = descend(obj.Vals[i])
	}
	return out
}

func descend(v *Value) (*Object, []*Value) {
	switch {
	case v == nil:
		return nil, nil
	case v.Kind == KindObject:
		return v.Obj, nil
	case v.Kind == KindArray:
		return nil, v.Arr
	}
	return nil, nil
}

func indexOf(ss []string, s string) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return -1
}

// indexFrom is indexOf searching from start on, then from the beginning:
// agents mostly send keys in the order the schema lists them, so the
// search for each key starts after the field the last one matched.
func indexFrom(ss []string, s string, start int) int {
	for i := start; i < len(ss); i++ {
		if sameKey(ss[i], s) {
			return i
		}
	}
	for i := 0; i < start && i < len(ss); i++ {
		if sameKey(ss[i], s) {
			return i
		}
	}
	return -1
}

// lessOrder compares input positions; a value precedes what is inside it.
func lessOrder(a, b []int) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

// parsePath splits a path rendered by appendPathSeg back into segments.
func parsePath(p string) []pathSeg {
	var segs []pathSeg
	for p != "" {
		switch p[0] {
		case '.':
			p = p[1:]
		case '[':
			if strings.HasPrefix(p, `["`) {
				q, err := strconv.QuotedPrefix(p[1:])
				if err != nil {
					return segs
				}
				k, _ := strconv.Unquote(q)
				segs = append(segs, pathSeg{key: k})
				p = strings.TrimPrefix(p[1+len(q):], "]")
				continue
			}
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return segs
			}
			n, err := strconv.Atoi(p[1:end])
			if err != nil {
				return segs
			}
			segs = append(segs, pathSeg{idx: n, isIdx: true})
			p = p[end+1:]
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			segs = append(segs, pathSeg{key: p[:end]})
			p = p[end:]
		}
	}
	return segs
}

// Known reports every key of obj that is not in fields as UNKNOWN_FIELD,
// with the closest field names as did_you_mean and the fields as
// valid_values. Keys are case-sensitive; a key differing from a field only
// in case says so. The first call at the top level also fixes the object
// whose key order orders Errors.
// unsent are the fields obj does not set.
func unsent(obj *Object, fields []string) []string {
	out := make([]string, 0, len(fields))
	for _, f := range fields {
		if obj.Get(f) == nil {
			out = append(out, f)
		}
	}
	return out
}

func (d *Decoder) Known(obj *Object, fields []string) {
	if obj == nil {
		return
	}
	if d.root == nil && len(d.segs) == 0 {
		d.root = obj
	}
	next := 0 // where the search for the next key starts
	for _, k := range obj.Keys {
		if i := indexFrom(fields, k, next); i >= 0 {
			next = i + 1
			continue
		}
		if d.full() {
			continue
		}
		e := &ErrorEntry{Code: CodeUnknownField, Suggestions: &Suggestions{ValidValues: BoundList(fields)}}
		// A field the agent already sent is never offered: moving the
		// value there would overwrite it.
		open := unsent(obj, fields)
		var fold string
		for _, f := range fields {
			if strings.EqualFold(f, k) {
				fold = f
				break
			}
		}
		switch dym := suggest.Closest(k, open, MaxDidYouMean); {
		case fold != "" && obj.Get(fold) != nil:
			e.Message = fmt.Sprintf("unknown field %s; keys are case-sensitive, and %q is already set", ClipQuote(k), fold)
		case fold != "":
			e.Message = fmt.Sprintf("unknown field %s; keys are case-sensitive, did you mean %q?", ClipQuote(k), fold)
			e.Suggestions.DidYouMean = []string{fold}
		case len(dym) > 0:
			e.Message = fmt.Sprintf("unknown field %s; did you mean %q?", ClipQuote(k), dym[0])
			e.Suggestions.DidYouMean = dym
		default:
			e.Message = fmt.Sprintf("unknown field %s", ClipQuote(k))
		}
		if len(fields) > MaxListed {
			e.Suggestions.Hint = fmt.Sprintf("showing %d of %d fields; the tool's input schema lists all", MaxListed, len(fields))
		}
		d.report(k, e)
	}
}

// Missing reports that the required field key is absent (or null).
func (d *Decoder) Missing(key string) {
	d.report(key, &ErrorEntry{Code: CodeMissingRequired, Message: fmt.Sprintf("missing required field %q", key)})
}

// JSONKind names a JSON kind as agents know it.
func JSONKind(k Kind) string {
	switch k {
	case KindNull:
		return "null"
	case KindBool:
		return "boolean"
	case KindNumber:
		return "number"
	case KindString:
		return "string"
	case KindArray:
		return "array"
	case KindObject:
		return "object"
	}
	return "unknown"
}

// want checks that v is present and of kind k, reporting a wrong type.
func (d *Decoder) want(v *Value, key string, k Kind) bool {
	if !v.Present() {
		return false
	}
	if v.Kind != k {
		d.typeError(v, key, JSONKind(k), "")
		return false
	}
	return true
}

func (d *Decoder) typeError(v *Value, key, expected, hint string) {
	e := &ErrorEntry{Code: CodeInvalidType, Message: "expected " + expected + ", got " + JSONKind(v.Kind)}
	if hint != "" {
		e.Suggestions = &Suggestions{Hint: hint}
	}
	d.report(key, e)
}

func (d *Decoder) violation(key, msg string) {
	d.report(key, &ErrorEntry{Code: CodeConstraintViolation, Message: msg})
}

// String reads a JSON string.
func (d *Decoder) String(v *Value, key string) (string, bool) {
	if !d.want(v, key, KindString) {
		return "", false
	}
	return v.Str, true
}

// Bool reads a JSON boolean.
func (d *Decoder) Bool(v *Value, key string) (bool, bool) {
	if !d.want(v, key, KindBool) {
		return false, false
	}
	return v.Bool, true
}

// Int32 reads an integral JSON number (1, 1.0, 1e2) in the int32 range.
func (d *Decoder) Int32(v *Value, key string) (int32, bool) {
	n, ok := d.integer(v, key, "int32", math.MinInt32, math.MaxInt32)
	return int32(n), ok
}

// Uint32 reads an integral JSON number in the uint32 range.
func (d *Decoder) Uint32(v *Value, key string) (uint32, bool) {
	n, ok := d.integer(v, key, "uint32", 0, math.MaxUint32)
	return uint32(n), ok
}

func (d *Decoder) integer(v *Value, key, typ string, lo, hi int64) (int64, bool) {
	if !v.Present() {
		return 0, false
	}
	if v.Kind != KindNumber {
		d.typeError(v, key, "integer", "")
		return 0, false
	}
	outOfRange := func() (int64, bool) {
		d.violation(key, fmt.Sprintf("value %s is out of range for %s (%d to %d)", clipNumber(v.Str), typ, lo, hi))
		return 0, false
	}
	n, err := strconv.ParseInt(v.Str, 10, 64)
	if err != nil {
		if strings.ContainsAny(v.Str, ".eE") {
			f, ferr := strconv.ParseFloat(v.Str, 64)
			if ferr != nil {
				return outOfRange()
			}
			if f != math.Trunc(f) {
				d.report(key, &ErrorEntry{Code: CodeInvalidType, Message: "expected integer, got " + clipNumber(v.Str)})
				return 0, false
			}
			if f < float64(lo) || f > float64(hi) {
				return outOfRange()
			}
			return int64(f), true
		}
		return outOfRange()
	}
	if n < lo || n > hi {
		return outOfRange()
	}
	return n, true
}

// hint64 tells agents how 64-bit integers travel in JSON.
const hint64 = `send 64-bit integers as strings, e.g. "42"`

// Int64 reads a 64-bit integer sent as a JSON string of decimal digits
// (the schema says string, since JSON numbers lose precision above 2^53).
func (d *Decoder) Int64(v *Value, key string) (int64, bool) {
	s, ok := d.int64String(v, key)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		d.violation(key, fmt.Sprintf("value %s is out of range for int64 (%d to %d)", clipNumber(s), int64(math.MinInt64), int64(math.MaxInt64)))
		return 0, false
	}
	return n, true
}

// Uint64 reads an unsigned 64-bit integer sent as a JSON string.
func (d *Decoder) Uint64(v *Value, key string) (uint64, bool) {
	s, ok := d.int64String(v, key)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		d.violation(key, fmt.Sprintf("value %s is out of range for uint64 (0 to %d)", clipNumber(s), uint64(math.MaxUint64)))
		return 0, false
	}
	return n, true
}

func (d *Decoder) int64String(v *Value, key string) (string, bool) {
	if !v.Present() {
		return "", false
	}
	if v.Kind != KindString {
		d.typeError(v, key, "string", hint64)
		return "", false
	}
	s := v.Str
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		d.report(key, &ErrorEntry{
			Code:        CodeInvalidType,
			Message:     "expected a decimal integer string, got " + Excerpt(s),
			Suggestions: &Suggestions{Hint: hint64},
		})
		return "", false
	}
	return s, true
}

// Float32 reads a JSON number in the float range.
func (d *Decoder) Float32(v *Value, key string) (float32, bool) {
	f, ok := d.float(v, key, 32, "float")
	return float32(f), ok
}

// Float64 reads a JSON number in the double range; a literal such as 1e999
// is out of range (CONSTRAINT_VIOLATION). Numbers only: NaN and Infinity
// cannot be sent.
func (d *Decoder) Float64(v *Value, key string) (float64, bool) {
	return d.float(v, key, 64, "double")
}

func (d *Decoder) float(v *Value, key string, bits int, typ string) (float64, bool) {
	if !d.want(v, key, KindNumber) {
		return 0, false
	}
	f, err := strconv.ParseFloat(v.Str, bits)
	if err != nil {
		d.violation(key, fmt.Sprintf("number %s is out of range for %s", clipNumber(v.Str), typ))
		return 0, false
	}
	return f, true
}

// clipNumber shortens a number literal for a message.
func clipNumber(s string) string {
	if len(s) > clipLen {
		return s[:clipLen] + "…"
	}
	return s
}

// Bytes reads base64 data in the standard or URL alphabet, with or without
// padding.
func (d *Decoder) Bytes(v *Value, key string) ([]byte, bool) {
	if !d.want(v, key, KindString) {
		return nil, false
	}
	s := strings.TrimRight(v.Str, "=")
	if pad := len(v.Str) - len(s); len(s)%4 == 1 || pad > 0 && (len(v.Str)%4 != 0 || pad > 2) {
		d.report(key, &ErrorEntry{Code: CodeInvalidType, Message: fmt.Sprintf("expected base64 data, got %d characters (base64 is groups of 4, the last padded with = or cut to 2 or 3)", len(v.Str))})
		return nil, false
	}
	enc := base64.RawStdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.RawURLEncoding
	}
	b, err := enc.DecodeString(s)
	if err != nil {
		msg := "expected base64 data, got an invalid string"
		if ce, ok := err.(base64.CorruptInputError); ok {
			msg = fmt.Sprintf("expected base64 data, got an invalid character at offset %d", int64(ce))
		}
		d.report(key, &ErrorEntry{Code: CodeInvalidType, Message: msg})
		return nil, false
	}
	if b == nil {
		b = []byte{}
	}
	return b, true
}

// Enum reads an agent-facing enum name through t (see EnumTable.Lookup).
// An unknown name is INVALID_ENUM_VALUE with did_you_mean, the offered
// aliases as valid_values and t.Hint.
func (d *Decoder) Enum(v *Value, key string, t *EnumTable) (int32, bool) {
	if !v.Present() {
		return 0, false
	}
	if t == nil {
		d.report(key, &ErrorEntry{Code: CodeInternal, Message: "no enum table for " + key})
		return 0, false
	}
	if v.Kind != KindString {
		e := &ErrorEntry{Code: CodeInvalidType, Message: "expected string, got " + JSONKind(v.Kind), Suggestions: t.suggestions()}
		d.report(key, e)
		return 0, false
	}
	if n, ok := t.Lookup(v.Str); ok {
		return n, true
	}
	s := t.suggestions()
	s.DidYouMean = t.closest(v.Str)
	msg := fmt.Sprintf("invalid value %s for %s", Excerpt(v.Str), key)
	if len(s.DidYouMean) > 0 {
		msg += fmt.Sprintf("; did you mean %q?", s.DidYouMean[0])
	}
	d.report(key, &ErrorEntry{Code: CodeInvalidEnumValue, Message: msg, Suggestions: s, Rejected: v.Str})
	return 0, false
}

// Object reads a JSON object.
func (d *Decoder) Object(v *Value, key string) (*Object, bool) {
	if !d.want(v, key, KindObject) {
		return nil, false
	}
	return v.Obj, true
}

// Array reads a JSON array.
func (d *Decoder) Array(v *Value, key string) ([]*Value, bool) {
	if !d.want(v, key, KindArray) {
		return nil, false
	}
	return v.Arr, true
}

// VocabularyLookup reads the live vocabularies of one call; the runtime
// implements it.
type VocabularyLookup interface {
	// LookupVocabulary returns the canonical value of s, read at key by d,
	// in the vocabulary name. When s is not a value it returns ok false and
	// the problem to report at key. When the vocabulary could not be read it
	// returns ok false and no problem: the lookup keeps the failure, which
	// answers the call instead of the decoder's problems.
	LookupVocabulary(d *Decoder, key, name, s string) (value string, problem *ErrorEntry, ok bool)
}

// Vocabulary reads a value of the live vocabulary name for the call's
// tenant through d.Vocabularies. A decoder made outside a tool call has
// none: it returns the string as sent (Preparer.Decode; Prepare checks it).
func (d *Decoder) Vocabulary(v *Value, key, name string) (string, bool) {
	s, ok := d.String(v, key)
	if !ok || d.Vocabularies == nil {
		return s, ok
	}
	c, problem, ok := d.Vocabularies.LookupVocabulary(d, key, name, s)
	if ok {
		return c, true
	}
	if problem != nil {
		d.report(key, problem)
	}
	return "", false
}
