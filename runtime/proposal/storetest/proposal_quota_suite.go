package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
)

// RunQuotas checks per-tenant and per-principal quotas of open proposals:
// newStore must return an empty store enforcing q. One tenant flooding to
// its quota never stops another tenant's proposals or applies.
func RunQuotas(t *testing.T, newStore func(t *testing.T, q proposal.Quotas) proposal.Store) {
	ctx := context.Background()
	s := newStore(t, proposal.Quotas{PerTenant: 5, PerPrincipal: 3})
	create := func(tenant, principal string, created, expires time.Time) error {
		p := sample()
		p.Tenant, p.Principal, p.CreatedAt, p.ExpiresAt = tenant, principal, created, expires
		return s.Create(ctx, p)
	}
	now := time.Now().UTC()
	fresh := func(tenant, principal string) error { return create(tenant, principal, now, now.Add(ttl)) }
	wantQuota := func(err error, scope string, limit int) {
		t.Helper()
		qe, ok := errors.AsType[*proposal.QuotaError](err)
		if !ok || !errors.Is(err, proposal.ErrQuota) || qe.Scope != scope || qe.Limit != limit {
			t.Fatalf("Create = %v, want a QuotaError for the %s's quota of %d", err, scope, limit)
		}
		if qe.RetryAfter < ttl-time.Minute || qe.RetryAfter > ttl {
			t.Fatalf("RetryAfter %s, want about %s (the earliest open proposal's expiry)", qe.RetryAfter, ttl)
		}
	}

	// Tenant B floods: one principal to its own quota, then the tenant.
	for range 3 {
		if err := fresh("tenant-b", "b1"); err != nil {
			t.Fatalf("b1: %v", err)
		}
	}
	wantQuota(fresh("tenant-b", "b1"), proposal.ScopePrincipal, 3)
	for range 2 {
		if err := fresh("tenant-b", "b2"); err != nil {
			t.Fatalf("b2: %v", err)
		}
	}
	wantQuota(fresh("tenant-b", "b3"), proposal.ScopeTenant, 5)

	// Tenant A, even a principal named like B's, proposes and applies.
	for _, who := range []string{"a1", "b1"} {
		p := sample()
		p.Tenant, p.Principal, p.CreatedAt, p.ExpiresAt = "tenant-a", who, now, now.Add(ttl)
		mustCreate(t, s, p)
		if _, err := s.BeginApply(ctx, p.ID, "tenant-a", who, now); err != nil {
			t.Fatalf("tenant A %s BeginApply = %v", who, err)
		}
		if err := s.FinishApply(ctx, p.ID, []byte(`{"success":true}`), false); err != nil {
			t.Fatalf("tenant A %s FinishApply = %v", who, err)
		}
	}

	// Applying, discarding and expiry free a place.
	p := sample()
	p.Tenant, p.Principal, p.CreatedAt, p.ExpiresAt = "tenant-c", "c1", now, now.Add(ttl)
	mustCreate(t, s, p)
	for range 2 {
		if err := fresh("tenant-c", "c1"); err != nil {
			t.Fatalf("c1: %v", err)
		}
	}
	wantQuota(fresh("tenant-c", "c1"), proposal.ScopePrincipal, 3)
	if err := s.Discard(ctx, p.ID, "tenant-c", "c1", now); err != nil {
		t.Fatalf("Discard = %v", err)
	}
	if err := fresh("tenant-c", "c1"); err != nil {
		t.Fatalf("after a discard: %v", err)
	}
	for range 3 {
		if err := create("tenant-d", "d1", now.Add(-2*time.Hour), now.Add(-time.Hour)); err != nil {
			t.Fatalf("expired d1: %v", err)
		}
	}
	if err := fresh("tenant-d", "d1"); err != nil {
		t.Fatalf("expired proposals still count: %v", err)
	}
}
