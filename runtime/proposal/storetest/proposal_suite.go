// Package storetest is the conformance suite every proposal.Store must pass:
// exact round trips, owner scoping, the apply state machine, expiry and a
// single winner among concurrent applies.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
)

// Run runs the suite; newStore must return an empty store for each subtest.
func Run(t *testing.T, newStore func(t *testing.T) proposal.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s proposal.Store)
	}{
		{"CreateThenGetRoundTripsEveryField", testRoundTrip},
		{"CreateMintsIDWhenEmpty", testMintsID},
		{"CreateRejectsInvalidProposal", testRejectsInvalid},
		{"CreateRejectsDuplicateID", testRejectsDuplicate},
		{"ReturnedProposalsAreCopies", testCopies},
		{"OtherOwnerGetsNotFound", testScoping},
		{"ApplyStateMachine", testStateMachine},
		{"ExpiryUsesNowArgument", testExpiry},
		{"ConcurrentBeginApplyHasOneWinner", testConcurrentBegin},
		{"UnfinishedApplyIsTakenOverAfterTheLease", testApplyLease},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}

func testRoundTrip(t *testing.T, s proposal.Store) {
	ctx := context.Background()
	loc := time.FixedZone("UTC+5:30", 5*3600+1800)
	tests := []struct {
		name string
		in   func() *proposal.Proposal
		want func(in *proposal.Proposal) *proposal.Proposal
	}{{
		name: "every field set",
		in:   sample,
		want: func(in *proposal.Proposal) *proposal.Proposal { return in },
	}, {
		name: "optional fields empty come back nil",
		in: func() *proposal.Proposal {
			p := sample()
			p.Classification, p.Summary = "", ""
			p.Request, p.Arguments, p.Preview = []byte{}, json.RawMessage{}, nil
			p.State = 0
			return p
		},
		want: func(in *proposal.Proposal) *proposal.Proposal {
			w := *in
			w.Request, w.Arguments, w.Preview = nil, nil, nil
			w.State = proposal.StatePending
			return &w
		},
	}, {
		name: "times come back in UTC at microsecond precision",
		in: func() *proposal.Proposal {
			p := sample()
			p.CreatedAt = time.Date(2031, 3, 4, 10, 20, 30, 123456789, loc)
			p.ExpiresAt = time.Date(2031, 3, 4, 10, 35, 30, 999999999, loc)
			return p
		},
		want: func(in *proposal.Proposal) *proposal.Proposal {
			w := *in
			w.CreatedAt = time.Date(2031, 3, 4, 4, 50, 30, 123456000, time.UTC)
			w.ExpiresAt = time.Date(2031, 3, 4, 5, 5, 30, 999999000, time.UTC)
			return &w
		},
	}, {
		name: "empty tenant and principal are an owner like any other",
		in: func() *proposal.Proposal {
			p := sample()
			p.Tenant, p.Principal = "", ""
			return p
		},
		want: func(in *proposal.Proposal) *proposal.Proposal { return in },
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in()
			want := clone(tc.want(in))
			mustCreate(t, s, in)
			got, err := s.Get(ctx, in.ID, in.Tenant, in.Principal, in.CreatedAt)
			if err != nil {
				t.Fatalf("Get = %v, want nil", err)
			}
			assertProposal(t, "Get", got, want)
		})
	}
}

func testMintsID(t *testing.T, s proposal.Store) {
	p := sample()
	p.ID = ""
	mustCreate(t, s, p)
	if !strings.HasPrefix(p.ID, proposal.IDPrefix) || len(p.ID) != len(proposal.IDPrefix)+26 {
		t.Fatalf("minted id %q, want %q + 26 characters", p.ID, proposal.IDPrefix)
	}
	if p.State != proposal.StatePending {
		t.Fatalf("State after Create = %v, want pending", p.State)
	}
	got, err := s.Get(context.Background(), p.ID, tenant, principal, base)
	if err != nil {
		t.Fatalf("Get(minted id) = %v, want nil", err)
	}
	assertProposal(t, "Get", got, p)
}

func testRejectsInvalid(t *testing.T, s proposal.Store) {
	tests := []struct {
		name   string
		mutate func(p *proposal.Proposal)
		want   string
	}{
		{"missing tool", func(p *proposal.Proposal) { p.Tool = "" }, "tool is empty"},
		{"id too long", func(p *proposal.Proposal) { p.ID = strings.Repeat("x", proposal.MaxIDLength+1) }, "id longer than 128 bytes"},
		{"NUL in summary", func(p *proposal.Proposal) { p.Summary = "a\x00b" }, "summary is not valid UTF-8 text"},
		{"invalid UTF-8 in tenant", func(p *proposal.Proposal) { p.Tenant = "\xff" }, "tenant is not valid UTF-8 text"},
		{"arguments not JSON", func(p *proposal.Proposal) { p.Arguments = json.RawMessage(`{"a":`) }, "arguments is not valid JSON"},
		{"preview invalid UTF-8", func(p *proposal.Proposal) { p.Preview = json.RawMessage("\"\xff\"") }, "preview is not valid JSON"},
		{"zero created_at", func(p *proposal.Proposal) { p.CreatedAt = time.Time{} }, "created_at is zero"},
		{"expiry not after creation", func(p *proposal.Proposal) { p.ExpiresAt = p.CreatedAt }, "expires_at is not after created_at"},
		{"expiry beyond year 9999", func(p *proposal.Proposal) { p.ExpiresAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }, "expires_at outside years 1-9999"},
		{"already applied", func(p *proposal.Proposal) { p.State = proposal.StateApplied }, "a new proposal must be pending, not applied"},
		{"carries a result", func(p *proposal.Proposal) { p.Result = []byte("r") }, "a new proposal has no result"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := sample()
			tc.mutate(p)
			err := s.Create(context.Background(), p)
			if !errors.Is(err, proposal.ErrInvalid) || err.Error() != "proposal: invalid proposal: "+tc.want {
				t.Fatalf("Create = %v, want ErrInvalid: %s", err, tc.want)
			}
		})
	}
	if err := s.Create(context.Background(), nil); !errors.Is(err, proposal.ErrInvalid) {
		t.Fatalf("Create(nil) = %v, want ErrInvalid", err)
	}
	p := sample()
	p.Tool = ""
	_ = s.Create(context.Background(), p)
	if _, err := s.Get(context.Background(), p.ID, tenant, principal, base); !errors.Is(err, proposal.ErrNotFound) {
		t.Fatalf("Get after rejected Create = %v, want ErrNotFound", err)
	}
}

func testRejectsDuplicate(t *testing.T, s proposal.Store) {
	first := mustCreate(t, s, sample())
	dup := sample()
	dup.ID, dup.Summary = first.ID, "another"
	if err := s.Create(context.Background(), dup); !errors.Is(err, proposal.ErrDuplicate) {
		t.Fatalf("Create(duplicate) = %v, want ErrDuplicate", err)
	}
	got, err := s.Get(context.Background(), first.ID, tenant, principal, base)
	if err != nil {
		t.Fatalf("Get = %v", err)
	}
	assertProposal(t, "Get after duplicate", got, first)
}

func testCopies(t *testing.T, s proposal.Store) {
	ctx := context.Background()
	in := sample()
	want := clone(in)
	mustCreate(t, s, in)
	in.Request[0], in.Arguments[0], in.Summary = 'X', 'X', "changed"

	got, err := s.Get(ctx, want.ID, tenant, principal, base)
	if err != nil {
		t.Fatalf("Get = %v", err)
	}
	got.Request[0], got.Preview[0], got.State = 'Y', 'Y', proposal.StateApplied
	began, err := s.BeginApply(ctx, want.ID, tenant, principal, base)
	if err != nil {
		t.Fatalf("BeginApply = %v", err)
	}
	began.Request[1] = 'Z'
	result := []byte(`{"success":true}`)
	if err := s.FinishApply(ctx, want.ID, result, false); err != nil {
		t.Fatalf("FinishApply = %v", err)
	}
	result[0] = 'X'

	got, err = s.Get(ctx, want.ID, tenant, principal, base)
	if err != nil {
		t.Fatalf("Get = %v", err)
	}
	want.State, want.Result, want.ApplyStartedAt = proposal.StateApplied, []byte(`{"success":true}`), proposal.NormalizeTime(base)
	assertProposal(t, "Get after caller mutations", got, want)
}

func testScoping(t *testing.T, s proposal.Store) {
	ctx := context.Background()
	p := mustCreate(t, s, sample())
	callers := []struct{ name, id, tenant, principal string }{
		{"other tenant", p.ID, "tenant-b", principal},
		{"other principal", p.ID, tenant, "user-2"},
		{"tenant and principal swapped", p.ID, principal, tenant},
		{"empty owner", p.ID, "", ""},
		{"unknown id", proposal.NewID(), tenant, principal},
		{"id differing in case", strings.ToLower(p.ID), tenant, principal},
		{"id not valid text", p.ID + "\x00", tenant, principal},
	}
	ops := []struct {
		name string
		call func(id, tenant, principal string) error
	}{
		{"Get", func(id, te, pr string) error { _, err := s.Get(ctx, id, te, pr, base); return err }},
		{"BeginApply", func(id, te, pr string) error { _, err := s.BeginApply(ctx, id, te, pr, base); return err }},
		{"Discard", func(id, te, pr string) error { return s.Discard(ctx, id, te, pr, base) }},
	}
	for _, c := range callers {
		for _, op := range ops {
			t.Run(c.name+"/"+op.name, func(t *testing.T) {
				if err := op.call(c.id, c.tenant, c.principal); !errors.Is(err, proposal.ErrNotFound) {
					t.Fatalf("%s = %v, want ErrNotFound", op.name, err)
				}
			})
		}
	}
	for _, id := range []string{proposal.NewID(), "\xff"} {
		if err := s.FinishApply(ctx, id, nil, false); !errors.Is(err, proposal.ErrNotFound) {
			t.Fatalf("FinishApply(unknown %q) = %v, want ErrNotFound", id, err)
		}
		if err := s.AbortApply(ctx, id); !errors.Is(err, proposal.ErrNotFound) {
			t.Fatalf("AbortApply(unknown %q) = %v, want ErrNotFound", id, err)
		}
	}
	got, err := s.Get(ctx, p.ID, tenant, principal, base)
	if err != nil {
		t.Fatalf("owner Get = %v", err)
	}
	assertProposal(t, "owner Get after foreign calls", got, p)
}
