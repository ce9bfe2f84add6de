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
