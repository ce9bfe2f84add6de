package archimate_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// Seed §7.10 and A.3: a batch import takes an array of objects (at most
// 100) with a client_request_id per item. Each item is written on its own:
// a bad item is answered on its own and the others are written; a retry
// with the same item keys replays the items written and writes only the
// rest, so no item is written twice.
func TestBatchImportAnswersPerItemAndReplaysByItemKey(t *testing.T) {
	repo := domain.New()
	s, err := server.New(repo, runtime.WithClock(func() time.Time { return fixedNow }), runtime.WithRequestContextFunc(runtime.StaticRequestContext(devRC)))
	if err != nil {
		t.Fatal(err)
	}
	batchImport(t, mcptest.Connect(t, s, mcptest.Options{}), func() int {
		n := 0
		for _, m := range repo.Received() {
			if r, ok := m.(*archimatev1.CreateElementRequest); ok && strings.HasPrefix(r.GetMeta().GetClientRequestId(), "imp-") {
				n++
			}
		}
		return n
	})
}

// The same on PostgreSQL: each item commits in its own transaction with its
// rows, its outbox row and its key in the idempotency table.
func TestBatchImportAnswersPerItemAndReplaysByItemKeyInPostgreSQL(t *testing.T) {
	_, idem, repo, _ := pgRepo(t)
	batchImport(t, pgSession(t, repo, idem), func() int {
		tools, err := repo.Outbox(context.Background(), devRC.TenantID)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, tool := range tools {
			if tool == "createElements" {
				n++
			}
		}
		return n
	})
}

// batchImport runs the import of four items, two of which fail, then its
// retry with the two fixed, then batchRefusals; written counts the items
// committed so far.
func batchImport(t *testing.T, cs *mcp.ClientSession, written func() int) {
	t.Helper()
	existing := createdID(t, mustOK(t, cs, "createElement", `{"type":"ApplicationComponent","name":"OrderService"}`))
	first := mustOK(t, cs, "createElements", `{"elements":[
		{"type":"ApplicationComponent","name":"OrderAPI","client_request_id":"imp-1"},
		{"type":"ApplicationComponent","name":"OrderService","client_request_id":"imp-2"},
		{"type":"ApplicationInterface","name":"OrderAPI REST","parent_id":"missing-parent","client_request_id":"imp-3"},
		{"type":"Node","name":"Host","description":"Runs the order services","client_request_id":"imp-4"}]}`)
	results, _ := first["results"].([]any)
	if len(results) != 4 {
		t.Fatalf("results: %v", first)
	}
	// Each item's id is the server's, from the item's key: the same on
	// every retry of the item, whatever the call.
	ids := map[string]string{}
	for _, n := range []string{"1", "4"} {
		i := map[string]int{"1": 0, "4": 3}[n]
		ids[n], _ = results[i].(map[string]any)["element"].(map[string]any)["id"].(string)
	}
	if ids["1"] == ids["4"] || len(ids["1"]) != 36 || len(ids["4"]) != 36 {
		t.Fatalf("item ids: %v", ids)
	}
	model := "model-tenant-acme-main"
	el := func(n, typ, layer, name string, extra map[string]any) map[string]any {
		e := map[string]any{"id": ids[n], "model_id": model, "type": typ, "layer": layer, "name": name, "version": float64(1)}
		for k, v := range extra {
			e[k] = v
		}
		return e
	}
	want := map[string]any{
		"success": true, "created": float64(2), "replayed": float64(0), "failed": float64(2),
		"results": []any{
			map[string]any{"index": float64(0), "client_request_id": "imp-1", "success": true, "element": el("1", "ApplicationComponent", "Application", "OrderAPI", nil)},
			map[string]any{"index": float64(1), "client_request_id": "imp-2", "success": false, "error": map[string]any{
				"code": "DUPLICATE_NAME", "field": "name", "message": "Element 'OrderService' already exists in this model",
				"suggestions": map[string]any{
					"existing_element": map[string]any{"id": existing, "type": "ApplicationComponent"},
					"alternatives":     []any{"OrderService2", "OrderServiceV2", "NewOrderService"},
					"hint":             "Use updateElement to modify the existing element, or choose a different name",
				}}},
			map[string]any{"index": float64(2), "client_request_id": "imp-3", "success": false, "error": map[string]any{
				"code": "ELEMENT_NOT_FOUND", "field": "parent_id", "message": "Element 'missing-parent' not found",
				"suggestions": map[string]any{"hint": `Use an id returned by createElement; no element in your model has a name or id close to "missing-parent"`}}},
			map[string]any{"index": float64(3), "client_request_id": "imp-4", "success": true, "element": el("4", "Node", "Technology", "Host", map[string]any{"description": "Runs the order services"})},
		},
		"suggestions": []any{"Call createRelationship to create a relationship between two elements"},
		"warnings":    []any{},
	}
	if d := cmp.Diff(want, first); d != "" {
		t.Fatalf("first import (-want +got):\n%s", d)
	}
	if n := written(); n != 2 {
		t.Fatalf("items written by the first import: %d, want 2", n)
	}

	// The retry: the same four keys, the two failed items fixed (a new
	// name; the parent is the OrderAPI the first import wrote). A new call:
	// items 0 and 3 replay, 1 and 2 are written now.
	orderAPI := ids["1"]
	second := mustOK(t, cs, "createElements", `{"elements":[
		{"type":"ApplicationComponent","name":"OrderAPI","client_request_id":"imp-1"},
		{"type":"ApplicationComponent","name":"OrderService2","client_request_id":"imp-2"},
		{"type":"ApplicationInterface","name":"OrderAPI REST","parent_id":"`+orderAPI+`","client_request_id":"imp-3"},
		{"type":"Node","name":"Host","description":"Runs the order services","client_request_id":"imp-4"}]}`)
	results, _ = second["results"].([]any)
	if len(results) != 4 {
		t.Fatalf("retry results: %v", second)
	}
	for _, n := range []string{"2", "3"} {
		i := map[string]int{"2": 1, "3": 2}[n]
		ids[n], _ = results[i].(map[string]any)["element"].(map[string]any)["id"].(string)
	}
	if len(ids["2"]) != 36 || len(ids["3"]) != 36 || ids["2"] == ids["3"] || ids["2"] == ids["1"] || ids["3"] == ids["4"] {
		t.Fatalf("item ids: %v", ids)
	}
	replay := func(r map[string]any) map[string]any {
		r["idempotent_replay"] = true
		r["original_request_time"] = "2026-11-22T10:30:00Z"
		return r
	}
	want["created"], want["replayed"], want["failed"] = float64(2), float64(2), float64(0)
	want["results"] = []any{
		replay(map[string]any{"index": float64(0), "client_request_id": "imp-1", "success": true, "element": el("1", "ApplicationComponent", "Application", "OrderAPI", nil)}),
		map[string]any{"index": float64(1), "client_request_id": "imp-2", "success": true, "element": map[string]any{
			"id": ids["2"], "model_id": model, "type": "ApplicationComponent", "layer": "Application", "name": "OrderService2", "version": float64(1)}},
		map[string]any{"index": float64(2), "client_request_id": "imp-3", "success": true, "element": map[string]any{
			"id": ids["3"], "model_id": model, "type": "ApplicationInterface", "layer": "Application", "name": "OrderAPI REST", "parent_id": orderAPI, "version": float64(1)}},
		replay(map[string]any{"index": float64(3), "client_request_id": "imp-4", "success": true, "element": el("4", "Node", "Technology", "Host", map[string]any{"description": "Runs the order services"})}),
	}
	if d := cmp.Diff(want, second); d != "" {
		t.Fatalf("retried import (-want +got):\n%s", d)
	}
	if n := written(); n != 4 {
		t.Fatalf("items written after the retry: %d, want 4 (no item twice)", n)
	}

	// parent_id composes the part into its parent: deleting OrderAPI names
	// the composition among the relationships it takes.
	del := mustOK(t, cs, "deleteElement", `{"id":"`+ids["3"]+`"}`)
	if p, _ := del["proposal"].(map[string]any); p == nil || p["will_lose"] != "element OrderAPI REST and 1 relationship" {
		t.Fatalf("delete proposal of the part: %v", del)
	}

	batchRefusals(t, cs, written)
}

// batchRefusals follows batchImport (whose keys and names it reuses): what
// a batch refuses, per item or as a whole, writing nothing.
func batchRefusals(t *testing.T, cs *mcp.ClientSession, written func() int) {
	t.Helper()
	// A key sent again with another item is refused for that item only.
	third := mustOK(t, cs, "createElements", `{"elements":[{"type":"ApplicationComponent","name":"OrderAPI v2","client_request_id":"imp-1"}]}`)
	wantThird := map[string]any{
		"success": true, "created": float64(0), "replayed": float64(0), "failed": float64(1),
		"results": []any{map[string]any{"index": float64(0), "client_request_id": "imp-1", "success": false, "error": map[string]any{
			"code": "IDEMPOTENCY_KEY_REUSED", "field": "client_request_id", "message": "client_request_id 'imp-1' was used for a different item",
			"suggestions": map[string]any{"hint": "Give each item its own client_request_id; reuse a key only to retry the same item"}}}},
		"suggestions": []any{"Call createRelationship to create a relationship between two elements"},
		"warnings":    []any{},
	}
	if d := cmp.Diff(wantThird, third); d != "" {
		t.Fatalf("a reused item key (-want +got):\n%s", d)
	}

	// validateWrite answers a batch with the items the write would refuse,
	// each on its item's field; items whose key was written replay.
	v := mustOK(t, cs, "validateWrite", `{"operation":"createElements","payload":{"elements":[
		{"type":"ApplicationComponent","name":"OrderAPI","client_request_id":"imp-1"},
		{"type":"Node","name":"orderservice"}]}}`)
	errs, _ := v["errors"].([]any)
	if v["valid"] != false || len(errs) != 1 {
		t.Fatalf("validateWrite of a batch: %v", v)
	}
	e := errs[0].(map[string]any)
	if e["code"] != "DUPLICATE_NAME" || e["field"] != "elements[1].name" || e["message"] != "Element 'orderservice' already exists in this model" {
		t.Fatalf("validateWrite error: %v", e)
	}

	// An item the schema refuses refuses the call before anything is
	// written, naming the item's field.
	bad, isErr := call(t, cs, "createElements", `{"elements":[{"type":"ApplicationComponent","name":"Fine"},{"type":"AppComponent","name":"Bad"}]}`)
	if be, _ := bad["error"].(map[string]any); !isErr || be["code"] != "INVALID_ELEMENT_TYPE" || be["field"] != "elements[1].type" || be["message"] != "Element type 'AppComponent' is not valid" {
		t.Fatalf("schema-invalid item: %v", bad)
	}
	badKey, isErr := call(t, cs, "createElements", `{"elements":[{"type":"Node","name":"Keyed","client_request_id":"has space"}]}`)
	if ke, _ := badKey["error"].(map[string]any); !isErr || ke["field"] != "elements[0].client_request_id" {
		t.Fatalf("an item key outside the pattern: %v", badKey)
	}
	over := `{"elements":[` + strings.TrimSuffix(strings.Repeat(`{"type":"Node","name":"n"},`, 101), ",") + `]}`
	tooMany, isErr := call(t, cs, "createElements", over)
	if te, _ := tooMany["error"].(map[string]any); !isErr || te["field"] != "elements" {
		t.Fatalf("101 items: %v", tooMany)
	}
	if n := written(); n != 4 {
		t.Fatalf("items written after the refused calls: %d, want 4", n)
	}
}

// With the production wiring (the call's key claimed by the handler, a
// cache in front of PostgreSQL), a batch sent twice with the same call key
// is answered the second time from the key, without running it: the items
// are written once and the handler recorded the call's outcome itself
// (nothing is logged about a handler that does not).
func TestBatchImportWithTheCallKeyReplaysTheWholeAnswer(t *testing.T) {
	_, idem, repo, _ := pgRepo(t)
	var log bytes.Buffer
	s, err := server.New(repo,
		runtime.WithClock(func() time.Time { return fixedNow }),
		runtime.WithLogger(slog.New(slog.NewTextHandler(&log, nil))),
		runtime.WithRequestContextFunc(runtime.StaticRequestContext(devRC)),
		runtime.WithIdempotency(runtime.IdempotencyOptions{Store: idempotency.NewLayered(idempotency.NewMemoryStore(), idem), TTL: idempotency.DefaultDurableTTL, ClaimInHandler: true}))
	if err != nil {
		t.Fatal(err)
	}
	cs := mcptest.Connect(t, s, mcptest.Options{})
	args := `{"client_request_id":"import-7","elements":[{"type":"Node","name":"Host A","client_request_id":"host-a"},{"type":"Node","name":"Host B","client_request_id":"host-b"}]}`
	first := mustOK(t, cs, "createElements", args)
	again := mustOK(t, cs, "createElements", args)
	if again["idempotent_replay"] != true || again["original_request_time"] != "2026-11-22T10:30:00Z" {
		t.Fatalf("the repeated call: %v", again)
	}
	delete(again, "idempotent_replay")
	delete(again, "original_request_time")
	if d := cmp.Diff(first, again); d != "" {
		t.Fatalf("replayed answer differs from the first (-first +again):\n%s", d)
	}
	if first["created"] != float64(2) {
		t.Fatalf("first answer: %v", first)
	}
	tools, err := repo.Outbox(context.Background(), devRC.TenantID)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"createElements", "createElements"}, tools); d != "" {
		t.Fatalf("outbox (-want +got):\n%s", d)
	}
	if log.Len() != 0 {
		t.Fatalf("logged: %s", log.String())
	}
}

// Concurrent batches that import the same names on PostgreSQL: each name is
// written once, and every other item is answered on its own (the name
// taken, whether the domain saw the winner's row or the unique index
// refused it), never a failed call.
func TestConcurrentBatchesWriteEachNameOnceInPostgreSQL(t *testing.T) {
	_, idem, repo, _ := pgRepo(t)
	cs := pgSession(t, repo, idem)
	const calls = 6
	var wg sync.WaitGroup
	outs := make([]mcptest.Result, calls)
	for c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[c] = mcptest.Call(t, cs, "createElements", `{"elements":[{"type":"Node","name":"Edge 1"},{"type":"Node","name":"Edge 2"},{"type":"Node","name":"Edge 3"}]}`)
		}()
	}
	wg.Wait()
	created := 0
	for _, out := range outs {
		if out.IsError {
			t.Fatalf("a concurrent batch failed as a whole: %s", out.Text)
		}
		created += int(out.Body["created"].(float64))
		for _, r := range out.Body["results"].([]any) {
			m := r.(map[string]any)
			if m["success"] == true {
				continue
			}
			if e, _ := m["error"].(map[string]any); e["code"] != "DUPLICATE_NAME" || e["field"] != "name" {
				t.Errorf("a refused item: %v", m)
			}
		}
	}
	if created != 3 {
		t.Fatalf("created %d elements over %d batches, want 3", created, calls)
	}
}
