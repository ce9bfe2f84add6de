package impl

import (
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// IDs carved from a scratch's storage are the IDs the formatting functions
// give, and stay intact while later IDs fill and replace the storage.
func TestIDTextKeepsEveryID(t *testing.T) {
	s := GetScratch()
	defer s.Release()
	with := &Call{Rand: rand.NewChaCha8([32]byte{1}), ClientRequestID: "k", Tool: "t"}
	with.block = &s.rand
	without := &Call{Rand: rand.NewChaCha8([32]byte{1}), ClientRequestID: "k", Tool: "t"}
	type pair struct{ got, clone string }
	var kept []pair
	for i := range 200 {
		var got, want string
		switch i % 5 {
		case 0:
			got, want = with.UUIDv4(), without.UUIDv4()
		case 1:
			got, want = with.UUIDv7(), without.UUIDv7()
		case 2:
			got, want = with.ULID(), without.ULID()
		case 3:
			got, want = with.RequestScopedID(), without.RequestScopedID()
		default:
			got, want = with.ContentHash("a", "b"), without.ContentHash("a", "b")
		}
		if got != want {
			t.Fatalf("id %d: %q, want %q", i, got, want)
		}
		kept = append(kept, pair{got, strings.Clone(got)})
	}
	for i, p := range kept {
		if p.got != p.clone {
			t.Fatalf("id %d changed after later IDs: %q, was %q", i, p.got, p.clone)
		}
	}
}

// NowTimestamp is timestamppb.New(c.Now()), a distinct message each time.
func TestNowTimestamp(t *testing.T) {
	s := GetScratch()
	defer s.Release()
	at := time.Date(2026, 11, 22, 10, 30, 0, 123456789, time.UTC)
	c := &Call{Clock: func() time.Time { return at }}
	c.block = &s.rand
	var got []*timestamppb.Timestamp
	for range 3 * timesChunk {
		ts := c.NowTimestamp()
		if !proto.Equal(ts, timestamppb.New(at)) {
			t.Fatalf("NowTimestamp = %v, want %v", ts, timestamppb.New(at))
		}
		got = append(got, ts)
	}
	got[0].Seconds = 1 // owned by the caller: no other Timestamp changes
	for i, ts := range got[1:] {
		if ts.Seconds != at.Unix() || ts == got[0] {
			t.Fatalf("timestamp %d shares storage with another", i+1)
		}
	}
	if ts := (&Call{Clock: c.Clock}).NowTimestamp(); !proto.Equal(ts, timestamppb.New(at)) {
		t.Fatalf("without a scratch: %v", ts)
	}
}

// putUUID writes the RFC 9562 text form: lower-case hex in 8-4-4-4-12
// groups, the same as hex-encoding each group.
func TestPutUUIDIsTheHexGroups(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 1000; i++ {
		var u [16]byte
		for j := range u {
			u[j] = byte(r.Uint32())
		}
		if i == 0 {
			u = [16]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
		}
		h := hex.EncodeToString(u[:])
		want := h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
		var b [36]byte
		putUUID(b[:], &u)
		if string(b[:]) != want {
			t.Fatalf("putUUID(%x) = %s, want %s", u, b[:], want)
		}
	}
}
