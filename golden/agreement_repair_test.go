package golden_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// One round of repair, measured: every single-mutation mistake of the
// agreement test, and every pair of mistakes on two fields, is sent to the
// example; an agent then applies every fix the answer offers at once (a
// did_you_mean name or value, a valid value for each field named) and
// calls again, until no problem of the schema is left. A mistake repaired
// in one round needed one refused answer. Domain answers (a reference
// that does not exist) are not mistakes of the payload.
func TestMistakesAreRepairedInOneRound(t *testing.T) {
	// rounds per example: how many mistakes took 1, 2, ... refused answers.
	// Goal: every mistake in one round.
	want := map[string]map[int]int{
		"archimate":  {1: 138},
		"crm":        {1: 243},
		"neotoma":    {1: 113},
		"purchasing": {1: 102},
		"tasks":      {1: 174},
	}
	// A decode mistake paired with a misspelt reference or live
	// vocabulary value (agreement_repair_domain_test.go), for the
	// examples that have such fields.
	wantDomain := map[string]map[int]int{
		"archimate": {1: 14},
		"neotoma":   {1: 19},
	}
	// A decode mistake paired with a value a later stage refuses: an
	// invalid relationship pair, a value a resolver refuses
	// (agreement_repair_later_test.go).
	wantLater := map[string]map[int]int{
		"archimate": {1: 9},
	}
	for _, name := range exampleServerNames() {
		t.Run(name, func(t *testing.T) {
			s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "test"}, nil)
			if err := agreementServers[name](s); err != nil {
				t.Fatalf("register: %v", err)
			}
			cs := mcptest.Connect(t, s, mcptest.Options{})
			got := repairRounds(t, cs)
			t.Logf("%s: rounds to success %s", name, histogram(got))
			if fmt.Sprint(got) != fmt.Sprint(want[name]) {
				t.Errorf("rounds changed: got %v, want %v", got, want[name])
			}
			if _, ok := domainSetup[name]; !ok {
				return
			}
			got = domainRepairRounds(t, name, cs)
			t.Logf("%s: rounds to success with a misspelt reference or vocabulary value %s", name, histogram(got))
			if fmt.Sprint(got) != fmt.Sprint(wantDomain[name]) {
				t.Errorf("rounds with a misspelt reference or vocabulary value changed: got %v, want %v", got, wantDomain[name])
			}
			if _, ok := laterCases[name]; !ok {
				return
			}
			got = laterRepairRounds(t, name, cs)
			t.Logf("%s: rounds to success with a value a later stage refuses %s", name, histogram(got))
			if fmt.Sprint(got) != fmt.Sprint(wantLater[name]) {
				t.Errorf("rounds with a value a later stage refuses changed: got %v, want %v", got, wantLater[name])
			}
		})
	}
}

func histogram(h map[int]int) string {
	var keys []int
	for k := range h {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d round(s): %d", k, h[k]))
	}
	return strings.Join(parts, ", ")
}

func repairRounds(t *testing.T, cs *mcp.ClientSession) map[int]int {
	t.Helper()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(tools.Tools, func(i, j int) bool { return tools.Tools[i].Name < tools.Tools[j].Name })
	r := rand.New(rand.NewPCG(8, 2026))
	rounds := map[int]int{}
	for _, tool := range tools.Tools {
		in := schemaOf(t, tool)
		dry := dryRunArg(in)
		if dry == "" || in.Properties["payload"] != nil {
			continue // writes only, validate_write aside
		}
		base := instance(r, in, full, 0).(map[string]any)
		prepare(base, dry)
		if clean(mcptest.Call(t, cs, tool.Name, mustMarshal(base))) != nil {
			continue // the full instance breaks a stated rule: no clean start
		}
		ms := mutations(in, base)
		var mistakes []map[string]any
		for i, m := range ms {
			if m.lenient != "" {
				continue
			}
			mistakes = append(mistakes, m.args)
			for _, n := range ms[i+1:] {
				if n.lenient == "" && n.field != m.field {
					mistakes = append(mistakes, merge(base, m.args, n.args))
					break
				}
			}
		}
		for _, args := range mistakes {
			n, trail := 0, []string{mustMarshal(args)}
			for ; n < 4; n++ {
				es := clean(mcptest.Call(t, cs, tool.Name, mustMarshal(args)))
				if es == nil {
					break
				}
				args = repair(r, in, args, es)
				trail = append(trail, fmt.Sprintf("%v -> %s", es, mustMarshal(args)))
			}
			rounds[n]++
			if n > 1 {
				t.Logf("%s: %d rounds: %s", tool.Name, n, strings.Join(trail, "\n  "))
			}
		}
	}
	return rounds
}

func schemaOf(t *testing.T, tool *mcp.Tool) *schemaNode {
	t.Helper()
	var in schemaNode
	if err := unmarshalVia(tool.InputSchema, &in); err != nil {
		t.Fatalf("%s: %v", tool.Name, err)
	}
	return &in
}

// merge applies the changes both a and b made to base.
func merge(base, a, b map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range a {
		out[k] = v
	}
	for k := range base {
		if _, ok := b[k]; !ok {
			delete(out, k)
		}
	}
	for k, v := range b {
		if bv, ok := base[k]; !ok || mustMarshal(bv) != mustMarshal(v) {
			out[k] = v
		}
	}
	return out
}

// clean is nil when the answer holds no problem of the payload (accepted,
// or refused by the domain only), else the problems.
func clean(res mcptest.Result) []map[string]any {
	if accepted(res) {
		return nil
	}
	var out []map[string]any
	for _, e := range errorsOf(res) {
		if code, _ := e["code"].(string); schemaCodes[code] {
			out = append(out, e)
		}
	}
	return out
}

// repair applies every fix of es at once, as an agent following the
// answer would.
func repair(r *rand.Rand, in *schemaNode, args map[string]any, es []map[string]any) map[string]any {
	return applyFixes(in, args, es, func(out map[string]any, key, code string, sugg map[string]any, dym []any) {
		if in.Properties[key] != nil {
			out[key] = instance(r, in.Properties[key], full, 1)
		}
	})
}

// applyFixes copies args and applies each problem of es: an unknown key
// goes (to its did_you_mean when that is a property); any other problem on
// key is fixed by other.
func applyFixes(in *schemaNode, args map[string]any, es []map[string]any, other func(out map[string]any, key, code string, sugg map[string]any, dym []any)) map[string]any {
	out := map[string]any{}
	for k, v := range args {
		out[k] = v
	}
	for _, e := range es {
		field, _ := e["field"].(string)
		key := field
		if i := strings.IndexAny(key, ".["); i >= 0 {
			key = key[:i]
		}
		code, _ := e["code"].(string)
		sugg, _ := e["suggestions"].(map[string]any)
		dym, _ := sugg["did_you_mean"].([]any)
		if code == "UNKNOWN_FIELD" && key == field {
			v := out[key]
			delete(out, key)
			if len(dym) > 0 {
				if to, _ := dym[0].(string); in.Properties[to] != nil {
					out[to] = v
				}
			}
			continue
		}
		other(out, key, code, sugg, dym)
	}
	return out
}
