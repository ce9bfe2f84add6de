package impl

import (
	"bytes"
	"fmt"
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
)

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
