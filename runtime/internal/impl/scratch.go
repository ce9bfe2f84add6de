package impl

import "sync"

// Scratch is the storage one call's decode and enrichment borrow: the
// slabs the parsed arguments are carved from, the Decoder and the Call. A
// call takes one with GetScratch and releases it once nothing refers to
// the parsed tree; the decoded request never does, since its strings are
// copies of the payload (or of an escaped string), never views of the
// slabs. Generated code keeps neither the Decoder nor the Call; the
// context a resolver may keep is not part of the scratch.
type Scratch struct {
	vals []Value
	objs []Object
	keys []string
	ptrs []*Value
	dec  Decoder
	call Call
	// callUsed: call was set, and holds the call's context.
	callUsed bool
	// rand is the call's random block (ids.go), kept with the scratch so an ID
	// takes no trip to a pool.
	rand randomBlock
}

var scratchPool = sync.Pool{New: func() any {
	s := new(Scratch)
	s.rand.used = len(s.rand.b) // empty: the first read fills it
	s.dec.reset()
	return s
}}

// GetScratch takes a scratch for one call.
func GetScratch() *Scratch { return scratchPool.Get().(*Scratch) }

// Release returns s to the pool; the parsed tree, the Decoder and the Call
// must not be used afterwards. The Decoder's error entries and the Call's
// context are dropped; the slabs are not cleared (the parser sets every
// element it takes), so a pooled scratch may hold on to the strings of its
// last payload until it is reused or the pool is emptied.
func (s *Scratch) Release() {
	s.dec.reset()
	if s.callUsed {
		s.call.Ctx = nil // the rest is set anew by the next call
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

// Decoder is the scratch's Decoder, empty until the call uses it.
func (s *Scratch) Decoder() *Decoder { return &s.dec }

// Call is the scratch's Call; the caller sets every field, and Release
// drops its context.
func (s *Scratch) Call() *Call {
	s.callUsed = true
	return &s.call
}

// LendRandom makes the scratch's Call read its random bytes through the
// scratch's block; call it after the Call is set.
func (s *Scratch) LendRandom() { s.call.block = &s.rand }
