package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
)

// step is one call in a state machine scenario.
type step struct {
	op      string // get, begin, finish, abort, discard
	result  string // finish: the result
	isError bool   // finish: ResultIsError
	wantErr error
	// wantState is the state of the returned proposal (get, begin), or of a
	// Get after the step (other ops); 0 skips the check.
	wantState proposal.State
}

func testStateMachine(t *testing.T, s proposal.Store) {
	const ok = `{"success":true,"element":{"id":"el_1"}}`
	const bad = `{"success":false,"error":{"code":"CONFLICT"}}`
	tests := []struct {
		name  string
		steps []step
	}{
		{"begin moves pending to applying", []step{
			{op: "begin", wantState: proposal.StateApplying},
			{op: "get", wantState: proposal.StateApplying},
		}},
		{"second begin while applying is busy", []step{
			{op: "begin", wantState: proposal.StateApplying},
			{op: "begin", wantErr: proposal.ErrBusy},
		}},
		{"begin after finish replays the result", []step{
			{op: "begin", wantState: proposal.StateApplying},
			{op: "finish", result: ok, wantState: proposal.StateApplied},
			{op: "begin", wantState: proposal.StateApplied},
			{op: "begin", wantState: proposal.StateApplied},
		}},
		{"begin after a finished business error replays it", []step{
			{op: "begin", wantState: proposal.StateApplying},
			{op: "finish", result: bad, isError: true, wantState: proposal.StateApplied},
			{op: "begin", wantState: proposal.StateApplied},
		}},
		{"abort returns to pending and allows a new begin", []step{
			{op: "begin", wantState: proposal.StateApplying},
			{op: "abort", wantState: proposal.StatePending},
			{op: "begin", wantState: proposal.StateApplying},
			{op: "finish", result: ok, wantState: proposal.StateApplied},
		}},
		{"discard then begin is discarded", []step{
			{op: "discard", wantState: proposal.StateDiscarded},
			{op: "begin", wantErr: proposal.ErrDiscarded},
			{op: "get", wantState: proposal.StateDiscarded},
		}},
		{"discard twice succeeds", []step{
			{op: "discard", wantState: proposal.StateDiscarded},
			{op: "discard", wantState: proposal.StateDiscarded},
		}},
		{"discard while applying is busy", []step{
			{op: "begin", wantState: proposal.StateApplying},
			{op: "discard", wantErr: proposal.ErrBusy, wantState: proposal.StateApplying},
		}},
		{"discard after apply is refused", []step{
			{op: "begin", wantState: proposal.StateApplying},
			{op: "finish", result: ok, wantState: proposal.StateApplied},
			{op: "discard", wantErr: proposal.ErrApplied, wantState: proposal.StateApplied},
		}},
		{"finish without begin is refused", []step{
			{op: "finish", result: ok, wantErr: proposal.ErrNotApplying, wantState: proposal.StatePending},
		}},
		{"abort without begin is refused", []step{
			{op: "abort", wantErr: proposal.ErrNotApplying, wantState: proposal.StatePending},
		}},
		{"second finish keeps the first result", []step{
			{op: "begin", wantState: proposal.StateApplying},
			{op: "finish", result: ok, wantState: proposal.StateApplied},
			{op: "finish", result: bad, isError: true, wantErr: proposal.ErrNotApplying},
			{op: "begin", wantState: proposal.StateApplied},
		}},
		{"abort after finish is refused", []step{
			{op: "begin", wantState: proposal.StateApplying},
			{op: "finish", result: ok, wantState: proposal.StateApplied},
			{op: "abort", wantErr: proposal.ErrNotApplying, wantState: proposal.StateApplied},
		}},
		{"finish of a discarded proposal is refused", []step{
			{op: "discard", wantState: proposal.StateDiscarded},
			{op: "finish", result: ok, wantErr: proposal.ErrNotApplying, wantState: proposal.StateDiscarded},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := clone(mustCreate(t, s, sample()))
			for i, st := range tc.steps {
				runStep(t, s, fmt.Sprintf("step %d (%s)", i, st.op), want, st, base.Add(time.Minute))
			}
		})
	}
}

// runStep runs st against want.ID, updates want to the expected stored
// proposal, and checks the error and the proposal exactly.
func runStep(t *testing.T, s proposal.Store, name string, want *proposal.Proposal, st step, now time.Time) {
	t.Helper()
	ctx := context.Background()
	var got *proposal.Proposal
	var err error
	switch st.op {
	case "get":
		got, err = s.Get(ctx, want.ID, tenant, principal, now)
	case "begin":
		got, err = s.BeginApply(ctx, want.ID, tenant, principal, now)
	case "finish":
		err = s.FinishApply(ctx, want.ID, []byte(st.result), st.isError)
	case "abort":
		err = s.AbortApply(ctx, want.ID)
	case "discard":
		err = s.Discard(ctx, want.ID, tenant, principal, now)
	default:
		t.Fatalf("%s: unknown op", name)
	}
	if !errors.Is(err, st.wantErr) || (err == nil) != (st.wantErr == nil) {
		t.Fatalf("%s: err = %v, want %v", name, err, st.wantErr)
	}
	if err == nil && st.op == "finish" {
		want.Result, want.ResultIsError = []byte(st.result), st.isError
	}
	if err == nil && st.op == "begin" && want.State == proposal.StatePending {
		want.ApplyStartedAt = proposal.NormalizeTime(now) // a begin of a pending proposal starts the apply now
	}
	if st.wantState == 0 {
		return
	}
	want.State = st.wantState
	if got == nil {
		if got, err = s.Get(ctx, want.ID, tenant, principal, now); err != nil {
			t.Fatalf("%s: Get after step = %v", name, err)
		}
	}
	assertProposal(t, name, got, want)
}

func testExpiry(t *testing.T, s proposal.Store) {
	ctx := context.Background()
	at := func(p *proposal.Proposal, d time.Duration) time.Time { return p.ExpiresAt.Add(d) }
	tests := []struct {
		name  string
		setup []step // run just before expiry
		op    string
		after time.Duration // op's now relative to ExpiresAt
		want  error
		state proposal.State // state of a successful op's proposal
	}{
		{"get just before expiry", nil, "get", -time.Microsecond, nil, proposal.StatePending},
		{"begin just before expiry", nil, "begin", -time.Microsecond, nil, proposal.StateApplying},
		{"get at expiry", nil, "get", 0, proposal.ErrExpired, 0},
		{"begin at expiry", nil, "begin", 0, proposal.ErrExpired, 0},
		{"discard at expiry", nil, "discard", 0, proposal.ErrExpired, 0},
		{"begin long after expiry", nil, "begin", 30 * 24 * time.Hour, proposal.ErrExpired, 0},
		{"get of an applying proposal after expiry", []step{{op: "begin"}}, "get", time.Second, proposal.ErrExpired, 0},
		{"begin of an applying proposal after expiry", []step{{op: "begin"}}, "begin", time.Second, proposal.ErrExpired, 0},
		{"begin of an aborted proposal after expiry", []step{{op: "begin"}, {op: "abort"}}, "begin", time.Second, proposal.ErrExpired, 0},
		{"begin of an applied proposal after expiry replays", []step{{op: "begin"}, {op: "finish", result: `{"r":1}`}}, "begin", time.Hour, nil, proposal.StateApplied},
		{"get of an applied proposal after expiry", []step{{op: "begin"}, {op: "finish", result: `{"r":1}`}}, "get", time.Hour, nil, proposal.StateApplied},
		{"begin of a discarded proposal after expiry", []step{{op: "discard"}}, "begin", time.Hour, proposal.ErrDiscarded, 0},
		{"discard of a discarded proposal after expiry", []step{{op: "discard"}}, "discard", time.Hour, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mustCreate(t, s, sample())
			want := clone(p)
			for i, st := range tc.setup {
				runStep(t, s, fmt.Sprintf("setup %d (%s)", i, st.op), want, st, at(p, -time.Minute))
			}
			now := at(p, tc.after)
			var got *proposal.Proposal
			var err error
			switch tc.op {
			case "get":
				got, err = s.Get(ctx, p.ID, tenant, principal, now)
			case "begin":
				got, err = s.BeginApply(ctx, p.ID, tenant, principal, now)
			case "discard":
				err = s.Discard(ctx, p.ID, tenant, principal, now)
			}
			if !errors.Is(err, tc.want) || (err == nil) != (tc.want == nil) {
				t.Fatalf("%s at ExpiresAt%+v = %v, want %v", tc.op, tc.after, err, tc.want)
			}
			if err != nil && got != nil {
				t.Fatalf("%s returned a proposal with error %v", tc.op, err)
			}
			if tc.state != 0 {
				want.State = tc.state
				if tc.op == "begin" && tc.state == proposal.StateApplying {
					want.ApplyStartedAt = proposal.NormalizeTime(now)
				}
				assertProposal(t, tc.op, got, want)
			}
		})
	}

	t.Run("finish after expiry completes an apply begun in time", func(t *testing.T) {
		p := mustCreate(t, s, sample())
		if _, err := s.BeginApply(ctx, p.ID, tenant, principal, at(p, -time.Second)); err != nil {
			t.Fatalf("BeginApply = %v", err)
		}
		if err := s.FinishApply(ctx, p.ID, []byte("done"), false); err != nil {
			t.Fatalf("FinishApply after expiry = %v, want nil", err)
		}
		got, err := s.BeginApply(ctx, p.ID, tenant, principal, at(p, time.Minute))
		if err != nil {
			t.Fatalf("BeginApply replay = %v", err)
		}
		want := clone(p)
		want.State, want.Result, want.ApplyStartedAt = proposal.StateApplied, []byte("done"), proposal.NormalizeTime(at(p, -time.Second))
		assertProposal(t, "replay", got, want)
	})
}

func testConcurrentBegin(t *testing.T, s proposal.Store) {
	const n = 64
	ctx := context.Background()
	p := mustCreate(t, s, sample())
	now := base.Add(time.Minute)

	run := func() ([]*proposal.Proposal, []error) {
		gots, errs := make([]*proposal.Proposal, n), make([]error, n)
		var start, done sync.WaitGroup
		start.Add(1)
		for i := range n {
			done.Go(func() {
				start.Wait()
				gots[i], errs[i] = s.BeginApply(ctx, p.ID, tenant, principal, now)
			})
		}
		start.Done()
		done.Wait()
		return gots, errs
	}

	gots, errs := run()
	winners, busy := 0, 0
	for i := range n {
		switch {
		case errs[i] == nil && gots[i].State == proposal.StateApplying:
			winners++
		case errors.Is(errs[i], proposal.ErrBusy) && gots[i] == nil:
			busy++
		default:
			t.Errorf("caller %d: got %v, %v; want applying or ErrBusy", i, gots[i], errs[i])
		}
	}
	if winners != 1 || busy != n-1 {
		t.Fatalf("winners = %d, busy = %d; want 1 and %d", winners, busy, n-1)
	}

	if err := s.FinishApply(ctx, p.ID, []byte(`{"success":true}`), true); err != nil {
		t.Fatalf("FinishApply = %v", err)
	}
	want := clone(p)
	want.State, want.Result, want.ResultIsError = proposal.StateApplied, []byte(`{"success":true}`), true
	want.ApplyStartedAt = proposal.NormalizeTime(now)
	gots, errs = run()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("replay caller %d: err = %v, want nil", i, errs[i])
		}
		assertProposal(t, fmt.Sprintf("replay caller %d", i), gots[i], want)
	}
}

// An apply that never finished (the process crashed, or its result could
// not be saved) blocks others only for the store's apply lease, which the
// suite expects to be proposal.DefaultApplyLease.
func testApplyLease(t *testing.T, s proposal.Store) {
	ctx := context.Background()
	p := mustCreate(t, s, sample())
	start := base.Add(time.Minute)
	if _, err := s.BeginApply(ctx, p.ID, tenant, principal, start); err != nil {
		t.Fatalf("BeginApply = %v", err)
	}
	if _, err := s.BeginApply(ctx, p.ID, tenant, principal, start.Add(proposal.DefaultApplyLease-time.Microsecond)); !errors.Is(err, proposal.ErrBusy) {
		t.Fatalf("BeginApply within the lease = %v, want ErrBusy", err)
	}
	again := start.Add(proposal.DefaultApplyLease)
	got, err := s.BeginApply(ctx, p.ID, tenant, principal, again)
	if err != nil {
		t.Fatalf("BeginApply after the lease = %v, want the proposal", err)
	}
	want := clone(p)
	want.State, want.ApplyStartedAt = proposal.StateApplying, proposal.NormalizeTime(again)
	assertProposal(t, "taken over", got, want)
	if _, err := s.BeginApply(ctx, p.ID, tenant, principal, again.Add(time.Second)); !errors.Is(err, proposal.ErrBusy) {
		t.Fatalf("BeginApply right after the takeover = %v, want ErrBusy", err)
	}
}
