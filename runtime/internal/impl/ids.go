package impl

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	mrand "math/rand/v2"
	"strconv"
	"sync"
	"time"
)

// requestScopedLabel separates request-scoped IDs from any other use of
// the same secret; it is the first length-prefixed part of the MAC input.
const requestScopedLabel = "mcpwrite/request-scoped-id/v1"

// itemScopedLabel separates the IDs of items keyed by their own item key
// (ItemScopedID) from request-scoped IDs.
const itemScopedLabel = "mcpwrite/item-scoped-id/v1"

// MinIDSecretLength is the shortest secret runtime.WithSecrets accepts, in bytes.
const MinIDSecretLength = 32

// processIDSecret is the key of request-scoped IDs when no runtime.WithSecrets is
// configured: random, made once per process, so an ID is stable across the
// registries and sessions of one process and unpredictable to everyone else.
var processIDSecret = sync.OnceValue(func() []byte {
	b := make([]byte, MinIDSecretLength)
	_, _ = rand.Read(b) // never fails: crypto/rand aborts the program instead
	return b
})

// randomBlock holds random bytes read ahead: an ID takes its bytes from a
// block instead of asking the operating system each time. A block is
// filled by its own ChaCha8 generator (math/rand/v2: cryptographically
// strong, rekeying itself as it goes), seeded from crypto/rand when the
// block is first filled and again every reseedEvery fills, so a fill costs
// a quarter of a crypto/rand read of the same size. Blocks live in
// randomBlocks or in a scratch, so concurrent calls never share one and
// none waits on a lock; bytes handed out are wiped, so no byte is handed
// out twice.
type randomBlock struct {
	b    [randomBlockSize]byte
	used int
	// src fills b; fills counts down to its next seeding from crypto/rand
	// (0: seed before the next fill).
	src   mrand.ChaCha8
	fills int
	// text holds the ID strings of the calls that use this block (a
	// scratch's); unused by the shared blocks of cryptoRandom.
	text idText
}

// randomBlockSize is how many random bytes one fill makes.
const randomBlockSize = 2048

// reseedEvery is how many fills a block's generator makes from one
// crypto/rand seed (64 KiB of output).
const reseedEvery = 32

var randomBlocks = sync.Pool{New: func() any { return newRandomBlock() }}

// newRandomBlock returns an empty block: the first read fills it.
func newRandomBlock() *randomBlock { return &randomBlock{used: randomBlockSize} }

// cryptoRandom fills p (at most randomBlockSize bytes) with bytes of a pooled random block.
func cryptoRandom(p []byte) {
	rb := randomBlocks.Get().(*randomBlock)
	rb.read(p)
	randomBlocks.Put(rb)
}

// read fills p (at most randomBlockSize bytes) from the block, refilling it first when
// too few bytes are left. One caller at a time.
func (rb *randomBlock) read(p []byte) {
	if len(rb.b)-rb.used < len(p) {
		if rb.fills == 0 {
			var seed [32]byte
			_, _ = rand.Read(seed[:]) // never fails: crypto/rand aborts the program instead
			rb.src.Seed(seed)
			clear(seed[:])
			rb.fills = reseedEvery
		}
		_, _ = rb.src.Read(rb.b[:]) // never fails
		rb.fills--
		rb.used = 0
	}
	taken := rb.b[rb.used : rb.used+len(p)]
	copy(p, taken)
	clear(taken)
	rb.used += len(p)
}

// requestScopedUUID is an RFC 9562 version 8 UUID holding the first 122
// bits of HMAC-SHA256(secret, label, tenant, principal, tool, key), each
// part prefixed with its length (8 bytes, big endian) so no two different
// tuples share an input. The parts are the scope of the call's idempotency
// key (idempotency.ScopedKey), so two principals of a tenant who use the
// same key get IDs of their own, as they get records of their own. Without
// the secret the ID cannot be computed, so knowing a tenant's name, a tool
// and a guessed key reveals nothing about its IDs.
func requestScopedUUID(secret []byte, tenant, principal, tool, key string) [16]byte {
	return keyedUUID(secret, requestScopedLabel, tenant, principal, tool, key)
}

// keyedUUID is an RFC 9562 version 8 UUID holding the first 122 bits of
// HMAC-SHA256(secret, parts), each part prefixed with its length.
func keyedUUID(secret []byte, parts ...string) [16]byte {
	mac := hmac.New(sha256.New, secret)
	writeLengthPrefixed(mac, parts)
	var u [16]byte
	copy(u[:], mac.Sum(nil))
	setVersion(&u, 8)
	return u
}

// writeLengthPrefixed writes each part after its length (8 bytes, big
// endian), so ("ab","c") and ("a","bc") differ.
func writeLengthPrefixed(h hash.Hash, parts []string) {
	var n [8]byte
	for _, p := range parts {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
	}
}

// uuidV8SHA256 is an RFC 9562 version 8 UUID holding the first 122 bits of
// the SHA-256 of parts, each prefixed with its length (8 bytes, big
// endian) so that ("ab","c") and ("a","bc") differ.
func uuidV8SHA256(parts []string) [16]byte {
	h := sha256.New()
	writeLengthPrefixed(h, parts)
	var u [16]byte
	copy(u[:], h.Sum(nil))
	setVersion(&u, 8)
	return u
}

// setVersion stamps the version nibble and the RFC 9562 variant bits.
func setVersion(u *[16]byte, v byte) {
	u[6] = u[6]&0x0f | v<<4
	u[8] = u[8]&0x3f | 0x80
}

// formatUUID renders the canonical 8-4-4-4-12 lower-case form.
func formatUUID(u [16]byte) string {
	var b [36]byte
	putUUID(b[:], &u)
	return string(b[:])
}

// unixMillis is t in milliseconds since the Unix epoch, clamped to the 48
// bits UUIDv7 and ULID hold.
func unixMillis(t time.Time) uint64 {
	ms := t.UnixMilli()
	if ms < 0 {
		return 0
	}
	return min(uint64(ms), 1<<48-1)
}

// putMillis writes the 48-bit timestamp into u[0:6].
func putMillis(u *[16]byte, ms uint64) {
	u[0], u[1], u[2] = byte(ms>>40), byte(ms>>32), byte(ms>>24)
	u[3], u[4], u[5] = byte(ms>>16), byte(ms>>8), byte(ms)
}

// crockford is the ULID alphabet (no I, L, O, U).
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// formatULID renders 128 bits as 26 Crockford base32 characters.
func formatULID(u [16]byte) string {
	var b [26]byte
	putULID(b[:], &u)
	return string(b[:])
}

// putULID writes the 26 characters of u into b.
func putULID(b []byte, u *[16]byte) {
	_ = b[25]
	hi := binary.BigEndian.Uint64(u[0:8])
	lo := binary.BigEndian.Uint64(u[8:16])
	for i := 25; i >= 0; i-- {
		b[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
}

// FormatRFC3339 renders t in UTC as protobuf JSON does: fractional seconds
// with 0, 3, 6 or 9 digits, whichever is shortest without loss.
func FormatRFC3339(t time.Time) string {
	t = t.UTC()
	b := t.AppendFormat(make([]byte, 0, 30), "2006-01-02T15:04:05")
	if ns := t.Nanosecond(); ns != 0 {
		frac := strconv.Itoa(1e9 + ns)[1:] // nine digits, leading zeros kept
		switch {
		case ns%1e6 == 0:
			frac = frac[:3]
		case ns%1e3 == 0:
			frac = frac[:6]
		}
		b = append(b, '.')
		b = append(b, frac...)
	}
	return string(append(b, 'Z'))
}
