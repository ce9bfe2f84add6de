package archimate_test

import (
	"context"
	"testing"
	"time"
)

// A transaction holding one element's row lock does not hold up writes to
// other elements of the same tenant (an update, a create, a relationship
// between them, a delete); a write to the locked element waits for it and
// then succeeds.
func TestWriteToOneElementDoesNotWaitForAnother(t *testing.T) {
	db := newRowsDB(t, nil)
	cs := db.session(t, nil)
	a := createdID(t, mustOK(t, cs, "createElement", `{"type":"ApplicationComponent","name":"A"}`))
	b := createdID(t, mustOK(t, cs, "createElement", `{"type":"ApplicationComponent","name":"B"}`))
	c := createdID(t, mustOK(t, cs, "createElement", `{"type":"ApplicationService","name":"C"}`))
	d := createdID(t, mustOK(t, cs, "createElement", `{"type":"Node","name":"D"}`))

	ctx := context.Background()
	holder, err := db.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = holder.Rollback(ctx) }()
	if _, err := holder.Exec(ctx, `SELECT 1 FROM `+db.prefix+`_elements WHERE tenant = $1 AND id = $2 FOR UPDATE`, devRC.TenantID, a); err != nil {
		t.Fatal(err)
	}

	// A write to A waits for the lock.
	waiting := make(chan map[string]any, 1)
	go func() {
		out, _ := call(t, cs, "updateElement", `{"id":"`+a+`","description":"after the lock"}`)
		waiting <- out
	}()
	for deadline := time.Now().Add(10 * time.Second); db.count(t, `SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%$P_elements%'`) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the write to the locked element never waited for its lock")
		}
	}

	// Meanwhile every write to the other elements completes.
	start := time.Now()
	if out := mustOK(t, cs, "updateElement", `{"id":"`+b+`","description":"not held up","properties":{"tier":"gold"}}`); out["new_version"] != float64(2) {
		t.Fatalf("update B: %v", out)
	}
	mustOK(t, cs, "createElement", `{"type":"Node","name":"E"}`)
	mustOK(t, cs, "createRelationship", `{"type":"Realization","source_id":"`+b+`","target_id":"`+c+`"}`)
	mustOK(t, cs, "applyProposal", `{"proposal_id":"`+proposalOf(t, mustOK(t, cs, "deleteElement", `{"id":"`+d+`"}`))+`"}`)
	elapsed := time.Since(start)
	select {
	case out := <-waiting:
		t.Fatalf("the write to the locked element did not wait: %v", out)
	default:
	}
	if err := holder.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case out := <-waiting:
		if out["success"] != true || out["new_version"] != float64(2) {
			t.Fatalf("update A after the lock: %v", out)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the write to A did not finish after the lock was released")
	}
	if n := db.count(t, `SELECT count(*) FROM $P_elements WHERE tenant = $1`, devRC.TenantID); n != 4 {
		t.Fatalf("%d elements, want 4 (A, B, C, E)", n)
	}
	t.Logf("while A was locked: update B, create E, relate B to C, delete D in %v", elapsed.Round(time.Millisecond))
}

// proposalOf is the id of the proposal a write answered with.
func proposalOf(t *testing.T, out map[string]any) string {
	t.Helper()
	p, _ := out["proposal"].(map[string]any)
	id, _ := p["proposal_id"].(string)
	if id == "" {
		t.Fatalf("want a proposal: %v", out)
	}
	return id
}
