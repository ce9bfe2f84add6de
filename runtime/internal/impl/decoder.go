package impl

import (
	"fmt"
	"math"
	"sort"
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

// parsePath splits a path rendered by appendPathSeg back into segments,
// as far as it can be read.
func parsePath(p string) []pathSeg {
	steps, _ := FieldSteps(p)
	segs := make([]pathSeg, len(steps))
	for i, s := range steps {
		segs[i] = pathSeg{key: s.Key, idx: s.Index, isIdx: s.IsIndex}
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
