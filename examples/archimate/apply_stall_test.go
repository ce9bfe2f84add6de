package archimate_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	proposalpg "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal/pgstore"
)

// applyLease is the proposals' apply lease in the stall tests.
const applyLease = time.Second

// stallDB is a repository whose proposals' apply lease is applyLease, with
// a capability cap-x the user owns and a proposal to delete it.
func stallDB(t *testing.T) (*rowsDB, func(tool, args string) map[string]any, string) {
	t.Helper()
	db := newRowsDB(t, nil, proposalpg.WithApplyLease(applyLease))
	cs := db.session(t, nil)
	do := func(tool, args string) map[string]any {
		out, _ := call(t, cs, tool, args)
		return out
	}
	mustOK(t, cs, "createCapability", `{"id":"cap-x","name":"Fulfillment","profile":{"owner":"Supply Chain","criticality":"High","lifecycle":"Active"}}`)
	return db, do, proposalOf(t, mustOK(t, cs, "deleteElement", `{"id":"cap-x"}`))
}

// hold makes the next write that reaches point wait until release is
// closed; reached is closed when it gets there.
type hold struct {
	point            string
	armed            atomic.Bool
	reached, release chan struct{}
}

func newHold(point string) *hold {
	h := &hold{point: point, reached: make(chan struct{}), release: make(chan struct{})}
	h.armed.Store(true)
	return h
}

func (h *hold) fault(point string) {
	if point == h.point && h.armed.CompareAndSwap(true, false) {
		close(h.reached)
		<-h.release
	}
}

func waitFor(t *testing.T, what string, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// afterStall checks the end state of every stall scenario: cap-x is the
// element the user re-created (version 1, its own description), the
// delete ran exactly once, and the proposal replays its one result.
func afterStall(t *testing.T, db *rowsDB, do func(tool, args string) map[string]any, id string, applied map[string]any) {
	t.Helper()
	if n := db.count(t, `SELECT count(*) FROM $P_elements WHERE tenant = $1 AND id = 'cap-x' AND version = 1 AND description = 'the new one'`, devRC.TenantID); n != 1 {
		t.Fatal("the re-created element is gone or changed")
	}
	if n := db.count(t, `SELECT count(*) FROM $P_outbox WHERE tool = 'deleteElement'`); n != 1 {
		t.Fatalf("the delete ran %d times, want 1", n)
	}
	if n := db.count(t, `SELECT count(*) FROM $P_outbox WHERE tool = 'createCapability'`); n != 2 {
		t.Fatalf("%d creations, want 2 (the first and the re-creation)", n)
	}
	again := do("applyProposal", `{"proposal_id":"`+id+`"}`)
	if again["idempotent_replay"] != true || !cmp.Equal(again["id"], applied["id"]) || again["id"] != "cap-x" {
		t.Fatalf("applying again: %v; want the replay of %v", again, applied)
	}
	if n := db.count(t, `SELECT count(*) FROM $P_elements WHERE tenant = $1 AND id = 'cap-x'`, devRC.TenantID); n != 1 {
		t.Fatal("applying again deleted the re-created element")
	}
}

// The scenario of a slow database: another transaction holds the
// element's row past the apply lease. Apply #1 waits for the lock; apply
// #2 takes the proposal over and queues behind it. When the lock is
// released #1 gets it first, but its fencing token is stale, so it rolls
// back (CONFLICT: being applied by another call); #2 deletes the element.
// The user re-creates it under the same id: it stays, and the delete ran
// once.
func TestStalledApplyTakenOverDeletesOnce(t *testing.T) {
	db, do, id := stallDB(t)
	ctx := context.Background()
	holder, err := db.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = holder.Rollback(ctx) }()
	if _, err := holder.Exec(ctx, `SELECT 1 FROM `+db.prefix+`_elements WHERE id = 'cap-x' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	waiters := func() int {
		return db.count(t, `SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%$P_elements%'`)
	}
	untilWaiters := func(n int) {
		for deadline := time.Now().Add(10 * time.Second); waiters() != n; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("want %d applies waiting for the row lock, have %d", n, waiters())
			}
		}
	}
	first, second := make(chan map[string]any, 1), make(chan map[string]any, 1)
	go func() { first <- do("applyProposal", `{"proposal_id":"`+id+`"}`) }()
	untilWaiters(1)
	time.Sleep(applyLease + 100*time.Millisecond)
	// #2 must not commit before #1 has answered, so #1's answer is exact.
	h := newHold("inside-tx")
	db.repo.Fault = h.fault
	go func() { second <- do("applyProposal", `{"proposal_id":"`+id+`"}`) }()
	untilWaiters(2)
	if err := holder.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var one map[string]any
	select {
	case one = <-first:
	case <-time.After(10 * time.Second):
		t.Fatal("apply #1 never answered")
	}
	e, _ := one["error"].(map[string]any)
	if e["code"] != "CONFLICT" || e["message"] != `proposal "`+id+`" is being applied by another call` {
		t.Fatalf("apply #1 (taken over): %v", one)
	}
	waitFor(t, "apply #2 to write", h.reached)
	close(h.release)
	two := <-second
	if two["success"] != true || two["id"] != "cap-x" {
		t.Fatalf("apply #2: %v", two)
	}
	db.repo.Fault = nil
	mustOKDo(t, do, "createCapability", `{"id":"cap-x","name":"Fulfillment","description":"the new one","profile":{"owner":"Supply Chain","criticality":"High","lifecycle":"Active"}}`)
	afterStall(t, db, do, id, two)
}

// The interleaving that deleted a re-created element: apply #1 stalls
// after its state check, before its write; apply #2 takes over after the
// lease and deletes the element; the user re-creates it under the same
// id; then #1 resumes. Under the lock its write takes, #1 finds the
// element is not the one the user confirmed deleting (PROPOSAL_STALE):
// the re-created element stays and the delete ran once.
func TestStalledApplyResumingAfterReCreationDeletesNothing(t *testing.T) {
	db, do, id := stallDB(t)
	h := newHold("before-read")
	db.repo.Fault = h.fault
	first := make(chan map[string]any, 1)
	go func() { first <- do("applyProposal", `{"proposal_id":"`+id+`"}`) }()
	waitFor(t, "apply #1 to stall", h.reached)
	time.Sleep(applyLease + 100*time.Millisecond)
	two := do("applyProposal", `{"proposal_id":"`+id+`"}`)
	if two["success"] != true || two["id"] != "cap-x" {
		t.Fatalf("apply #2: %v", two)
	}
	mustOKDo(t, do, "createCapability", `{"id":"cap-x","name":"Fulfillment","description":"the new one","profile":{"owner":"Supply Chain","criticality":"High","lifecycle":"Active"}}`)
	close(h.release)
	one := <-first
	e, _ := one["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	if e["code"] != "PROPOSAL_STALE" || d["after"] != "Fulfillment (Capability), version 1, no relationships" {
		t.Fatalf("apply #1 resumed after the re-creation: %v", one)
	}
	afterStall(t, db, do, id, two)
}

// Without a takeover: an apply that stalls after its state check while the
// user changes the element finds the change under its lock, writes
// nothing and leaves the proposal pending.
func TestApplyChecksStateUnderTheWriteLock(t *testing.T) {
	db, do, id := stallDB(t)
	h := newHold("before-read")
	db.repo.Fault = h.fault
	first := make(chan map[string]any, 1)
	go func() { first <- do("applyProposal", `{"proposal_id":"`+id+`"}`) }()
	waitFor(t, "the apply to stall", h.reached)
	mustOKDo(t, do, "updateElement", `{"id":"cap-x","description":"changed meanwhile"}`)
	close(h.release)
	one := <-first
	e, _ := one["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	if e["code"] != "PROPOSAL_STALE" || d["after"] != "Fulfillment (Capability), version 2, no relationships" {
		t.Fatalf("apply after the change: %v", one)
	}
	if n := db.count(t, `SELECT count(*) FROM $P_elements WHERE id = 'cap-x' AND version = 2`); n != 1 {
		t.Fatal("the changed element was deleted")
	}
	if n := db.count(t, `SELECT count(*) FROM $P_proposals WHERE id = $1 AND state = 1`, id); n != 1 {
		t.Fatal("the proposal is not pending again")
	}
}

func mustOKDo(t *testing.T, do func(tool, args string) map[string]any, tool, args string) {
	t.Helper()
	if out := do(tool, args); out["success"] != true {
		t.Fatalf("%s: %v", tool, out)
	}
}
