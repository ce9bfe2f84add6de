// Package storetest is the conformance suite every idempotency.Store must
// pass, plus the failure-mode table of the two-layer design and a shared
// benchmark. Store implementations run it from their own tests.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
)

const (
	lease = 30 * time.Second
	ttl   = idempotency.DefaultDurableTTL
)

// Response is a stored envelope with whitespace, escapes and non-ASCII text,
// so that a store that re-encodes it instead of keeping it verbatim fails.
var Response = []byte("{\"success\": true,\n  \"element\": {\"name\": \"Auftragsdienst \u00e9\\u00e9\", \"n\": 1.0}\t}\n")

// base is the suite's clock origin; every step passes an explicit now.
func base() time.Time { return idempotency.TruncateTime(time.Now()) }

// Diff describes how got differs from want field by field ("" when equal).
func Diff(got, want *idempotency.Record) string {
	if got == nil || want == nil {
		if got == want {
			return ""
		}
		return fmt.Sprintf("record = %+v, want %+v", got, want)
	}
	var d []string
	if got.Key != want.Key {
		d = append(d, fmt.Sprintf("Key = %+v, want %+v", got.Key, want.Key))
	}
	if got.Fingerprint != want.Fingerprint {
		d = append(d, fmt.Sprintf("Fingerprint = %q, want %q", got.Fingerprint, want.Fingerprint))
	}
	if got.State != want.State {
		d = append(d, fmt.Sprintf("State = %d, want %d", got.State, want.State))
	}
	if !bytes.Equal(got.Response, want.Response) {
		d = append(d, fmt.Sprintf("Response = %q, want %q", got.Response, want.Response))
	}
	if got.IsError != want.IsError {
		d = append(d, fmt.Sprintf("IsError = %v, want %v", got.IsError, want.IsError))
	}
	for _, f := range []struct {
		name      string
		got, want time.Time
	}{{"CreatedAt", got.CreatedAt, want.CreatedAt}, {"LeaseUntil", got.LeaseUntil, want.LeaseUntil}, {"ExpiresAt", got.ExpiresAt, want.ExpiresAt}} {
		if !f.got.Equal(f.want) {
			d = append(d, fmt.Sprintf("%s = %v, want %v", f.name, f.got, f.want))
		}
	}
	if len(d) == 0 {
		return ""
	}
	return fmt.Sprint(d)
}

func inProgress(k idempotency.Key, fp string, at time.Time, lease time.Duration) *idempotency.Record {
	return &idempotency.Record{Key: k, Fingerprint: fp, State: idempotency.StateInProgress, CreatedAt: at, LeaseUntil: at.Add(lease), ExpiresAt: at.Add(lease)}
}

func completed(k idempotency.Key, fp string, resp []byte, isErr bool, created, expires time.Time) *idempotency.Record {
	return &idempotency.Record{Key: k, Fingerprint: fp, State: idempotency.StateCompleted, Response: resp, IsError: isErr, CreatedAt: created, ExpiresAt: expires}
}

// step is one store operation and its exact expected outcome.
type step struct {
	op     string // claim, complete, release, get
	key    idempotency.Key
	fp     string
	at     time.Duration // now = base + at
	lease  time.Duration // claim (default lease)
	resp   []byte        // complete
	isErr  bool          // complete
	ttl    time.Duration // complete (default ttl)
	want   *idempotency.Record
	claim  bool  // claim: want Claimed
	err    error // want errors.Is(err, this); nil means no error
	reason string
}

// Run runs the conformance suite. newStore must return an empty store that no
// other test shares.
func Run(t *testing.T, newStore func(t *testing.T) idempotency.Store) {
	for _, tc := range append(claimCases(), completionCases()...) {
		t.Run(tc.name, func(t *testing.T) {
			store := newStore(t)
			b := base()
			runSteps(t, store, b, tc.steps(b))
		})
	}
	t.Run("tenants, tools and separators are isolated", func(t *testing.T) { testIsolation(t, newStore(t)) })
	t.Run("64 concurrent claims of one key: exactly one wins", func(t *testing.T) { testConcurrentClaims(t, newStore(t)) })
}

// stepCase is one scenario of the suite: its steps from a base time.
type stepCase struct {
	name  string
	steps func(b time.Time) []step
}

// suiteKey is the key the scenarios claim.
var suiteKey = idempotency.Key{Tenant: "tenant-a", Tool: "create_element", Key: "req-1"}

// claimCases are the scenarios of claiming, replaying and releasing a key.
func claimCases() []stepCase {
	k := suiteKey
	s, h := time.Second, time.Hour
	return []stepCase{
		{"first claim claims", func(b time.Time) []step {
			return []step{{op: "claim", key: k, fp: "fp1", claim: true}}
		}},
		{"claim of a key in flight returns the in-progress record", func(b time.Time) []step {
			return []step{
				{op: "claim", key: k, fp: "fp1", claim: true},
				{op: "claim", key: k, fp: "fp1", at: s, want: inProgress(k, "fp1", b, lease)},
				{op: "claim", key: k, fp: "fp2", at: 2 * s, want: inProgress(k, "fp1", b, lease), reason: "another fingerprint still sees the first claim"},
				{op: "get", key: k, at: 3 * s, want: inProgress(k, "fp1", b, lease)},
			}
		}},
		{"completed key replays response, fingerprint, isError and CreatedAt exactly", func(b time.Time) []step {
			want := completed(k, "fp1", Response, false, b, b.Add(2*s+ttl))
			return []step{
				{op: "claim", key: k, fp: "fp1", claim: true},
				{op: "complete", key: k, fp: "fp1", at: 2 * s, resp: Response},
				{op: "claim", key: k, fp: "fp1", at: 3 * s, want: want},
				{op: "claim", key: k, fp: "fp-other", at: 4 * s, want: want, reason: "a reused key must show the original fingerprint"},
				{op: "get", key: k, at: 5 * s, want: want},
			}
		}},
		{"business error is stored with isError", func(b time.Time) []step {
			resp := []byte(`{"success":false,"error":{"code":"ALREADY_EXISTS"}}`)
			return []step{
				{op: "claim", key: k, fp: "fp1", claim: true},
				{op: "complete", key: k, fp: "fp1", at: s, resp: resp, isErr: true, ttl: h},
				{op: "claim", key: k, fp: "fp1", at: 2 * s, want: completed(k, "fp1", resp, true, b, b.Add(s+h))},
			}
		}},
		{"release makes the key claimable again", func(b time.Time) []step {
			return []step{
				{op: "claim", key: k, fp: "fp1", claim: true},
				{op: "release", key: k, fp: "fp1", at: s},
				{op: "get", key: k, at: 2 * s, err: idempotency.ErrNotFound},
				{op: "claim", key: k, fp: "fp2", at: 3 * s, claim: true},
				{op: "get", key: k, at: 4 * s, want: inProgress(k, "fp2", b.Add(3*s), lease)},
			}
		}},
		{"release with another fingerprint keeps the claim", func(b time.Time) []step {
			return []step{
				{op: "claim", key: k, fp: "fp1", claim: true},
				{op: "release", key: k, fp: "fp2", at: s},
				{op: "claim", key: k, fp: "fp1", at: 2 * s, want: inProgress(k, "fp1", b, lease)},
			}
		}},
		{"release after complete keeps the record", func(b time.Time) []step {
			return []step{
				{op: "claim", key: k, fp: "fp1", claim: true},
				{op: "complete", key: k, fp: "fp1", at: s, resp: Response},
				{op: "release", key: k, fp: "fp1", at: 2 * s},
				{op: "get", key: k, at: 3 * s, want: completed(k, "fp1", Response, false, b, b.Add(s+ttl))},
			}
		}},
		{"release of an unknown key is a no-op", func(b time.Time) []step {
			return []step{{op: "release", key: k, fp: "fp1"}, {op: "get", key: k, err: idempotency.ErrNotFound}}
		}},
	}
}

// completionCases are the scenarios of leases, completion and expiry.
func completionCases() []stepCase {
	k := suiteKey
	s, h, d := time.Second, time.Hour, 24*time.Hour
	return []stepCase{
		{"expired lease is taken over", func(b time.Time) []step {
			return []step{
				{op: "claim", key: k, fp: "fp1", claim: true},
				{op: "claim", key: k, fp: "fp2", at: lease - time.Microsecond, want: inProgress(k, "fp1", b, lease), reason: "lease still running"},
				{op: "get", key: k, at: lease, err: idempotency.ErrNotFound, reason: "an expired claim is invisible"},
				{op: "claim", key: k, fp: "fp2", at: lease, lease: 2 * lease, claim: true},
				{op: "get", key: k, at: lease + s, want: inProgress(k, "fp2", b.Add(lease), 2*lease)},
				{op: "complete", key: k, fp: "fp1", at: lease + 2*s, resp: []byte("late"), err: idempotency.ErrClaimLost, reason: "the first claimant lost the key"},
				{op: "complete", key: k, fp: "fp2", at: lease + 3*s, resp: Response},
				{op: "get", key: k, at: lease + 4*s, want: completed(k, "fp2", Response, false, b.Add(lease), b.Add(lease+3*s+ttl))},
			}
		}},
		{"complete after the lease ended with no takeover still records", func(b time.Time) []step {
			return []step{
				{op: "claim", key: k, fp: "fp1", claim: true},
				{op: "complete", key: k, fp: "fp1", at: 2 * lease, resp: Response},
				{op: "get", key: k, at: 2*lease + s, want: completed(k, "fp1", Response, false, b, b.Add(2*lease+ttl))},
			}
		}},
		{"first completion wins", func(b time.Time) []step {
			return []step{
				{op: "claim", key: k, fp: "fp1", claim: true},
				{op: "complete", key: k, fp: "fp1", at: s, resp: Response},
				{op: "complete", key: k, fp: "fp1", at: 2 * s, resp: []byte("second"), err: idempotency.ErrClaimLost},
				{op: "get", key: k, at: 3 * s, want: completed(k, "fp1", Response, false, b, b.Add(s+ttl))},
			}
		}},
		{"complete without a claim records with CreatedAt now", func(b time.Time) []step {
			return []step{
				{op: "complete", key: k, fp: "fp1", at: s, resp: Response},
				{op: "get", key: k, at: 2 * s, want: completed(k, "fp1", Response, false, b.Add(s), b.Add(s+ttl))},
			}
		}},
		{"completed record expires after its ttl", func(b time.Time) []step {
			return []step{
				{op: "claim", key: k, fp: "fp1", claim: true},
				{op: "complete", key: k, fp: "fp1", at: s, resp: Response, ttl: h},
				{op: "get", key: k, at: s + h - time.Microsecond, want: completed(k, "fp1", Response, false, b, b.Add(s+h))},
				{op: "get", key: k, at: s + h, err: idempotency.ErrNotFound},
				{op: "claim", key: k, fp: "fp2", at: s + h, claim: true, reason: "an expired key is processed as new"},
			}
		}},
		{"default durable window is seven days", func(b time.Time) []step {
			return []step{
				{op: "claim", key: k, fp: "fp1", claim: true},
				{op: "complete", key: k, fp: "fp1", resp: Response},
				{op: "get", key: k, at: 7*d - s, want: completed(k, "fp1", Response, false, b, b.Add(7*d))},
				{op: "get", key: k, at: 7 * d, err: idempotency.ErrNotFound},
			}
		}},
	}
}

// testIsolation: keys that differ in tenant, tool or separators never meet.
func testIsolation(t *testing.T, store idempotency.Store) {
	other := func(tenant, tool, key string) idempotency.Key {
		return idempotency.Key{Tenant: tenant, Tool: tool, Key: key}
	}
	s := time.Second
	b := base()
	keys := []idempotency.Key{
		other("tenant-a", "tool-x", "k"),
		other("tenant-b", "tool-x", "k"),
		other("tenant-a", "tool-y", "k"),
		other("t1:x", "tool", "k"),
		other("t1", "x:tool", "k"),
		other("t1", "x", "tool:k"),
		other("t1%3Ax", "tool", "k"),
		other("t{1}", "tool", "k"),
	}
	for i, key := range keys {
		runSteps(t, store, b, []step{{op: "claim", key: key, fp: fmt.Sprint("fp", i), claim: true}})
	}
	for i, key := range keys {
		runSteps(t, store, b, []step{{op: "complete", key: key, fp: fmt.Sprint("fp", i), at: s, resp: fmt.Appendf(nil, `{"n":%d}`, i)}})
	}
	for i, key := range keys {
		runSteps(t, store, b, []step{{op: "get", key: key, at: 2 * s, want: completed(key, fmt.Sprint("fp", i), fmt.Appendf(nil, `{"n":%d}`, i), false, b, b.Add(s+ttl))}})
	}
}

// testConcurrentClaims: of 64 concurrent claims of one key exactly one wins.
func testConcurrentClaims(t *testing.T, store idempotency.Store) {
	k := suiteKey
	b := base()
	const n = 64
	var (
		wg      sync.WaitGroup
		start   = make(chan struct{})
		results [n]idempotency.ClaimResult
		errs    [n]error
	)
	for i := range n {
		wg.Go(func() {
			<-start
			results[i], errs[i] = store.Claim(context.Background(), k, fmt.Sprint("fp", i), b, lease)
		})
	}
	close(start)
	wg.Wait()
	winner := -1
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("claim %d: %v", i, errs[i])
		}
		if results[i].Claimed {
			if winner >= 0 {
				t.Fatalf("claims %d and %d both won", winner, i)
			}
			winner = i
		}
	}
	if winner < 0 {
		t.Fatal("no claim won")
	}
	want := inProgress(k, fmt.Sprint("fp", winner), b, lease)
	for i := range n {
		if i == winner {
			continue
		}
		if d := Diff(results[i].Existing, want); d != "" {
			t.Errorf("claim %d lost with Existing: %s", i, d)
		}
	}
}

// runSteps applies steps in order and checks each outcome exactly.
func runSteps(t *testing.T, store idempotency.Store, b time.Time, steps []step) {
	t.Helper()
	ctx := context.Background()
	for i, st := range steps {
		now := b.Add(st.at)
		where := fmt.Sprintf("step %d (%s %s at +%v)", i, st.op, st.fp, st.at)
		if st.reason != "" {
			where += ": " + st.reason
		}
		var (
			err error
			got *idempotency.Record
		)
		switch st.op {
		case "claim":
			l := st.lease
			if l == 0 {
				l = lease
			}
			var res idempotency.ClaimResult
			res, err = store.Claim(ctx, st.key, st.fp, now, l)
			if err == nil {
				if res.Claimed != st.claim {
					t.Fatalf("%s: Claimed = %v, want %v (Existing %+v)", where, res.Claimed, st.claim, res.Existing)
				}
				if st.claim && res.Existing != nil {
					t.Fatalf("%s: claimed with Existing %+v, want nil", where, res.Existing)
				}
				got = res.Existing
			}
		case "complete":
			tl := st.ttl
			if tl == 0 {
				tl = ttl
			}
			err = store.Complete(ctx, st.key, st.fp, st.resp, st.isErr, now, tl)
		case "release":
			err = store.Release(ctx, st.key, st.fp)
		case "get":
			got, err = store.Get(ctx, st.key, now)
		}
		if !errors.Is(err, st.err) || (err != nil && st.err == nil) {
			t.Fatalf("%s: err = %v, want %v", where, err, st.err)
		}
		if err != nil {
			continue
		}
		if (st.op == "claim" && !st.claim) || st.op == "get" {
			if d := Diff(got, st.want); d != "" {
				t.Fatalf("%s: %s", where, d)
			}
		}
	}
}

// CountingStore wraps a Store and counts the calls that reach it, so tests can
// tell which layer answered.
type CountingStore struct {
	idempotency.Store
	Claims, Completes, Gets atomic.Int64
}

// Claim counts and delegates.
func (c *CountingStore) Claim(ctx context.Context, k idempotency.Key, fp string, now time.Time, lease time.Duration) (idempotency.ClaimResult, error) {
	c.Claims.Add(1)
	return c.Store.Claim(ctx, k, fp, now, lease)
}

// Complete counts and delegates.
func (c *CountingStore) Complete(ctx context.Context, k idempotency.Key, fp string, resp []byte, isErr bool, now time.Time, ttl time.Duration) error {
	_, err := c.CompleteRecord(ctx, k, fp, resp, isErr, now, ttl)
	return err
}

// CompleteRecord counts and delegates (through Complete and Get when the
// wrapped store has no CompleteRecord).
func (c *CountingStore) CompleteRecord(ctx context.Context, k idempotency.Key, fp string, resp []byte, isErr bool, now time.Time, ttl time.Duration) (*idempotency.Record, error) {
	c.Completes.Add(1)
	if rc, ok := c.Store.(idempotency.RecordCompleter); ok {
		return rc.CompleteRecord(ctx, k, fp, resp, isErr, now, ttl)
	}
	if err := c.Store.Complete(ctx, k, fp, resp, isErr, now, ttl); err != nil {
		return nil, err
	}
	return c.Store.Get(ctx, k, now)
}

// Get counts and delegates.
func (c *CountingStore) Get(ctx context.Context, k idempotency.Key, now time.Time) (*idempotency.Record, error) {
	c.Gets.Add(1)
	return c.Store.Get(ctx, k, now)
}
