package archimate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// dupCalls is how many identical keyed calls run at once: as many as the
// pool's connections (at least 4), so that all of them reach the database.
const dupCalls = 4

// N identical keyed calls (same tenant, tool and client_request_id), each
// through a server instance of its own (no in-process cache in common),
// run at once. Where a write takes its key's lock before it writes (hold),
// the first holds its transaction open until every other one waits for its
// key, then commits; a create with no parent takes the lock with its write,
// in one round trip, so the calls race for it as they come. Exactly one
// write happens (one element or one new version, one outbox row, one
// completed key) and every caller gets the same answer, the others as
// replays, never a constraint or version error.
func TestConcurrentIdenticalKeyedCallsWriteOnce(t *testing.T) {
	db := newRowsDB(t, nil)
	setup := db.session(t, nil)
	id := createdIDOf(mustOK(t, setup, "createElement", `{"type":"Node","name":"base"}`))
	for _, tc := range []struct {
		name, tool, args string
		hold             bool
		check            func(t *testing.T)
	}{
		{"createElement", "createElement", `{"type":"Node","name":"db-dup","client_request_id":"dup-create"}`, false, func(t *testing.T) {
			if n := db.count(t, `SELECT count(*) FROM $P_elements WHERE name = 'db-dup'`); n != 1 {
				t.Errorf("elements named db-dup = %d, want 1", n)
			}
		}},
		{"createElement with a parent", "createElement", `{"type":"Node","name":"db-dup-part","parent_id":"` + id + `","client_request_id":"dup-create-part"}`, true, func(t *testing.T) {
			if n := db.count(t, `SELECT count(*) FROM $P_elements WHERE name = 'db-dup-part' AND parent_id = $1`, id); n != 1 {
				t.Errorf("elements named db-dup-part = %d, want 1", n)
			}
		}},
		{"updateElement", "updateElement", `{"id":"` + id + `","description":"once","client_request_id":"dup-update"}`, true, func(t *testing.T) {
			if n := db.count(t, `SELECT version FROM $P_elements WHERE id = $1`, id); n != 2 {
				t.Errorf("version after the updates = %d, want 2 (one update)", n)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sessions := make([]*mcp.ClientSession, dupCalls)
			for i := range sessions {
				sessions[i] = db.session(t, nil)
			}
			outboxBefore := db.count(t, `SELECT count(*) FROM $P_outbox WHERE tool = $1`, tc.tool)
			keysBefore := db.count(t, `SELECT count(*) FROM $P_idem WHERE state = 2`)
			var once sync.Once
			db.repo.Fault = func(point string) {
				if point == "inside-tx" && tc.hold {
					once.Do(func() { waitForKeyWaiters(t, dupCalls-1) })
				}
			}
			defer func() { db.repo.Fault = nil }()
			answers := make([]map[string]any, dupCalls)
			errs := make([]error, dupCalls)
			var wg sync.WaitGroup
			for i, cs := range sessions {
				wg.Add(1)
				go func() {
					defer wg.Done()
					answers[i], errs[i] = callErr(cs, tc.tool, tc.args)
				}()
			}
			wg.Wait()
			replays, replayedAt := 0, map[any]bool{}
			var first map[string]any
			for i, out := range answers {
				if errs[i] != nil {
					t.Fatalf("call %d: %v", i, errs[i])
				}
				if out["idempotent_replay"] == true {
					replays++
					replayedAt[out["original_request_time"]] = true
				}
				// The answer without the replay's marks.
				same := maps.Clone(out)
				delete(same, "idempotent_replay")
				delete(same, "original_request_time")
				if first == nil {
					first = same
					continue
				}
				a, _ := json.Marshal(first)
				b, _ := json.Marshal(same)
				if string(a) != string(b) {
					t.Errorf("call %d answered %s; call 0 %s", i, b, a)
				}
			}
			if replays != dupCalls-1 || len(replayedAt) != 1 || first["success"] != true {
				t.Fatalf("%d replays of %d original request times among %d answers (want %d of 1), first %v", replays, len(replayedAt), dupCalls, dupCalls-1, first)
			}
			tc.check(t)
			if n := db.count(t, `SELECT count(*) FROM $P_outbox WHERE tool = $1`, tc.tool) - outboxBefore; n != 1 {
				t.Errorf("outbox rows written = %d, want 1", n)
			}
			if n := db.count(t, `SELECT count(*) FROM $P_idem WHERE state = 2`) - keysBefore; n != 1 {
				t.Errorf("completed keys = %d, want 1", n)
			}
		})
	}
}

// waitForKeyWaiters waits until n transactions wait for a key's lock,
// watching from a connection of its own (the pool's are all busy then).
func waitForKeyWaiters(t *testing.T, n int) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, os.Getenv("MCPWRITE_TEST_POSTGRES_DSN"))
	if err != nil {
		t.Error(err)
		return
	}
	defer conn.Close(ctx)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var got int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event = 'advisory'
			AND query LIKE '%mcpwrite_idempotency_reserve%'`).Scan(&got); err != nil {
			t.Error(err)
			return
		}
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%d calls wait for the key after 20 s, want %d", got, n)
			return
		}
	}
}

// callErr calls tool on cs from any goroutine: the answer's structured
// content, or an error for a failed call or an error answer.
func callErr(cs *mcp.ClientSession, tool, args string) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		return nil, err
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, fmt.Errorf("error answer: %s", b)
	}
	return out, nil
}
