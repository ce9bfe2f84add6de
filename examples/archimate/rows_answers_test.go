package archimate_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// The repository on rows answers every call exactly as the in-memory
// domain does (same clock, same random ids): successes, duplicate names
// with the existing element, taken ids, missing elements with the
// elements named like them, references by name (exact, up to case and
// separators, ambiguous), versions, renames, losses and cascades of
// proposals, templates and their refusals, dry runs and invalid types.
func TestRowsAnswerLikeTheInMemoryDomain(t *testing.T) {
	_, memCS, pgCS := inMemoryAndRows(t)

	steps := []struct{ tool, args string }{
		{"createElement", `{"type":"ApplicationComponent","name":"Order Service","properties":{"tier":"gold","owner":"ops"}}`},
		{"createElement", `{"type":"ApplicationComponent","name":"order-service"}`},
		{"createElement", `{"type":"ApplicationComponent","name":"ORDER SERVICE"}`},
		{"createElement", `{"type":"Node","name":"Billing_Service"}`},
		{"createElement", `{"type":"Node","name":"BillingService"}`},
		{"createElement", `{"type":"Node","name":"db","parent_id":"missing-parent"}`},
		{"createCapability", `{"id":"cap-1","name":"Fulfillment","profile":{"owner":"o","criticality":"High","lifecycle":"Active"}}`},
		{"createCapability", `{"id":"cap-1","name":"Other","profile":{"owner":"o","criticality":"High","lifecycle":"Active"}}`},
		{"createCapability", `{"id":"cap-2","name":"fulfillment","profile":{"owner":"o","criticality":"High","lifecycle":"Active"}}`},
		{"createRelationship", `{"type":"Realization","source_id":"Order Service","target_id":"cap-1"}`},
		{"createRelationship", `{"type":"Realization","source_id":"order-service","target_id":"Fulfillment"}`},
		{"createRelationship", `{"type":"Serving","source_id":"billing service","target_id":"cap-1"}`},
		{"createRelationship", `{"type":"Serving","source_id":"Ordr Servce","target_id":"cap-1"}`},
		{"createRelationship", `{"type":"Realisation","source_id":"Order Service","target_id":"cap-1"}`},
		{"createCapabilityStructure", `{"name":"Sales","value_streams":["Sell"],"sub_capabilities":["Quote","Order"]}`},
		{"createCapabilityStructure", `{"name":"Sales2","value_streams":["sell"]}`},
		{"addComponentToCapability", `{"capability_id":"cap-1","component_name":"CRM","services":["Leads"]}`},
		{"addComponentToCapability", `{"capability_id":"cap-1","component_name":"CRM2","services":["leads"]}`},
		{"validateWrite", `{"operation":"createElement","payload":{"type":"Node","name":"db","parent_id":"nope"}}`},
		{"validateWrite", `{"operation":"createElement","payload":{"type":"Node","name":"billing_service"}}`},
		{"createElement", `{"type":"AppComponent","name":"X"}`},
	}
	var ids []string
	for i, st := range steps {
		want, _ := call(t, memCS, st.tool, st.args)
		got, _ := call(t, pgCS, st.tool, st.args)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("step %d %s %s (-in memory +rows):\n%s", i, st.tool, st.args, diff)
		}
		if id := createdIDOf(got); id != "" {
			ids = append(ids, id)
		}
	}
	// Updates, renames and deletes of what was created, through proposals.
	order, billing := ids[0], ids[2]
	for i, st := range []struct{ tool, args string }{
		{"updateElement", `{"id":"` + order + `","description":"d","properties":{"tier":"silver","new":"x"}}`},
		{"updateElement", `{"id":"` + order + `","name":"BillingService"}`},
		{"updateElement", `{"id":"` + order + `","name":"Orders"}`},
		{"updateElement", `{"id":"` + strings.ToUpper(order) + `","name":"Y"}`},
		{"deleteElement", `{"id":"` + order + `"}`},
		{"deleteElement", `{"id":"` + billing + `"}`},
		{"deleteElement", `{"id":"cap-1"}`},
		{"deleteElement", `{"id":"cap-1","cascade":true}`},
	} {
		want, _ := call(t, memCS, st.tool, st.args)
		got, _ := call(t, pgCS, st.tool, st.args)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("change %d %s %s (-in memory +rows):\n%s", i, st.tool, st.args, diff)
		}
		if p, ok := got["proposal"].(map[string]any); ok {
			args, _ := json.Marshal(map[string]any{"proposal_id": p["proposal_id"]})
			want, _ := call(t, memCS, "applyProposal", string(args))
			got, _ := call(t, pgCS, "applyProposal", string(args))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("apply of change %d (-in memory +rows):\n%s", i, diff)
			}
		}
	}
}

// A keyed create reads no element of its own (its id and name are checked
// by unique indexes) and, with a parent, the parent alone; a create the
// domain or the store refuses then runs again reading its footprint. Its
// answers stay the in-memory domain's: a name taken in any spelling the
// domain folds, a missing parent (with the elements named like it), a
// parent named like an element, a parent that exists, and the part of a
// taken name.
func TestKeyedCreatesAnswerLikeTheInMemoryDomain(t *testing.T) {
	db, memCS, pgCS := inMemoryAndRows(t)
	var order string
	for i, args := range []string{
		`{"type":"ApplicationComponent","name":"Order Service","properties":{"tier":"gold"}}`,
		`{"type":"ApplicationComponent","name":"order service"}`,
		`{"type":"ApplicationComponent","name":"ORDER SERVICE"}`,
		`{"type":"Node","name":"db","parent_id":"missing-parent"}`,
		`{"type":"Node","name":"db","parent_id":"Order Servic"}`,
		`{"type":"Node","name":"db","parent_id":"$order"}`,
		`{"type":"Node","name":"DB","parent_id":"$order"}`,
		`{"type":"Node","name":"Order Service","parent_id":"$order"}`,
	} {
		args = strings.Replace(args, "$order", order, 1)
		args = strings.Replace(args, "{", fmt.Sprintf(`{"client_request_id":"keyed-%d",`, i), 1)
		want, _ := call(t, memCS, "createElement", args)
		got, _ := call(t, pgCS, "createElement", args)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("step %d %s (-in memory +rows):\n%s", i, args, diff)
		}
		if i == 0 {
			order = createdIDOf(got)
		}
	}
	if n := db.count(t, `SELECT count(*) FROM $P_elements`); n != 2 {
		t.Fatalf("%d elements, want Order Service and its part db", n)
	}
}

// inMemoryAndRows makes a database on rows and connects a session to the
// in-memory domain and one to the repository on it, with the same clock
// and the same random ids.
func inMemoryAndRows(t *testing.T) (db *rowsDB, mem, rows *mcp.ClientSession) {
	db = newRowsDB(t, nil)
	opts := func() []runtime.Option {
		return []runtime.Option{runtime.WithClock(func() time.Time { return fixedNow }), runtime.WithRand(rand.NewChaCha8([32]byte{7}))}
	}
	srv, err := server.New(domain.New(), append(opts(), runtime.WithRequestContextFunc(runtime.StaticRequestContext(devRC)))...)
	if err != nil {
		t.Fatal(err)
	}
	return db, mcptest.Connect(t, srv, mcptest.Options{}), db.session(t, nil, opts()...)
}
