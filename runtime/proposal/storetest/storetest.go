// Package storetest is the conformance suite every proposal.Store must pass:
// exact round trips, owner scoping, the apply state machine, expiry and a
// single winner among concurrent applies.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
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

const (
	tenant    = "tenant-a"
	principal = "user-1"
	ttl       = 15 * time.Minute
)

// base is a realistic creation time on a microsecond boundary in UTC, the
// form stores return.
var base = time.Now().UTC().Truncate(time.Second)

// sample returns a fully populated pending proposal with a fresh id.
func sample() *proposal.Proposal {
	return &proposal.Proposal{
		ID:             proposal.NewID(),
		Tenant:         tenant,
		Principal:      principal,
		Tool:           "delete_element",
		Classification: "DESTRUCTIVE_DELETE",
		Summary:        "Delete element \"Billing API\" (ApplicationComponent) — naïve ✓",
		Request:        []byte{0x0a, 0x03, 'a', 0x00, 'b', 0xff, 0x10, 0x01},
		Arguments:      json.RawMessage(`{"z": 1, "a": [true, null, "x\u00e9"],  "m": {"k": 1.50}}`),
		Preview:        json.RawMessage(`{"element_id":"el_1","changes":[{"field":"name","from":"Billing API","to":null}]}`),
		CreatedAt:      base.Add(123456 * time.Microsecond),
		ExpiresAt:      base.Add(ttl + 654321*time.Microsecond),
		State:          proposal.StatePending,
		Target:         "element el_1",
		StateDigest:    "sha256:3f0c",
		StateSummary:   "Billing API (ApplicationComponent), 2 relationships",
	}
}

func mustCreate(t *testing.T, s proposal.Store, p *proposal.Proposal) *proposal.Proposal {
	t.Helper()
	if err := s.Create(context.Background(), p); err != nil {
		t.Fatalf("Create(%s) = %v, want nil", p.ID, err)
	}
	return p
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

// clone deep-copies p without the normalisation stores apply, so expected
// values never share memory with what a store was given.
func clone(p *proposal.Proposal) *proposal.Proposal {
	c := *p
	c.Request = append([]byte(nil), p.Request...)
	c.Arguments = append(json.RawMessage(nil), p.Arguments...)
	c.Preview = append(json.RawMessage(nil), p.Preview...)
	c.Result = append([]byte(nil), p.Result...)
	return &c
}

// assertProposal fails unless got equals want exactly, naming each field
// that differs.
func assertProposal(t *testing.T, what string, got, want *proposal.Proposal) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: got nil proposal, want %+v", what, want)
	}
	if reflect.DeepEqual(got, want) {
		return
	}
	gv, wv := reflect.ValueOf(*got), reflect.ValueOf(*want)
	var diffs []string
	for i := range gv.NumField() {
		g, w := gv.Field(i).Interface(), wv.Field(i).Interface()
		if !reflect.DeepEqual(g, w) {
			diffs = append(diffs, fmt.Sprintf("%s: got %#v, want %#v", gv.Type().Field(i).Name, g, w))
		}
	}
	t.Fatalf("%s: proposal differs:\n%s", what, strings.Join(diffs, "\n"))
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
