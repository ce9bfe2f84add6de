package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
)

// failureKey and failureFP are the key and fingerprint of the first request.
var failureKey = idempotency.Key{Tenant: "tenant-a", Tool: "create_element", Key: "createElement-1702656000-a1b2c3d4"}

const failureFP = "fp-first"

// newInstance is one adapter instance: an in-memory cache over auth.
func newInstance(auth idempotency.Store) idempotency.Store {
	return idempotency.NewLayered(idempotency.NewMemoryStore(idempotency.WithMaxTTL(idempotency.DefaultCacheTTL)), auth)
}

// outcome is what a retry gets.
type outcome int

const (
	processed outcome = iota + 1 // the retry owns the key and executes
	replayed                     // the retry gets the stored response
	inFlight                     // the retry sees the first request still running
)

// failureCase is one row of the failure-mode table.
type failureCase struct {
	name string
	// prior: what the first request did on instance 1 before the retry.
	priorCompleted, priorClaimed bool
	// retryOn picks the instance serving the retry.
	retryOn func(first, auth idempotency.Store) idempotency.Store
	at      time.Duration // retry time after the first request
	want    outcome
	// wantAuthClaims: authoritative claims made by the retry (0 = cache answered).
	wantAuthClaims int64
}

// failureCases is the failure-mode table of the two-layer design.
func failureCases() []failureCase {
	return []failureCase{
		{name: "first request: cache miss, domain miss, process and persist",
			retryOn: func(first, _ idempotency.Store) idempotency.Store { return first },
			want:    processed, wantAuthClaims: 1},
		{name: "retry, adapter warm: cache hit returns cached",
			priorCompleted: true, priorClaimed: true,
			retryOn: func(first, _ idempotency.Store) idempotency.Store { return first },
			at:      time.Minute, want: replayed, wantAuthClaims: 0},
		{name: "retry, adapter cold (cache window over), domain warm: domain returns",
			priorCompleted: true, priorClaimed: true,
			retryOn: func(first, _ idempotency.Store) idempotency.Store { return first },
			at:      idempotency.DefaultCacheTTL + time.Hour, want: replayed, wantAuthClaims: 1},
		{name: "adapter restart: cache lost, domain catches the duplicate",
			priorCompleted: true, priorClaimed: true,
			retryOn: func(_, auth idempotency.Store) idempotency.Store { return newInstance(auth) },
			at:      time.Minute, want: replayed, wantAuthClaims: 1},
		{name: "horizontal scale, other instance: domain catches the duplicate",
			priorCompleted: true, priorClaimed: true,
			retryOn: func(_, auth idempotency.Store) idempotency.Store { return newInstance(auth) },
			at:      time.Second, want: replayed, wantAuthClaims: 1},
		{name: "horizontal scale, other instance while the first is in flight: no second execution",
			priorClaimed: true,
			retryOn:      func(_, auth idempotency.Store) idempotency.Store { return newInstance(auth) },
			at:           time.Second, want: inFlight, wantAuthClaims: 1},
		{name: "key expired: cache miss, domain miss, processed as new",
			priorCompleted: true, priorClaimed: true,
			retryOn: func(first, _ idempotency.Store) idempotency.Store { return first },
			at:      idempotency.DefaultDurableTTL + time.Second, want: processed, wantAuthClaims: 1},
	}
}

// RunFailureModes runs the failure-mode table of the two-layer design: adapter
// instances are Layered stores with an in-memory cache over one shared
// authoritative store. newAuthoritative must return an empty store per call.
func RunFailureModes(t *testing.T, newAuthoritative func(t *testing.T) idempotency.Store) {
	k, fp := failureKey, failureFP
	cases := failureCases()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			auth := &CountingStore{Store: newAuthoritative(t)}
			first := newInstance(auth)
			b := base()
			if tc.priorClaimed {
				res, err := first.Claim(ctx, k, fp, b, lease)
				if err != nil || !res.Claimed {
					t.Fatalf("first claim = %+v, %v; want claimed", res, err)
				}
			}
			if tc.priorCompleted {
				if err := first.Complete(ctx, k, fp, Response, false, b.Add(time.Second), idempotency.DefaultDurableTTL); err != nil {
					t.Fatalf("first complete: %v", err)
				}
			}
			retry := tc.retryOn(first, auth)
			before := auth.Claims.Load()
			now := b.Add(tc.at)
			res, err := retry.Claim(ctx, k, fp, now, lease)
			if err != nil {
				t.Fatalf("retry claim: %v", err)
			}
			if got := auth.Claims.Load() - before; got != tc.wantAuthClaims {
				t.Errorf("authoritative claims by the retry = %d, want %d", got, tc.wantAuthClaims)
			}
			switch tc.want {
			case processed:
				if !res.Claimed {
					t.Fatalf("retry = %+v, want claimed", res.Existing)
				}
				if err := retry.Complete(ctx, k, fp, []byte(`{"n":2}`), false, now, idempotency.DefaultDurableTTL); err != nil {
					t.Fatalf("retry complete: %v", err)
				}
				got, err := auth.Get(ctx, k, now)
				if err != nil {
					t.Fatalf("authoritative get after processing: %v", err)
				}
				if d := Diff(got, completed(k, fp, []byte(`{"n":2}`), false, now, now.Add(idempotency.DefaultDurableTTL))); d != "" {
					t.Errorf("key not persisted in the domain layer: %s", d)
				}
			case replayed:
				want := completed(k, fp, Response, false, b, b.Add(time.Second+idempotency.DefaultDurableTTL))
				if d := Diff(res.Existing, want); d != "" {
					t.Errorf("replay: %s", d)
				}
			case inFlight:
				if d := Diff(res.Existing, inProgress(k, fp, b, lease)); d != "" {
					t.Errorf("in flight: %s", d)
				}
			}
			if tc.want == inFlight {
				return
			}
			// Whatever answered, the serving instance's cache now holds the
			// completed record: the next retry does not reach the domain.
			before = auth.Claims.Load()
			again, err := retry.Claim(ctx, k, fp, now.Add(time.Second), lease)
			if err != nil || again.Claimed || again.Existing == nil || again.Existing.State != idempotency.StateCompleted {
				t.Fatalf("next retry = %+v, %v; want a completed replay", again, err)
			}
			if got := auth.Claims.Load() - before; got != 0 {
				t.Errorf("next retry reached the domain %d times, want 0 (cache back-filled)", got)
			}
		})
	}
}
