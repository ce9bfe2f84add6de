package golden_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// A decode mistake paired with a value a later stage refuses: a pair the
// tool's pair_check refuses (the relationship type between the types of
// its ends, which value resolvers read), or a value a value resolver
// refuses. The answer must carry both problems, so an agent that applies
// every fix it offers (the intended value for the decode mistake, the
// first valid relationship or similar element offered for the refused
// value) succeeds on the next call. A mistake on a field the later stage
// reads is left out: that stage cannot run on it (the input does not
// allow it), and the decode problem is answered alone.

// laterCase is one value a later stage refuses, on top of a full
// instance of tool: good are the arguments the agent meant, bad those it
// sent instead; reads are the fields the stage reads.
type laterCase struct {
	tool, what string
	good, bad  map[string]any
	reads      []string
}

// laterCases are each example's cases, made after domainRepairRounds
// created what they name; nil for an example with none whose refusal
// offers a fix (neotoma's and crm's resolvers answer NOT_FOUND without a
// candidate).
var laterCases = map[string]func(t *testing.T, cs *mcp.ClientSession) []laterCase{
	"archimate": func(t *testing.T, cs *mcp.ClientSession) []laterCase {
		res := mcptest.Call(t, cs, "createElement", `{"type":"ApplicationComponent","name":"Ledger Engine"}`)
		el, _ := res.Body["element"].(map[string]any)
		id, _ := el["id"].(string)
		if res.IsError || id == "" {
			t.Fatalf("setup createElement: %s", res.Text)
		}
		return []laterCase{
			{
				tool: "createRelationship", what: "a relationship type the pair check refuses between an ApplicationComponent and an ApplicationService",
				good:  map[string]any{"type": "Realization", "source_id": "Billing Service", "target_id": "Invoice Delivery"},
				bad:   map[string]any{"type": "Composition"},
				reads: []string{"type", "source_id", "target_id"},
			},
			{
				tool: "updateElement", what: "an element id the current_version resolver does not find",
				good:  map[string]any{"id": id},
				bad:   map[string]any{"id": misspell(id)},
				reads: []string{"id"},
			},
		}
	},
}

// laterRepairRounds measures the rounds to success of every pairing of a
// decode mistake with a value a later stage refuses.
func laterRepairRounds(t *testing.T, name string, cs *mcp.ClientSession) map[int]int {
	t.Helper()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Tool{}
	for _, tool := range tools.Tools {
		byName[tool.Name] = tool
	}
	r := rand.New(rand.NewPCG(8, 2026))
	rounds := map[int]int{}
	for _, lc := range laterCases[name](t, cs) {
		tool := byName[lc.tool]
		if tool == nil {
			t.Fatalf("%s: no tool %s", name, lc.tool)
		}
		in := schemaOf(t, tool)
		base := instance(r, in, full, 0).(map[string]any)
		prepare(base, dryRunArg(in))
		for k, v := range lc.good {
			base[k] = v
		}
		for _, k := range domainSetup[name].drop {
			delete(base, k)
		}
		if res := mcptest.Call(t, cs, lc.tool, mustMarshal(base)); !accepted(res) {
			t.Fatalf("%s: no clean start: %s", lc.tool, res.Text)
		}
		reads := map[string]bool{}
		for _, k := range lc.reads {
			reads[k] = true
		}
		n := 0
		for _, m := range mutations(in, base) {
			if m.lenient != "" || reads[m.field] {
				continue
			}
			args := map[string]any{}
			for x, v := range m.args {
				args[x] = v
			}
			for k, v := range lc.bad {
				args[k] = v
			}
			rounds[repairDomain(t, cs, lc.tool, in, base, args)]++
			n++
		}
		t.Logf("%s: %d decode mistakes paired with %s", lc.tool, n, lc.what)
	}
	return rounds
}
