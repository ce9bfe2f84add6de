package runtime

import "sync"

// scratch is the storage one call's decode and enrichment borrow: the
// slabs the parsed arguments are carved from, the Decoder and the Call. A call takes one with
// getScratch and releases it once nothing refers to the parsed tree; the
// decoded request never does, since its strings are copies of the payload
// (or of an escaped string), never views of the slabs. Generated code
// keeps neither the Decoder nor the Call; the context a resolver may keep
// is not part of the scratch.
type scratch struct {
	vals []Value
	objs []Object
	keys []string
	ptrs []*Value
	dec  Decoder
	call Call
	// used is how much of vals, objs, keys and ptrs the last parse wrote;
	// callUsed whether call was set.
	used     [4]int
	callUsed bool
}

// scratchKeep bounds the slabs and error lists a released scratch keeps,
// so the pool holds what typical arguments need and no more; a larger
// payload's storage is made for it and left to the collector.
const scratchKeep = 64

var scratchPool = sync.Pool{New: func() any {
	s := new(scratch)
	s.dec.reset()
	return s
}}

// getScratch takes a scratch for one call.
func getScratch() *scratch { return scratchPool.Get().(*scratch) }

// release clears what the call left, so the pool pins none of its values
// or error entries, and returns s to the pool. The parsed tree and the
// Decoder must not be used afterwards.
func (s *scratch) release() {
	clear(s.vals[:s.used[0]])
	clear(s.objs[:s.used[1]])
	clear(s.keys[:s.used[2]])
	clear(s.ptrs[:s.used[3]])
	s.used = [4]int{}
	s.dec.reset()
	if s.callUsed {
		s.call = Call{}
		s.callUsed = false
	}
	scratchPool.Put(s)
}

// lend returns *kept emptied when it has room for n elements; otherwise a
// new slice, which *kept keeps for the next call when n is small.
func lend[T any](kept *[]T, n int) []T {
	if cap(*kept) >= n {
		return (*kept)[:0]
	}
	b := make([]T, 0, n)
	if n <= scratchKeep {
		*kept = b
	}
	return b
}
