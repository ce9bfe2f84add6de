package idempotency_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/storetest"
)

func TestLayeredConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) idempotency.Store {
		return idempotency.NewLayered(idempotency.NewMemoryStore(), idempotency.NewMemoryStore())
	})
}

func TestLayeredFailureModesOverMemory(t *testing.T) {
	storetest.RunFailureModes(t, func(t *testing.T) idempotency.Store { return idempotency.NewMemoryStore() })
}

func TestLayeredCacheHitKeepsTheOriginalFingerprint(t *testing.T) {
	ctx := context.Background()
	now := idempotency.TruncateTime(time.Now())
	k := idempotency.Key{Tenant: "t", Tool: "x", Key: "k"}
	auth := &storetest.CountingStore{Store: idempotency.NewMemoryStore()}
	l := idempotency.NewLayered(idempotency.NewMemoryStore(), auth)
	if res, err := l.Claim(ctx, k, "fp-original", now, time.Minute); err != nil || !res.Claimed {
		t.Fatalf("claim = %+v, %v", res, err)
	}
	if err := l.Complete(ctx, k, "fp-original", []byte("r"), false, now, time.Hour); err != nil {
		t.Fatal(err)
	}
	claims := auth.Claims.Load()
	res, err := l.Claim(ctx, k, "fp-different", now.Add(time.Second), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	want := &idempotency.Record{Key: k, Fingerprint: "fp-original", State: idempotency.StateCompleted, Response: []byte("r"), CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	if d := storetest.Diff(res.Existing, want); res.Claimed || d != "" {
		t.Fatalf("claim with another fingerprint = claimed %v, %s", res.Claimed, d)
	}
	if got := auth.Claims.Load() - claims; got != 0 {
		t.Errorf("authoritative claims = %d, want 0 (answered by the cache)", got)
	}
}

// storeWithoutExtensions hides RecordCompleter and Filler.
type storeWithoutExtensions struct{ idempotency.Store }

func TestLayeredWithPlainStoresStillReplaysFromAuthority(t *testing.T) {
	ctx := context.Background()
	now := idempotency.TruncateTime(time.Now())
	k := idempotency.Key{Tenant: "t", Tool: "x", Key: "k"}
	auth := storeWithoutExtensions{idempotency.NewMemoryStore()}
	l := idempotency.NewLayered(storeWithoutExtensions{idempotency.NewMemoryStore()}, auth)
	if res, err := l.Claim(ctx, k, "fp", now, time.Minute); err != nil || !res.Claimed {
		t.Fatalf("claim = %+v, %v", res, err)
	}
	if err := l.Complete(ctx, k, "fp", []byte("r"), false, now.Add(time.Second), time.Hour); err != nil {
		t.Fatal(err)
	}
	want := &idempotency.Record{Key: k, Fingerprint: "fp", State: idempotency.StateCompleted, Response: []byte("r"), CreatedAt: now, ExpiresAt: now.Add(time.Second + time.Hour)}
	got, err := l.Get(ctx, k, now.Add(2*time.Second))
	if d := storetest.Diff(got, want); err != nil || d != "" {
		t.Fatalf("Get = %v %s", err, d)
	}
}
