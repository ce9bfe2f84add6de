package proposal_test

import (
	"context"
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal/storetest"
)

func TestMemoryStoreConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) proposal.Store { return proposal.NewMemoryStore() })
}

var t0 = time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)

func newProposal(id string, created time.Time, ttl time.Duration) *proposal.Proposal {
	return &proposal.Proposal{ID: id, Tenant: "t", Principal: "p", Tool: "create_task",
		CreatedAt: created, ExpiresAt: created.Add(ttl)}
}

// fakeClock is a settable clock for purge decisions.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }

func TestMemoryStoreRefusesCreateWhenFullOfOpenProposals(t *testing.T) {
	ctx := context.Background()
	clock := &fakeClock{now: t0}
	s := proposal.NewMemoryStore(proposal.WithMaxPending(3), proposal.WithClock(clock.Now))
	for _, id := range []string{"a", "b", "c"} {
		if err := s.Create(ctx, newProposal(id, t0, time.Minute)); err != nil {
			t.Fatalf("Create(%s) = %v", id, err)
		}
	}
	err := s.Create(ctx, newProposal("d", t0, time.Minute))
	if !errors.Is(err, proposal.ErrFull) || err.Error() != "proposal: too many pending proposals (limit 3); one frees within 1m0s" {
		t.Fatalf("Create(d) = %v, want ErrFull naming the limit", err)
	}
	if _, err := s.Get(ctx, "d", "t", "p", t0); !errors.Is(err, proposal.ErrNotFound) {
		t.Fatalf("Get(d) = %v, want ErrNotFound", err)
	}
	if _, err := s.BeginApply(ctx, "a", "t", "p", t0); err != nil {
		t.Fatalf("BeginApply(a) = %v", err)
	}
	if err := s.Create(ctx, newProposal("d", t0, time.Minute)); !errors.Is(err, proposal.ErrFull) {
		t.Fatalf("Create(d) with a applying = %v, want ErrFull (applying is open)", err)
	}
}

func TestMemoryStoreFreesRoomWhenProposalsCloseOrExpire(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		close func(s *proposal.MemoryStore, clock *fakeClock) error
	}{
		{"applied", func(s *proposal.MemoryStore, _ *fakeClock) error {
			if _, err := s.BeginApply(ctx, "a", "t", "p", t0); err != nil {
				return err
			}
			return s.FinishApply(ctx, "a", []byte("r"), false)
		}},
		{"discarded", func(s *proposal.MemoryStore, _ *fakeClock) error {
			return s.Discard(ctx, "a", "t", "p", t0)
		}},
		{"expired", func(_ *proposal.MemoryStore, clock *fakeClock) error {
			clock.now = t0.Add(time.Minute) // a's expiry; b's is later
			return nil
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := &fakeClock{now: t0}
			s := proposal.NewMemoryStore(proposal.WithMaxPending(2), proposal.WithClock(clock.Now))
			if err := s.Create(ctx, newProposal("a", t0, time.Minute)); err != nil {
				t.Fatal(err)
			}
			if err := s.Create(ctx, newProposal("b", t0, time.Hour)); err != nil {
				t.Fatal(err)
			}
			if err := tc.close(s, clock); err != nil {
				t.Fatalf("closing a: %v", err)
			}
			if err := s.Create(ctx, newProposal("c", t0, time.Hour)); err != nil {
				t.Fatalf("Create(c) = %v, want room after a was %s", err, tc.name)
			}
			// a is retained (closed), so it still answers for itself.
			if got := s.Len(); got != 3 {
				t.Fatalf("Len = %d, want 3 (a retained)", got)
			}
			if err := s.Create(ctx, newProposal("d", t0, time.Hour)); !errors.Is(err, proposal.ErrFull) {
				t.Fatalf("Create(d) = %v, want ErrFull (b and c open)", err)
			}
		})
	}
}

func TestMemoryStoreEvictsOldestClosedProposalsBeyondBound(t *testing.T) {
	ctx := context.Background()
	s := proposal.NewMemoryStore(proposal.WithMaxPending(2), proposal.WithClock(func() time.Time { return t0 }))
	// Four discarded proposals, created out of expiry order, fill the
	// closed half of the bound.
	for _, c := range []struct {
		id  string
		ttl time.Duration
	}{{"c2", 3 * time.Minute}, {"c0", time.Minute}, {"c3", 4 * time.Minute}, {"c1", 2 * time.Minute}} {
		if err := s.Create(ctx, newProposal(c.id, t0, c.ttl)); err != nil {
			t.Fatalf("Create(%s) = %v", c.id, err)
		}
		if err := s.Discard(ctx, c.id, "t", "p", t0); err != nil {
			t.Fatalf("Discard(%s) = %v", c.id, err)
		}
	}
	if got := s.Len(); got != 4 {
		t.Fatalf("Len = %d, want 4", got)
	}
	if err := s.Create(ctx, newProposal("new", t0, time.Hour)); err != nil {
		t.Fatalf("Create(new) = %v", err)
	}
	// 4 held + 1 new over a bound of 4: one evicted, the earliest expiry.
	want := map[string]error{"c0": proposal.ErrNotFound, "c1": nil, "c2": nil, "c3": nil, "new": nil}
	for id, wantErr := range want {
		_, err := s.Get(ctx, id, "t", "p", t0)
		if !errors.Is(err, wantErr) || (err == nil) != (wantErr == nil) {
			t.Errorf("Get(%s) = %v, want %v", id, err, wantErr)
		}
	}
}

func TestMemoryStorePurgeDropsProposalsPastRetention(t *testing.T) {
	ctx := context.Background()
	s := proposal.NewMemoryStore(proposal.WithRetention(time.Hour))
	for id, ttl := range map[string]time.Duration{"short": time.Minute, "long": 2 * time.Hour} {
		if err := s.Create(ctx, newProposal(id, t0, ttl)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		at        time.Time
		wantGone  int
		wantShort error
	}{
		{t0.Add(time.Hour + time.Minute - time.Nanosecond), 0, proposal.ErrExpired},
		{t0.Add(time.Hour + time.Minute), 1, proposal.ErrNotFound},
		{t0.Add(2 * time.Hour), 0, proposal.ErrNotFound},
	}
	for _, tc := range tests {
		if got := s.Purge(tc.at); got != tc.wantGone {
			t.Fatalf("Purge(%v) = %d, want %d", tc.at, got, tc.wantGone)
		}
		if _, err := s.Get(ctx, "short", "t", "p", tc.at); !errors.Is(err, tc.wantShort) {
			t.Fatalf("Get(short) at %v = %v, want %v", tc.at, err, tc.wantShort)
		}
	}
	if _, err := s.Get(ctx, "long", "t", "p", t0); err != nil {
		t.Fatalf("Get(long) = %v, want nil", err)
	}
}

func TestMemoryStoreHonoursCancelledContext(t *testing.T) {
	s := proposal.NewMemoryStore()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Create(ctx, newProposal("a", t0, time.Minute)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Create = %v, want context.Canceled", err)
	}
	if _, err := s.BeginApply(ctx, "a", "t", "p", t0); !errors.Is(err, context.Canceled) {
		t.Fatalf("BeginApply = %v, want context.Canceled", err)
	}
}

func TestNewIDIsPrefixedBase32AndUnique(t *testing.T) {
	re := regexp.MustCompile(`^prop_[A-Z2-7]{26}$`)
	seen := make(map[string]bool)
	for range 1000 {
		id := proposal.NewID()
		if !re.MatchString(id) {
			t.Fatalf("NewID() = %q, want prop_ + 26 base32 characters", id)
		}
		if seen[id] {
			t.Fatalf("NewID() repeated %q", id)
		}
		seen[id] = true
	}
}

func TestStateStringNamesEachState(t *testing.T) {
	tests := []struct {
		s    proposal.State
		want string
	}{
		{proposal.StatePending, "pending"},
		{proposal.StateApplying, "applying"},
		{proposal.StateApplied, "applied"},
		{proposal.StateDiscarded, "discarded"},
		{0, "State(0)"},
		{9, "State(9)"},
	}
	for _, tc := range tests {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("State(%d).String() = %q, want %q", tc.s, got, tc.want)
		}
	}
}

func TestMemoryStoreQuotas(t *testing.T) {
	storetest.RunQuotas(t, func(t *testing.T, q proposal.Quotas) proposal.Store {
		return proposal.NewMemoryStore(proposal.WithQuotas(q))
	})
}

func TestQuotaDefaults(t *testing.T) {
	if q := (proposal.Quotas{}).Resolved(); q.PerTenant != 1000 || q.PerPrincipal != 100 {
		t.Fatalf("defaults %+v, want 1000 per tenant and 100 per principal", q)
	}
	err := &proposal.QuotaError{Scope: proposal.ScopeTenant, Limit: 7, RetryAfter: 90 * time.Second}
	if err.Error() != "proposal: the tenant holds its quota of 7 open proposals; one frees within 1m30s" {
		t.Fatalf("message %q", err.Error())
	}
}
