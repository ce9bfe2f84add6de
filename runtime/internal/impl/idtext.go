package impl

import (
	"unsafe"

	"google.golang.org/protobuf/types/known/timestamppb"
)

// idTextChunk is how many bytes of ID text one allocation holds: the IDs
// of several calls (a UUID is 36 bytes).
const idTextChunk = 512

// idText is storage the ID strings of the calls of one scratch are carved
// from, so an ID costs no allocation of its own. Each string is written
// once, before it is made, and its bytes are never written again: the
// storage only grows into its unused tail, and a full chunk is left to
// the collector (kept alive by the strings still referring to it).
type idText struct {
	buf []byte
	// times are Timestamps not handed out yet (NowTimestamp).
	times []timestamppb.Timestamp
}

// timesChunk is how many Timestamps one allocation holds.
const timesChunk = 8

// take returns n fresh bytes no string refers to yet.
func (t *idText) take(n int) []byte {
	if cap(t.buf)-len(t.buf) < n {
		t.buf = make([]byte, 0, idTextChunk)
	}
	start := len(t.buf)
	t.buf = t.buf[:start+n]
	return t.buf[start : start+n : start+n]
}

// seal makes the string of b, which take returned and which is never
// written again.
func seal(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// putUUID writes the canonical 8-4-4-4-12 lower-case form of u into b
// (36 bytes).
func putUUID(b []byte, u *[16]byte) {
	_ = b[35]
	for i, x := range u {
		p := uuidTextPos[i]
		b[p], b[p+1] = lowerHex[x>>4], lowerHex[x&0x0f]
	}
	b[8], b[13], b[18], b[23] = '-', '-', '-', '-'
}

// uuidTextPos is where the two hex digits of each byte of a UUID start in
// its 36-character text (8-4-4-4-12, dashes between).
var uuidTextPos = [16]uint8{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}

// lowerHex is the digits of a UUID's text.
const lowerHex = "0123456789abcdef"
