package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/redisstore"
)

// A tenant flooding new keys stops at its quota of live records; its held
// keys still replay, released and expired records stop counting, and
// another tenant's claims are unaffected.
func TestRecordQuotaPerTenant(t *testing.T) {
	client, prefix, _ := newClient(t)
	s := redisstore.New(client, redisstore.WithPrefix(prefix), redisstore.WithMaxRecordsPerTenant(3))
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	key := func(tenant string, i int) idempotency.Key {
		return idempotency.Key{Tenant: tenant, Tool: "create", Key: fmt.Sprintf("k%d", i)}
	}
	for i := range 3 {
		res, err := s.Claim(ctx, key("b", i), "fp", now, time.Minute)
		if err != nil || !res.Claimed {
			t.Fatalf("b claim %d: %+v %v", i, res, err)
		}
		if i < 2 {
			if err := s.Complete(ctx, key("b", i), "fp", []byte(`{"ok":1}`), false, now, time.Hour); err != nil {
				t.Fatal(err)
			}
		}
	}
	_, err := s.Claim(ctx, key("b", 3), "fp", now, time.Minute)
	qe, ok := errors.AsType[*idempotency.QuotaError](err)
	if !ok || !errors.Is(err, idempotency.ErrQuota) || qe.Limit != 3 || qe.RetryAfter != time.Minute {
		t.Fatalf("b's fourth key: %v, want a QuotaError of 3 retrying after 1m (the in-progress claim's lease)", err)
	}
	if res, err := s.Claim(ctx, key("b", 1), "fp", now, time.Minute); err != nil || res.Existing == nil || string(res.Existing.Response) != `{"ok":1}` {
		t.Fatalf("b's held key: %+v %v, want its replay", res, err)
	}
	for i := range 3 {
		if res, err := s.Claim(ctx, key("a", i), "fp", now, time.Minute); err != nil || !res.Claimed {
			t.Fatalf("a claim %d: %+v %v", i, res, err)
		}
	}
	// Releasing the in-progress claim frees its place.
	if err := s.Release(ctx, key("b", 2), "fp"); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Claim(ctx, key("b", 3), "fp", now, time.Minute); err != nil || !res.Claimed {
		t.Fatalf("b after a release: %+v %v", res, err)
	}
	// Past the records' life they stop counting.
	if res, err := s.Claim(ctx, key("b", 4), "fp", now.Add(2*time.Hour), time.Minute); err != nil || !res.Claimed {
		t.Fatalf("b after its records expired: %+v %v", res, err)
	}
	ttl, err := client.PTTL(ctx, prefix+"tenant-records:b").Result()
	if err != nil || ttl <= 0 || ttl > time.Hour+2*time.Second {
		t.Fatalf("the tenant's set expires in %s (%v), want within its longest record's life", ttl, err)
	}
}
