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

// A decode mistake paired with a value that must name something that
// exists (a reference: an id or a name; a live vocabulary's value),
// misspelt. The answer must carry both problems, so an agent that applies
// every fix it offers (the intended value for the decode mistake, the
// first did_you_mean for the misspelt name) succeeds on the next call.

// domainSetup names what each example's domain must hold for its
// references and vocabularies to resolve: the writes that create it and
// the good value of each field.
var domainSetup = map[string]struct {
	writes [][2]string // tool, arguments
	values map[string]string
	// drop are the arguments a full instance holds that would move the
	// good values out of reach (another model).
	drop []string
}{
	"archimate": {
		writes: [][2]string{
			{"createElement", `{"type":"ApplicationComponent","name":"Billing Service"}`},
			{"createElement", `{"type":"ApplicationService","name":"Invoice Delivery"}`},
		},
		values: map[string]string{"source_id": "Billing Service", "target_id": "Invoice Delivery"},
		drop:   []string{"model_id"},
	},
	"neotoma": {values: map[string]string{"entity_type": "invoice"}},
}

// domainFields are the properties of in whose description states that they
// name something that exists.
func domainFields(in *schemaNode) []string {
	var out []string
	for k, p := range in.Properties {
		if strings.Contains(p.Description, "or its name when no other") || strings.Contains(p.Description, "live vocabulary") {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// misspell drops the second letter: "Biling Service", "ivoice".
func misspell(s string) string { return s[:1] + s[2:] }

// domainRepairRounds measures the rounds to success of every pairing of a
// decode mistake with a misspelt name, tool by tool.
func domainRepairRounds(t *testing.T, name string, cs *mcp.ClientSession) map[int]int {
	t.Helper()
	setup := domainSetup[name]
	for _, w := range setup.writes {
		if r := mcptest.Call(t, cs, w[0], w[1]); r.IsError {
			t.Fatalf("setup %s: %s", w[0], r.Text)
		}
	}
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
		fields := domainFields(in)
		if dry == "" || in.Properties["payload"] != nil || len(fields) == 0 {
			continue
		}
		base := instance(r, in, full, 0).(map[string]any)
		prepare(base, dry)
		for _, k := range fields {
			base[k] = setup.values[k]
		}
		for _, k := range setup.drop {
			delete(base, k)
		}
		if res := mcptest.Call(t, cs, tool.Name, mustMarshal(base)); !accepted(res) {
			t.Logf("%s: no clean start: %s", tool.Name, res.Text)
			continue
		}
		isDomain := map[string]bool{}
		for _, k := range fields {
			isDomain[k] = true
		}
		for _, k := range fields {
			for _, m := range mutations(in, base) {
				if m.lenient != "" || isDomain[m.field] {
					continue
				}
				args := map[string]any{}
				for x, v := range m.args {
					args[x] = v
				}
				args[k] = misspell(setup.values[k])
				rounds[repairDomain(t, cs, tool.Name, in, base, args)]++
			}
		}
	}
	return rounds
}

// repairDomain calls tool with args until it is accepted, applying every
// fix each answer offers, and returns the refused answers it took (4: not
// repaired).
func repairDomain(t *testing.T, cs *mcp.ClientSession, tool string, in *schemaNode, base, args map[string]any) int {
	t.Helper()
	trail := []string{mustMarshal(args)}
	n := 0
	for ; n < 4; n++ {
		res := mcptest.Call(t, cs, tool, mustMarshal(args))
		if accepted(res) {
			break
		}
		es := errorsOf(res)
		args = repairIntended(in, base, args, es)
		trail = append(trail, fmt.Sprintf("%v -> %s", es, mustMarshal(args)))
	}
	if n > 1 {
		t.Logf("%s: %d rounds: %s", tool, n, strings.Join(trail, "\n  "))
	}
	return n
}

// repairIntended applies every fix of es at once: a misspelt name becomes
// the first did_you_mean (or the id of the first candidate the answer
// lists), an unknown key goes (to its did_you_mean when
// that is a property), and any other problem gets the value the agent
// meant (base's; left out when base has none: a reference may depend on
// it, as archimate's do on model_id).
func repairIntended(in *schemaNode, base, args map[string]any, es []map[string]any) map[string]any {
	return applyFixes(in, args, es, func(out map[string]any, key, code string, sugg map[string]any, dym []any) {
		switch {
		case !schemaCodes[code] || code == "INVALID_ENUM_VALUE" && len(dym) > 0 && base[key] != nil && out[key] != base[key] && isString(out[key]):
			if fix := offered(sugg); fix != nil {
				out[key] = fix
			}
		case base[key] != nil:
			out[key] = base[key]
		default:
			delete(out, key) // the agent meant to leave it out
		}
	})
}

func isString(v any) bool { _, ok := v.(string); return ok }

// offered is the value an answer's suggestions offer first: did_you_mean
// (else the first valid relationship of an INVALID_RELATIONSHIP), else the
// id of the first candidate (candidates, similar_elements).
func offered(sugg map[string]any) any {
	for _, k := range []string{"did_you_mean", "valid_relationships"} {
		if vs, _ := sugg[k].([]any); len(vs) > 0 {
			return vs[0]
		}
	}
	for _, k := range []string{"candidates", "similar_elements"} {
		if cs, _ := sugg[k].([]any); len(cs) > 0 {
			if c, ok := cs[0].(map[string]any); ok && c["id"] != nil {
				return c["id"]
			}
		}
	}
	return nil
}
