package mcpwriteimpl

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Default limits of the strict decoder; a zero Limits field takes these.
const (
	DefaultMaxBytes       = 1 << 20  // whole payload: 1 MiB
	DefaultMaxDepth       = 32       // nesting of objects and arrays
	DefaultMaxStringBytes = 64 << 10 // one decoded string or key: 64 KiB
	DefaultMaxArrayLen    = 1000     // elements of one array
	DefaultMaxObjectKeys  = 1000     // keys of one object
)

const (
	// wholeCopyMax is the largest payload copied into one string so that
	// keys and unescaped strings share it (one allocation instead of one per
	// string). Larger payloads copy only the strings they keep, so an
	// oversized string is never copied.
	wholeCopyMax = 64 << 10
	// slabMax bounds one chunk of parser storage, so a hostile payload
	// cannot make an estimate allocate far more than it uses.
	slabMax = 1024
	// maxParseErrors bounds the error list of one payload.
	maxParseErrors = 50
	// clipLen bounds how much of a name (an unknown key) an error message
	// repeats.
	clipLen = 24
	// excerptLen bounds how much of a rejected value an error message
	// repeats (Excerpt).
	excerptLen = 12
)

// WithDefaults returns l with every zero or negative field set to its default.
func (l Limits) WithDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxStringBytes <= 0 {
		l.MaxStringBytes = DefaultMaxStringBytes
	}
	if l.MaxArrayLen <= 0 {
		l.MaxArrayLen = DefaultMaxArrayLen
	}
	if l.MaxObjectKeys <= 0 {
		l.MaxObjectKeys = DefaultMaxObjectKeys
	}
	return l
}

// Get returns the value of key (exact, case-sensitive match), or nil when
// the key is absent or o is nil.
func (o *Object) Get(key string) *Value {
	if o == nil {
		return nil
	}
	for i, k := range o.Keys {
		if sameKey(k, key) {
			return o.Vals[i]
		}
	}
	return nil
}

// sameKey is a == b, deciding most mismatches of equal length by the first
// byte without a call to compare memory.
func sameKey(a, b string) bool {
	return len(a) == len(b) && (len(a) == 0 || a[0] == b[0]) && a == b
}

// Present reports whether v holds a value: the decoder treats an absent key
// and JSON null alike.
func (v *Value) Present() bool { return v != nil && v.Kind != KindNull }

// Parse parses tool arguments strictly into an object.
//
// Empty input (or only whitespace) and JSON null are an empty object; any
// other root must be an object. Every problem is reported, in input order,
// with a JSON path in Field: syntax errors (INVALID_JSON, with the byte
// offset in the message and in Details["offset"]), duplicate keys
// (VALIDATION_ERROR), invalid UTF-8, lone surrogate escapes, NaN and
// Infinity, leading zeros, a byte order mark, and the per-value limits
// (CONSTRAINT_VIOLATION). A payload above MaxBytes is rejected before
// parsing (PAYLOAD_TOO_LARGE). Recoverable problems do not stop the parse,
// so one round trip shows all of them; a syntax error that leaves the
// structure ambiguous ends it.
//
// The object is returned only when there is no error. Strings are not
// copied beyond the limits, and memory stays proportional to the payload.
func Parse(raw []byte, lim Limits) (*Object, Errors) {
	return ParseObjectInto(raw, lim, nil)
}

// ParseObjectInto is Parse with the tree's storage taken from s when s is
// not nil (see scratch); the tree is then valid until s is released.
func ParseObjectInto(raw []byte, lim Limits, s *Scratch) (*Object, Errors) {
	lim = lim.WithDefaults()
	if len(raw) > lim.MaxBytes {
		return nil, Errors{{
			Code:    CodePayloadTooLarge,
			Message: fmt.Sprintf("arguments are %d bytes; the limit is %d bytes", len(raw), lim.MaxBytes),
			Details: map[string]any{"size": len(raw), "limit": lim.MaxBytes},
		}}
	}
	p := jsonParser{raw: raw, lim: lim, build: true, scratch: s}
	p.skipSpace()
	if p.pos == len(raw) {
		return &Object{}, nil
	}
	if bytes.HasPrefix(raw[p.pos:], utf8BOM) {
		p.syntax(p.pos, 0, "byte order mark is not allowed; send UTF-8 without a BOM")
		return nil, p.errs
	}
	var root *Value
	switch c := raw[p.pos]; {
	case c == '{':
		p.prepare()
		root = p.parseObject(1)
	case c == '[' || c == '"' || c == '-' || isDigit(c):
		name := map[byte]string{'[': "array", '"': "string"}[c]
		if name == "" {
			name = "number"
		}
		return nil, Errors{rootTypeError(name)}
	case isLetter(c):
		// Only null stands for an object; true and false are the wrong type.
		p.build = false
		start := p.pos
		p.parseLiteral(1)
		switch string(raw[start:p.pos]) {
		case "true", "false":
			return nil, Errors{rootTypeError("boolean")}
		case "null":
			p.build = true
		}
	default:
		p.syntax(p.pos, 0, "expected a JSON object, found "+describeByte(raw, p.pos))
	}
	if !p.fatal {
		p.skipSpace()
		if p.pos < len(raw) {
			p.syntax(p.pos, 0, "unexpected data after the top-level value")
		}
	}
	if len(p.errs) > 0 {
		p.sortErrors()
		return nil, p.errs
	}
	if root == nil {
		return &Object{}, nil
	}
	return root.Obj, nil
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// ParseValue parses one JSON value of any kind with the rules and limits of
// Parse: the JSON text an agent sends in a string for a free-form field
// (google.protobuf.Value, Struct, ListValue). Empty input is an error.
func ParseValue(raw []byte, lim Limits) (*Value, Errors) {
	lim = lim.WithDefaults()
	if len(raw) > lim.MaxBytes {
		return nil, Errors{{
			Code:    CodePayloadTooLarge,
			Message: fmt.Sprintf("JSON text is %d bytes; the limit is %d bytes", len(raw), lim.MaxBytes),
		}}
	}
	p := jsonParser{raw: raw, lim: lim, build: true}
	p.skipSpace()
	if p.pos == len(raw) {
		p.syntax(p.pos, 0, "expected a JSON value, found nothing")
		return nil, p.errs
	}
	if bytes.HasPrefix(raw[p.pos:], utf8BOM) {
		p.syntax(p.pos, 0, "byte order mark is not allowed; send UTF-8 without a BOM")
		return nil, p.errs
	}
	p.prepare()
	v := p.parseValue(1)
	if !p.fatal {
		p.skipSpace()
		if p.pos < len(raw) {
			p.syntax(p.pos, 0, "unexpected data after the JSON value")
		}
	}
	if len(p.errs) > 0 {
		p.sortErrors()
		return nil, p.errs
	}
	return v, nil
}

func rootTypeError(got string) *ErrorEntry {
	return &ErrorEntry{Code: CodeInvalidType, Message: "arguments must be a JSON object, got " + got}
}

// pathSeg is one step of a JSON path: an object key or an array index.
type pathSeg struct {
	key   string
	idx   int
	isIdx bool
}

// appendPathSeg renders s after a path prefix; keys that would be ambiguous
// in dotted form are quoted in brackets: a["x.y"][2].
func appendPathSeg(b []byte, s pathSeg) []byte {
	if s.isIdx {
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(s.idx), 10)
		return append(b, ']')
	}
	if plainPathKey(s.key) {
		if len(b) > 0 {
			b = append(b, '.')
		}
		return append(b, s.key...)
	}
	b = append(b, '[')
	b = strconv.AppendQuote(b, s.key)
	return append(b, ']')
}

func plainPathKey(k string) bool {
	return k != "" && utf8.ValidString(k) && !strings.ContainsAny(k, ".[]\"")
}

// segPath renders the first n segments of the parser's path stack.
func (p *jsonParser) segPath(n int) string {
	var b []byte
	for i := 0; i < n; i++ {
		b = appendPathSeg(b, p.seg(i))
	}
	return string(b)
}

// seg returns path segment i; setSeg sets it. The stack is indexed by
// depth and kept inside the parser, so tracking the path costs nothing
// until an error renders it.
func (p *jsonParser) seg(i int) pathSeg {
	if i < len(p.segFixed) {
		return p.segFixed[i]
	}
	return p.segMore[i-len(p.segFixed)]
}

func (p *jsonParser) setSeg(i int, s pathSeg) {
	if i < len(p.segFixed) {
		p.segFixed[i] = s
		return
	}
	if j := i - len(p.segFixed); j < len(p.segMore) {
		p.segMore[j] = s
		return
	}
	p.segMore = append(p.segMore, s) // depth grows one level at a time
}

// jsonMember is a parsed member (or array element, with an empty key)
// waiting for its container to close.
type jsonMember struct {
	key string
	val *Value
}

// jsonParser is a single-pass recursive-descent parser. Values, objects and
// the key and value slices of all containers are carved from a few chunked
// slabs, so a typical payload costs a handful of allocations.
type jsonParser struct {
	raw   []byte
	src   string // copy of raw when small; strings are substrings of it
	lim   Limits
	pos   int
	errs  Errors
	offs  []int // byte offset of each error, for ordering
	fatal bool  // the structure is lost; stop
	build bool  // false once an error is found: scan on, keep nothing

	segFixed [segFixedLen]pathSeg // path of the current value, by depth
	segMore  []pathSeg            // beyond segFixedLen levels

	// scratch, when set, lends the slabs below and takes back the ones
	// made for this payload (see scratch).
	scratch *Scratch

	vals []Value
	objs []Object
	keys []string
	ptrs []*Value
	buf  []byte // decoded escaped string
}

// segFixedLen is how many path levels the parser keeps without allocating:
// deeper payloads are rare, and the stack is cleared on every parse.
const segFixedLen = 8

// prepare sizes the slabs from upper bounds counted in the payload.
func (p *jsonParser) prepare() {
	if len(p.raw) <= wholeCopyMax {
		p.src = string(p.raw)
	}
	no := min(bytes.Count(p.raw, []byte{'{'}), slabMax)
	if s := p.scratch; s != nil && len(p.raw)/2+1 <= scratchKeep {
		// Bounds from the length alone, for slabs a scratch lends: each
		// value but the root takes a byte and follows its own ':', ',' or
		// '['; each key takes two quotes and a colon.
		p.vals = lend(&s.vals, len(p.raw)/2+1)
		p.objs = lend(&s.objs, no)
		p.keys = lend(&s.keys, len(p.raw)/3)
		p.ptrs = lend(&s.ptrs, len(p.raw)/2)
		return
	}
	colons := bytes.Count(p.raw, []byte{':'})
	commas := bytes.Count(p.raw, []byte{','})
	opens := bytes.Count(p.raw, []byte{'['})
	nv := min(colons+commas+opens+1, slabMax)
	nk := min(colons, slabMax)
	np := min(colons+commas+opens, slabMax)
	if s := p.scratch; s != nil {
		p.vals = lend(&s.vals, nv)
		p.objs = lend(&s.objs, no)
		p.keys = lend(&s.keys, nk)
		p.ptrs = lend(&s.ptrs, np)
		return
	}
	p.vals = make([]Value, 0, nv)
	p.objs = make([]Object, 0, no)
	p.keys = make([]string, 0, nk)
	p.ptrs = make([]*Value, 0, np)
}

// str returns raw[a:b] as a string, sharing the payload copy when there is one.
func (p *jsonParser) str(a, b int) string {
	if p.src != "" {
		return p.src[a:b]
	}
	return string(p.raw[a:b])
}

func (p *jsonParser) newValue(k Kind) *Value {
	if !p.build {
		return nil
	}
	if len(p.vals) == cap(p.vals) {
		p.vals = make([]Value, 0, slabMax)
	}
	p.vals = p.vals[:len(p.vals)+1]
	v := &p.vals[len(p.vals)-1]
	*v = Value{Kind: k} // a slab lent by a scratch is not zeroed
	return v
}

func (p *jsonParser) newObject(ms []jsonMember) *Value {
	if !p.build {
		return nil
	}
	v := p.newValue(KindObject)
	if len(p.objs) == cap(p.objs) {
		p.objs = make([]Object, 0, slabMax)
	}
	p.objs = p.objs[:len(p.objs)+1]
	o := &p.objs[len(p.objs)-1]
	*o = Object{}
	if n := len(ms); n > 0 {
		if cap(p.keys)-len(p.keys) < n {
			p.keys = make([]string, 0, max(n, slabMax))
		}
		l := len(p.keys)
		p.keys = p.keys[:l+n]
		o.Keys = p.keys[l : l+n : l+n]
		o.Vals = p.takePtrs(n)
		for i, m := range ms {
			o.Keys[i] = m.key
			o.Vals[i] = m.val
		}
	}
	v.Obj = o
	return v
}

// takePtrs returns n contiguous slots of the pointer slab, capped so an
// append by the caller cannot overwrite a neighbour.
func (p *jsonParser) takePtrs(n int) []*Value {
	if cap(p.ptrs)-len(p.ptrs) < n {
		p.ptrs = make([]*Value, 0, max(n, slabMax))
	}
	l := len(p.ptrs)
	p.ptrs = p.ptrs[:l+n]
	return p.ptrs[l : l+n : l+n]
}

// report records an error at byte off for the value whose path is the
// first pl segments. After the first error nothing is
// kept, since the object will not be returned.
func (p *jsonParser) report(off int, code, msg string, pl int) {
	p.build = false
	if len(p.errs) >= maxParseErrors {
		p.errs = append(p.errs, &ErrorEntry{
			Code:    CodeValidation,
			Message: fmt.Sprintf("more than %d problems; fix these and send again", maxParseErrors),
		})
		p.offs = append(p.offs, len(p.raw)+1)
		p.fatal = true
		return
	}
	e := &ErrorEntry{Code: code, Message: msg, Field: p.segPath(pl)}
	if code == CodeInvalidJSON {
		e.Details = map[string]any{"offset": off}
	}
	p.errs = append(p.errs, e)
	p.offs = append(p.offs, off)
}

// syntax records a JSON syntax error at byte off.
func (p *jsonParser) syntax(off int, pl int, what string) {
	p.report(off, CodeInvalidJSON, fmt.Sprintf("invalid JSON at byte %d: %s", off, what), pl)
}

// fail records an error after which the structure cannot be recovered.
func (p *jsonParser) fail(off int, pl int, what string) {
	p.syntax(off, pl, what)
	p.fatal = true
}

func (p *jsonParser) eof(pl int, where string) {
	p.fail(len(p.raw), pl, "unexpected end of input "+where)
}

// sortErrors orders errors by input position; container-level errors
// (found when the container closes) move to the container's start.
func (p *jsonParser) sortErrors() {
	for i := 1; i < len(p.errs); i++ {
		for j := i; j > 0 && p.offs[j] < p.offs[j-1]; j-- {
			p.offs[j], p.offs[j-1] = p.offs[j-1], p.offs[j]
			p.errs[j], p.errs[j-1] = p.errs[j-1], p.errs[j]
		}
	}
}

func (p *jsonParser) skipSpace() {
	for p.pos < len(p.raw) {
		switch p.raw[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonParser) parseValue(depth int) *Value {
	if p.pos >= len(p.raw) {
		p.eof(depth-1, "where a value was expected")
		return nil
	}
	switch c := p.raw[p.pos]; {
	case c == '{':
		return p.parseObject(depth)
	case c == '[':
		return p.parseArray(depth)
	case c == '"':
		s, ok := p.parseString(depth, "string")
		if !ok {
			return nil
		}
		v := p.newValue(KindString)
		if v != nil {
			v.Str = s
		}
		return v
	case c == '-' || isDigit(c):
		return p.parseNumber(depth)
	case isLetter(c):
		return p.parseLiteral(depth)
	case c == '\'':
		p.fail(p.pos, depth-1, "strings must be in double quotes, found '\\''")
	default:
		p.fail(p.pos, depth-1, "expected a value, found "+describeByte(p.raw, p.pos))
	}
	return nil
}

func (p *jsonParser) parseObject(depth int) *Value {
	start := p.pos
	if depth > p.lim.MaxDepth {
		p.report(start, CodeConstraintViolation, fmt.Sprintf("nesting is deeper than the limit of %d levels", p.lim.MaxDepth), depth-1)
		p.fatal = true
		return nil
	}
	p.pos++
	var local [8]jsonMember
	ms := local[:0]
	var index map[string]struct{}
	n := 0 // members, including those with a bad key
	p.skipSpace()
	if p.pos < len(p.raw) && p.raw[p.pos] == '}' {
		p.pos++
		return p.newObject(nil)
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.raw) {
			p.eof(depth-1, "in object")
			return nil
		}
		if c := p.raw[p.pos]; c != '"' {
			if c == '}' && n > 0 {
				p.syntax(p.pos, depth-1, "trailing comma before '}'")
				p.pos++
				break
			}
			p.fail(p.pos, depth-1, "expected a double-quoted object key, found "+describeByte(p.raw, p.pos))
			return nil
		}
		keyOff := p.pos
		key, keyOK := p.parseString(depth, "object key")
		if p.fatal {
			return nil
		}
		p.skipSpace()
		if p.pos >= len(p.raw) {
			p.eof(depth-1, "in object")
			return nil
		}
		if p.raw[p.pos] != ':' {
			p.fail(p.pos, depth-1, "expected ':' after object key, found "+describeByte(p.raw, p.pos))
			return nil
		}
		p.pos++
		p.skipSpace()
		p.setSeg(depth-1, pathSeg{key: key})
		if keyOK {
			dup := false
			if index != nil {
				_, dup = index[key]
			} else {
				for i := range ms {
					if ms[i].key == key {
						dup = true
						break
					}
				}
			}
			if dup {
				p.report(keyOff, CodeValidation, fmt.Sprintf("duplicate key %q", key), depth)
			}
		}
		v := p.parseValue(depth + 1)
		if p.fatal {
			return nil
		}
		if n++; n > p.lim.MaxObjectKeys {
			p.build = false // reported below; keep no more
		}
		if keyOK {
			ms = append(ms, jsonMember{key: key, val: v})
			if index != nil {
				index[key] = struct{}{}
			} else if len(ms) > 16 {
				index = make(map[string]struct{}, 2*len(ms))
				for _, m := range ms {
					index[m.key] = struct{}{}
				}
			}
		}
		p.skipSpace()
		if p.pos >= len(p.raw) {
			p.eof(depth-1, "in object")
			return nil
		}
		c := p.raw[p.pos]
		p.pos++
		if c == '}' {
			break
		}
		if c != ',' {
			p.fail(p.pos-1, depth-1, "expected ',' or '}' after object member, found "+describeByte(p.raw, p.pos-1))
			return nil
		}
	}
	if n > p.lim.MaxObjectKeys {
		p.report(start, CodeConstraintViolation, fmt.Sprintf("object has %d keys; the limit is %d", n, p.lim.MaxObjectKeys), depth-1)
	}
	return p.newObject(ms)
}

func (p *jsonParser) parseArray(depth int) *Value {
	start := p.pos
	if depth > p.lim.MaxDepth {
		p.report(start, CodeConstraintViolation, fmt.Sprintf("nesting is deeper than the limit of %d levels", p.lim.MaxDepth), depth-1)
		p.fatal = true
		return nil
	}
	p.pos++
	var local [8]*Value
	elems := local[:0]
	n := 0
	p.skipSpace()
	if p.pos < len(p.raw) && p.raw[p.pos] == ']' {
		p.pos++
		return p.newValue(KindArray)
	}
	for {
		p.skipSpace()
		if p.pos < len(p.raw) && p.raw[p.pos] == ']' && n > 0 {
			p.syntax(p.pos, depth-1, "trailing comma before ']'")
			p.pos++
			break
		}
		p.setSeg(depth-1, pathSeg{idx: n, isIdx: true})
		v := p.parseValue(depth + 1)
		if p.fatal {
			return nil
		}
		if n++; n > p.lim.MaxArrayLen {
			p.build = false // reported below; keep no more
		}
		if p.build {
			elems = append(elems, v)
		}
		p.skipSpace()
		if p.pos >= len(p.raw) {
			p.eof(depth-1, "in array")
			return nil
		}
		c := p.raw[p.pos]
		p.pos++
		if c == ']' {
			break
		}
		if c != ',' {
			p.fail(p.pos-1, depth-1, "expected ',' or ']' after array element, found "+describeByte(p.raw, p.pos-1))
			return nil
		}
	}
	if n > p.lim.MaxArrayLen {
		p.report(start, CodeConstraintViolation, fmt.Sprintf("array has %d elements; the limit is %d", n, p.lim.MaxArrayLen), depth-1)
	}
	v := p.newValue(KindArray)
	if v != nil {
		v.Arr = p.takePtrs(len(elems))
		copy(v.Arr, elems)
	}
	return v
}

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

// parseNumber scans the longest run of number characters and checks it
// against the JSON grammar, so one malformed number is one error and
// parsing goes on. The literal is kept as written.
func (p *jsonParser) parseNumber(depth int) *Value {
	raw := p.raw
	start := p.pos
	if raw[start] == '-' && start+1 < len(raw) && isLetter(raw[start+1]) {
		return p.parseLiteral(depth)
	}
	i := start
	for i < len(raw) && isNumberByte(raw[i]) {
		i++
	}
	p.pos = i
	if msg := checkNumber(raw[start:i]); msg != "" {
		p.syntax(start, depth-1, msg)
		return nil
	}
	v := p.newValue(KindNumber)
	if v != nil {
		v.Str = p.str(start, i)
	}
	return v
}

func isNumberByte(c byte) bool {
	return isDigit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// checkNumber returns why tok is not a JSON number, or "".
func checkNumber(tok []byte) string {
	bad := "malformed number " + Excerpt(string(tok))
	i := 0
	if i < len(tok) && tok[i] == '-' {
		i++
	}
	switch {
	case i < len(tok) && tok[i] == '0':
		i++
		if i < len(tok) && isDigit(tok[i]) {
			return "number " + Excerpt(string(tok)) + " has a leading zero"
		}
	case i < len(tok) && isDigit(tok[i]):
		for i < len(tok) && isDigit(tok[i]) {
			i++
		}
	default:
		return bad
	}
	if i < len(tok) && tok[i] == '.' {
		i++
		if i == len(tok) || !isDigit(tok[i]) {
			return bad
		}
		for i < len(tok) && isDigit(tok[i]) {
			i++
		}
	}
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		i++
		if i < len(tok) && (tok[i] == '+' || tok[i] == '-') {
			i++
		}
		if i == len(tok) || !isDigit(tok[i]) {
			return bad
		}
		for i < len(tok) && isDigit(tok[i]) {
			i++
		}
	}
	if i != len(tok) {
		return bad
	}
	return ""
}

// parseLiteral reads a bare word: true, false and null are values; the
// words agents send from other languages (NaN, Infinity, True, None, an
// unquoted string) are reported and skipped.
func (p *jsonParser) parseLiteral(depth int) *Value {
	raw := p.raw
	start := p.pos
	i := start
	if raw[i] == '-' {
		i++
	}
	for i < len(raw) && (isLetter(raw[i]) || isDigit(raw[i]) || raw[i] == '_') {
		i++
	}
	p.pos = i
	word := raw[start:i]
	switch string(word) {
	case "true", "false":
		v := p.newValue(KindBool)
		if v != nil {
			v.Bool = word[0] == 't'
		}
		return v
	case "null":
		return p.newValue(KindNull)
	case "NaN", "Infinity", "-Infinity":
		p.syntax(start, depth-1, string(word)+" is not a JSON number; send a finite number")
		return nil
	}
	switch lw := strings.ToLower(string(word)); lw {
	case "true", "false", "null":
		p.syntax(start, depth-1, string(word)+" is not a JSON literal; use "+lw)
	case "none", "nil", "undefined":
		p.syntax(start, depth-1, string(word)+" is not a JSON literal; use null")
	default:
		p.syntax(start, depth-1, "unexpected word "+Excerpt(string(word))+"; strings must be in double quotes")
	}
	return nil
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

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
