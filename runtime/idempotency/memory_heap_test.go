package idempotency

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// checkTenants verifies the store's bookkeeping: the tenant heap is a heap
// with correct indices over exactly the tenants held, and the byte and
// record counts add up.
func checkTenants(t *testing.T, s *MemoryStore) {
	t.Helper()
	if len(s.bySize) != len(s.tenants) {
		t.Fatalf("heap holds %d tenants, map %d", len(s.bySize), len(s.tenants))
	}
	bytes, entries := 0, 0
	for i, tl := range s.bySize {
		if tl.index != i {
			t.Fatalf("tenant at %d has index %d", i, tl.index)
		}
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < len(s.bySize) && s.bySize.Less(c, i) {
				t.Fatalf("heap order broken at %d/%d", i, c)
			}
		}
		sum := 0
		for el := tl.lru.Front(); el != nil; el = el.Next() {
			sum += el.Value.(*entry).size
		}
		if sum != tl.bytes {
			t.Fatalf("tenant bytes %d, records add up to %d", tl.bytes, sum)
		}
		bytes += tl.bytes
		entries += tl.lru.Len()
	}
	if bytes != s.bytes || entries != s.entries || entries != len(s.items) {
		t.Fatalf("store counts %d bytes %d entries (%d items); tenants add up to %d, %d", s.bytes, s.entries, len(s.items), bytes, entries)
	}
}

// The heap's top is the tenant holding the most bytes, as a scan of every
// tenant finds it, through claims, completions of other sizes, releases,
// fills and the evictions they cause; the bookkeeping adds up after each.
func TestMemoryStoreEvictsFromTheLargestTenant(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	s := NewMemoryStore(WithMaxBytes(40 * 300))
	for i := range 2000 {
		tenant := fmt.Sprint("t", (i*7)%13)
		k := Key{Tenant: tenant, Tool: "x", Key: fmt.Sprint("k", i%97)}
		var want *tenantLRU
		for _, tl := range s.tenants {
			if want == nil || tl.bytes > want.bytes || tl.bytes == want.bytes && tl.lru.Len() > want.lru.Len() {
				want = tl
			}
		}
		if got := s.largestTenant(nil); want != nil && (got.bytes != want.bytes || got.lru.Len() != want.lru.Len()) {
			t.Fatalf("step %d: heap top holds %d bytes in %d records, the largest tenant %d in %d", i, got.bytes, got.lru.Len(), want.bytes, want.lru.Len())
		}
		switch i % 4 {
		case 0:
			if _, err := s.Claim(ctx, k, "fp", now, time.Minute); err != nil {
				t.Fatal(err)
			}
		case 1, 2:
			if err := s.Complete(ctx, k, "fp", make([]byte, i%211), false, now, time.Hour); err != nil {
				t.Fatal(err)
			}
		case 3:
			if err := s.Release(ctx, k, "fp"); err != nil {
				t.Fatal(err)
			}
			rec := &Record{Key: Key{Tenant: tenant, Tool: "y", Key: fmt.Sprint(i)}, Fingerprint: "fp", State: StateCompleted, Response: make([]byte, 40), CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
			if err := s.Fill(ctx, rec, now, 0); err != nil {
				t.Fatal(err)
			}
		}
		checkTenants(t, s)
		if s.bytes > s.maxBytes {
			t.Fatalf("step %d: %d bytes over the bound %d", i, s.bytes, s.maxBytes)
		}
	}
}
