package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/pgstore"
)

// A tenant flooding new keys stops at its quota of live records; its held
// keys still replay, expired records stop counting, and another tenant's
// claims are unaffected.
func TestRecordQuotaPerTenant(t *testing.T) {
	s := newEnv(t).newTable(t, pgstore.WithMaxRecordsPerTenant(3))
	ctx := context.Background()
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	key := func(tenant string, i int) idempotency.Key {
		return idempotency.Key{Tenant: tenant, Tool: "create", Key: fmt.Sprintf("k%d", i)}
	}
	for i := range 3 {
		res, err := s.Claim(ctx, key("b", i), "fp", now, time.Minute)
		if err != nil || !res.Claimed {
			t.Fatalf("b claim %d: %+v %v", i, res, err)
		}
		if err := s.Complete(ctx, key("b", i), "fp", []byte(`{"ok":1}`), false, now, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	_, err := s.Claim(ctx, key("b", 3), "fp", now, time.Minute)
	qe, ok := errors.AsType[*idempotency.QuotaError](err)
	if !ok || !errors.Is(err, idempotency.ErrQuota) || qe.Limit != 3 || qe.RetryAfter != time.Hour {
		t.Fatalf("b's fourth key: %v, want a QuotaError of 3 retrying after 1h", err)
	}
	if res, err := s.Claim(ctx, key("b", 1), "fp", now, time.Minute); err != nil || res.Existing == nil || string(res.Existing.Response) != `{"ok":1}` {
		t.Fatalf("b's held key: %+v %v, want its replay", res, err)
	}
	for i := range 3 {
		if res, err := s.Claim(ctx, key("a", i), "fp", now, time.Minute); err != nil || !res.Claimed {
			t.Fatalf("a claim %d: %+v %v", i, res, err)
		}
	}
	if res, err := s.Claim(ctx, key("b", 3), "fp", now.Add(time.Hour), time.Minute); err != nil || !res.Claimed {
		t.Fatalf("b after its records expired: %+v %v", res, err)
	}
}
