package idempotency_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/storetest"
)

func TestMemoryStoreConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) idempotency.Store { return idempotency.NewMemoryStore() })
}

func TestMemoryStoreEvictsLeastRecentlyUsed(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	key := func(i int) idempotency.Key { return idempotency.Key{Tenant: "t", Tool: "x", Key: fmt.Sprint("k", i)} }
	s := idempotency.NewMemoryStore(idempotency.WithMaxEntries(3))
	for i := range 3 {
		if err := s.Complete(ctx, key(i), "fp", []byte("r"), false, now, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	// Reading k0 makes k1 the least recently used.
	if _, err := s.Get(ctx, key(0), now); err != nil {
		t.Fatal(err)
	}
	if err := s.Complete(ctx, key(3), "fp", []byte("r"), false, now, time.Hour); err != nil {
		t.Fatal(err)
	}
	if got := s.Len(); got != 3 {
		t.Errorf("Len = %d, want 3", got)
	}
	for i, want := range []bool{true, false, true, true} {
		_, err := s.Get(ctx, key(i), now)
		if got := err == nil; got != want {
			t.Errorf("k%d present = %v (err %v), want %v", i, got, err, want)
		}
	}
}

func TestMemoryStoreForgetsAfterMaxTTL(t *testing.T) {
	ctx := context.Background()
	now := idempotency.TruncateTime(time.Now())
	k := idempotency.Key{Tenant: "t", Tool: "x", Key: "k"}
	s := idempotency.NewMemoryStore(idempotency.WithMaxTTL(time.Hour))
	if err := s.Complete(ctx, k, "fp", []byte("r"), false, now, 7*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	rec, err := s.Get(ctx, k, now.Add(time.Hour-time.Microsecond))
	if err != nil || !rec.ExpiresAt.Equal(now.Add(7*24*time.Hour)) {
		t.Fatalf("Get = %+v, %v; want the record with its own ExpiresAt %v", rec, err, now.Add(7*24*time.Hour))
	}
	if _, err := s.Get(ctx, k, now.Add(time.Hour)); !errors.Is(err, idempotency.ErrNotFound) {
		t.Fatalf("Get after the cap = %v, want ErrNotFound", err)
	}
}

func TestMemoryStoreReturnsCopies(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	k := idempotency.Key{Tenant: "t", Tool: "x", Key: "k"}
	s := idempotency.NewMemoryStore()
	resp := []byte(`{"a":1}`)
	if err := s.Complete(ctx, k, "fp", resp, false, now, time.Hour); err != nil {
		t.Fatal(err)
	}
	resp[2] = 'X'
	rec, _ := s.Get(ctx, k, now)
	rec.Response[3] = 'Y'
	again, _ := s.Get(ctx, k, now)
	if string(again.Response) != `{"a":1}` {
		t.Fatalf("stored response = %q, want it unaffected by callers' writes", again.Response)
	}
}

func TestMemoryStoreFillKeepsRecordVerbatim(t *testing.T) {
	ctx := context.Background()
	now := idempotency.TruncateTime(time.Now())
	k := idempotency.Key{Tenant: "t", Tool: "x", Key: "k"}
	rec := &idempotency.Record{Key: k, Fingerprint: "fp", State: idempotency.StateCompleted, Response: []byte("r"), IsError: true,
		CreatedAt: now.Add(-time.Hour), ExpiresAt: now.Add(idempotency.DefaultDurableTTL)}
	cases := []struct {
		name     string
		rec      *idempotency.Record
		keep     time.Duration
		wantGone time.Duration // Get at now+wantGone is the first miss
	}{
		{"kept for keep, with the authoritative times", rec, time.Hour, time.Hour},
		{"keep 0 means until ExpiresAt", rec, 0, idempotency.DefaultDurableTTL},
		{"keep beyond ExpiresAt ends at ExpiresAt", rec, 30 * 24 * time.Hour, idempotency.DefaultDurableTTL},
		{"in-progress record ignored", &idempotency.Record{Key: k, State: idempotency.StateInProgress, LeaseUntil: now.Add(time.Hour), ExpiresAt: now.Add(time.Hour)}, time.Hour, 0},
		{"expired record ignored", &idempotency.Record{Key: k, State: idempotency.StateCompleted, ExpiresAt: now}, time.Hour, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := idempotency.NewMemoryStore()
			if err := s.Fill(ctx, tc.rec, now, tc.keep); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Get(ctx, k, now.Add(tc.wantGone)); !errors.Is(err, idempotency.ErrNotFound) {
				t.Fatalf("Get at +%v = %v, want ErrNotFound", tc.wantGone, err)
			}
			if tc.wantGone == 0 {
				return
			}
			got, err := s.Get(ctx, k, now.Add(tc.wantGone-time.Microsecond))
			if d := storetest.Diff(got, tc.rec); err != nil || d != "" {
				t.Fatalf("Get before +%v: %v %s", tc.wantGone, err, d)
			}
		})
	}
}

func BenchmarkClaimComplete(b *testing.B) {
	b.Run("memory", func(b *testing.B) {
		storetest.BenchClaimComplete(b, idempotency.NewMemoryStore(), nil)
	})
	b.Run("layered-memory-over-memory", func(b *testing.B) {
		auth := &storetest.CountingStore{Store: idempotency.NewMemoryStore()}
		calls := func() int64 { return auth.Claims.Load() + auth.Completes.Load() + auth.Gets.Load() }
		storetest.BenchClaimComplete(b, idempotency.NewLayered(idempotency.NewMemoryStore(), auth), calls)
	})
}

// One tenant's flood of keys evicts its own records, never a smaller
// tenant's: tenant a's key survives 101,000 keys of tenant b.
func TestMemoryStoreFloodOfOneTenantKeepsAnothersKeys(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	s := idempotency.NewMemoryStore()
	victim := idempotency.Key{Tenant: "tenant-a", Tool: "create", Key: "k-a"}
	if err := s.Complete(ctx, victim, "fp", []byte(`{"success":true}`), false, now, time.Hour); err != nil {
		t.Fatal(err)
	}
	for i := range 101_000 {
		k := idempotency.Key{Tenant: "tenant-b", Tool: "create", Key: fmt.Sprint("flood-", i)}
		if err := s.Complete(ctx, k, "fp", []byte(`{"success":false}`), true, now, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.Len(); got != idempotency.DefaultMemoryMaxEntries {
		t.Fatalf("Len = %d, want %d", got, idempotency.DefaultMemoryMaxEntries)
	}
	rec, err := s.Get(ctx, victim, now)
	if err != nil || string(rec.Response) != `{"success":true}` {
		t.Fatalf("tenant a's key: %+v, %v", rec, err)
	}
	// The oldest flood keys went first.
	if _, err := s.Get(ctx, idempotency.Key{Tenant: "tenant-b", Tool: "create", Key: "flood-0"}, now); !errors.Is(err, idempotency.ErrNotFound) {
		t.Fatalf("flood-0: %v, want evicted", err)
	}
}

// The byte bound counts keys, fingerprints, results and a fixed overhead
// per record, exactly, and evicts from the largest tenant.
func TestMemoryStoreBoundedByBytes(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	size := func(k idempotency.Key, fp string, resp int) int {
		return 256 + len(k.Tenant) + len(k.Tool) + len(k.Key) + len(fp) + resp
	}
	a := idempotency.Key{Tenant: "a", Tool: "t", Key: "k0"}
	per := size(a, "fp", 1000)
	s := idempotency.NewMemoryStore(idempotency.WithMaxBytes(4 * per))
	if err := s.Complete(ctx, a, "fp", make([]byte, 1000), false, now, time.Hour); err != nil {
		t.Fatal(err)
	}
	if got := s.Bytes(); got != per {
		t.Fatalf("Bytes = %d, want %d", got, per)
	}
	for i := range 10 {
		k := idempotency.Key{Tenant: "b", Tool: "t", Key: fmt.Sprint("k", i)}
		if err := s.Complete(ctx, k, "fp", make([]byte, 1000), false, now, time.Hour); err != nil {
			t.Fatal(err)
		}
		if s.Bytes() > 4*per {
			t.Fatalf("after %d records: %d bytes over the bound %d", i+1, s.Bytes(), 4*per)
		}
	}
	if got, want := s.Len(), 4; got != want {
		t.Fatalf("Len = %d, want %d", got, want)
	}
	if got := s.Bytes(); got != 4*per {
		t.Fatalf("Bytes = %d, want %d", got, 4*per)
	}
	if _, err := s.Get(ctx, a, now); err != nil {
		t.Fatalf("tenant a's record was evicted: %v", err)
	}
	// Replacing a record (claim -> complete) accounts for the new size.
	c := idempotency.Key{Tenant: "c", Tool: "t", Key: "k"}
	if _, err := s.Claim(ctx, c, "fp", now, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := s.Complete(ctx, c, "fp", []byte("xyz"), false, now, time.Hour); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, k := range []idempotency.Key{a, c} {
		if _, err := s.Get(ctx, k, now); err == nil {
			total += size(k, "fp", map[bool]int{true: 1000, false: 3}[k == a])
		}
	}
	for i := range 10 {
		k := idempotency.Key{Tenant: "b", Tool: "t", Key: fmt.Sprint("k", i)}
		if _, err := s.Get(ctx, k, now); err == nil {
			total += size(k, "fp", 1000)
		}
	}
	if got := s.Bytes(); got != total {
		t.Fatalf("Bytes = %d, records held add up to %d", got, total)
	}
}

// A completed record larger than the whole byte bound is refused, not
// reported stored and then evicted; the store keeps what it held. A cache
// fill of such a record is skipped and drops the key's old entry.
func TestMemoryStoreRefusesARecordLargerThanItsBound(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	s := idempotency.NewMemoryStore(idempotency.WithMaxBytes(1000))
	small := idempotency.Key{Tenant: "a", Tool: "t", Key: "small"}
	if err := s.Complete(ctx, small, "fp", []byte("ok"), false, now, time.Hour); err != nil {
		t.Fatal(err)
	}
	big := idempotency.Key{Tenant: "b", Tool: "t", Key: "big"}
	if _, err := s.Claim(ctx, big, "fp", now, time.Minute); err != nil {
		t.Fatal(err)
	}
	err := s.Complete(ctx, big, "fp", make([]byte, 800), false, now, time.Hour)
	var tl *idempotency.RecordTooLargeError
	if !errors.Is(err, idempotency.ErrRecordTooLarge) || !errors.As(err, &tl) || tl.Size != 256+1+1+3+2+800 || tl.Limit != 1000 {
		t.Fatalf("err %v (%+v), want a RecordTooLargeError of 1063 bytes over 1000", err, tl)
	}
	if err.Error() != "idempotency: a record of 1063 bytes exceeds the in-memory store's bound of 1000 bytes" {
		t.Fatalf("message %q", err.Error())
	}
	if got, want := s.Bytes(), (256+1+1+5+2+2)+(256+1+1+3+2); got != want {
		t.Fatalf("Bytes = %d, want %d (the small record and the claim)", got, want)
	}
	if rec, err := s.Get(ctx, big, now); err != nil || rec.State != idempotency.StateInProgress {
		t.Fatalf("the claim: %+v %v, want still in progress", rec, err)
	}
	// Fill skips the oversized record and forgets the key's claim.
	filled := &idempotency.Record{Key: big, Fingerprint: "fp", State: idempotency.StateCompleted, Response: make([]byte, 800), CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	if err := s.Fill(ctx, filled, now, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, big, now); !errors.Is(err, idempotency.ErrNotFound) {
		t.Fatalf("after an oversized fill: %v, want ErrNotFound", err)
	}
	if got, want := s.Bytes(), 256+1+1+5+2+2; got != want {
		t.Fatalf("Bytes = %d, want %d", got, want)
	}
}

// The record just written is never the one evicted, even when its tenant
// becomes the largest: the others make room, and the store holds what it
// reported stored.
func TestMemoryStoreNeverEvictsTheRecordJustWritten(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	per := 256 + 1 + 1 + 2 + 2 + 100
	s := idempotency.NewMemoryStore(idempotency.WithMaxBytes(3 * per))
	for _, tenant := range []string{"a", "b"} {
		k := idempotency.Key{Tenant: tenant, Tool: "t", Key: "k0"}
		if err := s.Complete(ctx, k, "fp", make([]byte, 100), false, now, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	c := idempotency.Key{Tenant: "c", Tool: "t", Key: "k0"}
	if err := s.Complete(ctx, c, "fp", make([]byte, 100+2*per), false, now, time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, c, now); err != nil {
		t.Fatalf("the record just written was evicted: %v", err)
	}
	if got, want := s.Bytes(), 3*per; got != want || s.Len() != 1 {
		t.Fatalf("Bytes = %d, Len = %d; want %d, 1", got, s.Len(), want)
	}
}
