package impl

import (
	"bytes"
	mrand "math/rand/v2"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/timestamppb"
)

func TestFormatRFC3339MatchesProtoJSON(t *testing.T) {
	tests := []struct {
		in   time.Time
		want string
	}{
		{time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC), "2024-05-01T12:00:00Z"},
		{time.Date(2024, 5, 1, 12, 0, 0, 500000000, time.UTC), "2024-05-01T12:00:00.500Z"},
		{time.Date(2024, 5, 1, 12, 0, 0, 1000, time.UTC), "2024-05-01T12:00:00.000001Z"},
		{time.Date(2024, 5, 1, 12, 0, 0, 1, time.UTC), "2024-05-01T12:00:00.000000001Z"},
		{time.Date(2024, 5, 1, 14, 0, 0, 120000000, time.FixedZone("CEST", 2*3600)), "2024-05-01T12:00:00.120Z"},
		{time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), "0001-01-01T00:00:00Z"},
	}
	for _, tt := range tests {
		got := FormatRFC3339(tt.in)
		if got != tt.want {
			t.Errorf("FormatRFC3339(%v) = %q, want %q", tt.in, got, tt.want)
		}
		pj, err := protojson.Marshal(timestamppb.New(tt.in))
		if err != nil || string(pj) != `"`+got+`"` {
			t.Errorf("protojson says %s, we say %q", pj, got)
		}
	}
}

func TestULIDEncodingBounds(t *testing.T) {
	var zero, max [16]byte
	for i := range max {
		max[i] = 0xff
	}
	if got := formatULID(zero); got != "00000000000000000000000000" {
		t.Errorf("zero = %q", got)
	}
	if got := formatULID(max); got != "7ZZZZZZZZZZZZZZZZZZZZZZZZZ" {
		t.Errorf("max = %q", got)
	}
}

func TestTimestampsBeforeEpochClampToZero(t *testing.T) {
	c := &Call{Clock: func() time.Time { return time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC) }, Rand: &counter{}}
	if got := c.UUIDv7(); got != "00000000-0000-7001-8203-040506070809" {
		t.Errorf("UUIDv7 = %q", got)
	}
}

// A random block hands out each byte it read once: reads across refills
// never repeat, and what was handed out is wiped from the block.
func TestRandomBlockNeverRepeats(t *testing.T) {
	rb := newRandomBlock()
	seen := map[[16]byte]bool{}
	for i := 0; i < 200; i++ { // about six refills of 512 bytes
		var u [16]byte
		rb.read(u[:])
		if u == ([16]byte{}) || seen[u] {
			t.Fatalf("read %d gave %x again", i, u)
		}
		seen[u] = true
		if rb.used < len(u) || [16]byte(rb.b[rb.used-len(u):rb.used]) != ([16]byte{}) {
			t.Fatalf("read %d left its bytes in the block", i)
		}
	}
	var odd [10]byte // the ten random bytes of a UUIDv7 or ULID
	for i := 0; i < 60; i++ {
		rb.read(odd[:])
	}
	if rb.used > len(rb.b) {
		t.Fatalf("used %d of %d", rb.used, len(rb.b))
	}
}

// Calls without a test reader take crypto/rand bytes; no two IDs agree.
func TestCryptoIDsAreDistinct(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range []*Call{{}, {block: newRandomBlock()}} {
		for i := 0; i < 100; i++ {
			for _, id := range []string{c.UUIDv4(), c.UUIDv7(), c.ULID()} {
				if seen[id] {
					t.Fatalf("%s twice", id)
				}
				seen[id] = true
			}
		}
	}
}

// A test reader's bytes become the IDs of a call in order, each with its
// version bits set.
func TestUUIDv4TakesTheReadersBytesInOrder(t *testing.T) {
	src := make([]byte, 10*16)
	for i := range src {
		src[i] = byte(i * 7)
	}
	c := &Call{Rand: bytes.NewReader(src)}
	var got []string
	for i := 0; i < 10; i++ {
		got = append(got, c.UUIDv4())
	}
	for i, id := range got {
		var u [16]byte
		copy(u[:], src[16*i:])
		setVersion(&u, 4)
		if want := formatUUID(u); id != want {
			t.Errorf("ID %d = %s, want %s", i, id, want)
		}
	}
}

// Each block's generator is seeded from crypto/rand: two blocks never give
// the same bytes, and a block seeds again after reseedEvery fills, so its
// next fill is not what its old generator would have made.
func TestRandomBlocksAreSeededAndReseeded(t *testing.T) {
	a, b := newRandomBlock(), newRandomBlock()
	var x, y [16]byte
	a.read(x[:])
	b.read(y[:])
	if x == y {
		t.Fatalf("two blocks gave the same bytes %x", x)
	}
	if a.fills != reseedEvery-1 {
		t.Fatalf("fills = %d after the first fill, want %d", a.fills, reseedEvery-1)
	}
	for range reseedEvery - 1 {
		a.used = len(a.b) // spent: the next read fills
		a.read(x[:])
	}
	if a.fills != 0 {
		t.Fatalf("fills = %d after %d fills, want 0", a.fills, reseedEvery)
	}
	state, err := a.src.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var old mrand.ChaCha8
	if err := old.UnmarshalBinary(state); err != nil {
		t.Fatal(err)
	}
	var unseeded [randomBlockSize]byte
	_, _ = old.Read(unseeded[:])
	a.used = len(a.b)
	a.read(x[:])
	if a.fills != reseedEvery-1 {
		t.Fatalf("fills = %d after the reseeding fill, want %d", a.fills, reseedEvery-1)
	}
	if [16]byte(unseeded[:16]) == x {
		t.Fatal("the fill after reseedEvery fills came from the old seed")
	}
}
