package golden_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// The agreement test holds each example's advertised input schemas and its
// server to one contract, through the real MCP client: every schema-valid
// payload (minimal, full and random instances, from a fixed seed) is
// accepted, or refused only by a rule a description states (exactly-one,
// required_when, a live vocabulary, a reference, the domain); every payload
// one mutation away from valid (wrong type, unknown key, missing required
// field, enum value outside the list, over a length, number or item bound)
// is refused with an error naming the field, or accepted in one of the
// lenient forms docs/schemas.md lists. Writes run as dry runs.

// agreement is one example's count.
type agreement struct {
	valid, accepted, refusedByRule int
	invalid, refused, lenient      int
	// forms counts the lenient acceptances by documented form.
	forms         map[string]int
	disagreements []string
}

func (a agreement) String() string {
	var forms []string
	for f, n := range a.forms {
		forms = append(forms, fmt.Sprintf("%s: %d", f, n))
	}
	sort.Strings(forms)
	return fmt.Sprintf("valid agreed %d/%d (accepted %d, refused by a stated rule %d), invalid refused %d/%d, lenient %d %v",
		a.accepted+a.refusedByRule, a.valid, a.accepted, a.refusedByRule, a.refused, a.invalid, a.lenient, forms)
}

// agreementCaller is who calls: every example needs a tenant and a
// principal.
func agreementCaller(context.Context, *mcp.CallToolRequest) (runtime.RequestContext, bool) {
	return runtime.RequestContext{TenantID: "agree-tenant", PrincipalID: "agree-user", CorrelationID: "agree"}, true
}

func TestSchemaAndServerAgree(t *testing.T) {
	// The figures are exact (the seed is fixed), so a new tool, field or
	// refusal is noticed and its figures are reviewed here.
	want := map[string]agreement{
		"archimate":  {valid: 70, accepted: 49, refusedByRule: 21, invalid: 103, refused: 101, lenient: 2},
		"crm":        {valid: 115, accepted: 23, refusedByRule: 92, invalid: 193, refused: 193, lenient: 0},
		"neotoma":    {valid: 130, accepted: 46, refusedByRule: 84, invalid: 232, refused: 231, lenient: 1},
		"purchasing": {valid: 50, accepted: 30, refusedByRule: 20, invalid: 86, refused: 86, lenient: 0},
		"tasks":      {valid: 65, accepted: 40, refusedByRule: 25, invalid: 119, refused: 119, lenient: 0},
	}
	names := exampleServerNames()
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "test"}, nil)
			if err := agreementServers[name](s); err != nil {
				t.Fatalf("register: %v", err)
			}
			cs := mcptest.Connect(t, s, mcptest.Options{})
			got := agree(t, cs)
			t.Logf("%s: %s", name, got)
			for _, d := range got.disagreements {
				t.Errorf("%s", d)
			}
			if w := want[name]; w.valid != got.valid || w.accepted != got.accepted || w.refusedByRule != got.refusedByRule ||
				w.invalid != got.invalid || w.refused != got.refused || w.lenient != got.lenient {
				t.Errorf("counts changed: got %s, want %s", got, w)
			}
		})
	}
}

// agreementServers registers each example as exampleServers does, with a
// caller.
var agreementServers = func() map[string]func(*mcp.Server) error {
	out := map[string]func(*mcp.Server) error{}
	for name, reg := range exampleServersWith {
		out[name] = func(s *mcp.Server) error { return reg(s, runtime.WithRequestContextFunc(agreementCaller)) }
	}
	return out
}()

func agree(t *testing.T, cs *mcp.ClientSession) agreement {
	t.Helper()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return agreeOn(t, tools.Tools, func(tool, args string) mcptest.Result { return mcptest.Call(t, cs, tool, args) })
}

// agreeOn counts the agreement of tools' input schemas with call, which
// answers one call of a tool as the server would.
func agreeOn(t *testing.T, tools []*mcp.Tool, call func(tool, args string) mcptest.Result) agreement {
	t.Helper()
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	r := rand.New(rand.NewPCG(25, 2026))
	schemas := map[string]*schemaNode{}
	for _, tool := range tools {
		raw, _ := json.Marshal(tool.InputSchema)
		var in schemaNode
		if err := json.Unmarshal(raw, &in); err != nil {
			t.Fatalf("%s: input schema: %v", tool.Name, err)
		}
		schemas[tool.Name] = &in
	}
	a := agreement{forms: map[string]int{}}
	for _, tool := range tools {
		in := *schemas[tool.Name]
		dry := dryRunArg(&in)
		for _, mode := range []instanceMode{minimal, full, random, random, random} {
			args := instance(r, &in, mode, 0).(map[string]any)
			prepare(args, dry)
			validatePayload(r, args, schemas, mode)
			a.valid++
			res := call(tool.Name, mustMarshal(args))
			rules := &in
			if op, _ := args["operation"].(string); args["payload"] != nil && schemas[op] != nil {
				rules = schemas[op] // the payload's problems are the operation's
			}
			switch why := refusal(res, rules, tool); {
			case why == "":
				a.accepted++
			case why == "stated":
				a.refusedByRule++
			default:
				a.disagreements = append(a.disagreements, fmt.Sprintf("%s: schema-valid %s refused: %s", tool.Name, mustMarshal(args), why))
			}
		}
		base := instance(r, &in, full, 0).(map[string]any)
		prepare(base, dry)
		for _, m := range mutations(&in, base) {
			a.invalid++
			res := call(tool.Name, mustMarshal(m.args))
			switch {
			case names(res, m.field):
				a.refused++
			case m.lenient != "" && (accepted(res) || refusal(res, &in, tool) == "stated"):
				// Taken in the lenient form; any refusal is another
				// field's stated rule.
				a.lenient++
				a.forms[m.lenient]++
			default:
				a.disagreements = append(a.disagreements, fmt.Sprintf("%s: %s (%s) not refused naming %s: %s", tool.Name, m.what, mustMarshal(m.args), m.field, clip(res.Text)))
			}
		}
	}
	return a
}

// validatePayload makes the payload of a validate_write call a valid
// instance of the operation it names (JSON text of its arguments), so the
// call checks that operation's schema against its decoder.
func validatePayload(r *rand.Rand, args map[string]any, schemas map[string]*schemaNode, mode instanceMode) {
	op, _ := args["operation"].(string)
	if _, ok := args["payload"]; !ok || schemas[op] == nil {
		return
	}
	p := instance(r, schemas[op], mode, 0).(map[string]any)
	prepare(p, "")
	args["payload"] = mustMarshal(p)
}

// dryRunArg is the write's dry-run argument ("" for a read or a service
// tool).
func dryRunArg(in *schemaNode) string {
	for _, k := range []string{"dry_run", "dryRun"} {
		if in.Properties[k] != nil {
			return k
		}
	}
	return ""
}

// prepare makes a write a dry run without an idempotency key.
func prepare(args map[string]any, dry string) {
	for _, k := range []string{"client_request_id", "clientRequestId", "dry_run", "dryRun"} {
		delete(args, k)
	}
	if dry != "" {
		args[dry] = true
	}
}

// accepted reports a call that went through: a success, or a dry run that
// found the request valid.
func accepted(res mcptest.Result) bool {
	if res.IsError {
		return false
	}
	v, isDry := res.Body["valid"]
	return !isDry || v == true
}

// errorsOf lists a refusal's error entries, from the envelope or a dry run.
func errorsOf(res mcptest.Result) []map[string]any {
	var out []map[string]any
	es, _ := res.Body["errors"].([]any)
	for _, e := range es {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// names reports a refusal with an error on field (or inside it).
func names(res mcptest.Result, field string) bool {
	if accepted(res) {
		return false
	}
	for _, e := range errorsOf(res) {
		f, _ := e["field"].(string)
		if f == field || strings.HasPrefix(f, field+".") || strings.HasPrefix(f, field+"[") {
			return true
		}
	}
	return false
}

// schemaCodes are the codes of the decoder's own checks: for a
// schema-valid payload each is a disagreement unless the description of the
// field it names states the rule.
var schemaCodes = map[string]bool{
	"INVALID_TYPE": true, "UNKNOWN_FIELD": true, "INVALID_ENUM_VALUE": true, "INVALID_JSON": true,
	"MISSING_REQUIRED_FIELD": true, "CONSTRAINT_VIOLATION": true, "INTERNAL": true,
}

// statedWords are how descriptions state the rules the schema cannot.
var statedWords = []string{"Set exactly one of", "Set at most one of", "Required when", "live vocabulary", "or its name", "JSON text", "Must "}

// refusal is "" for an accepted call, "stated" for a refusal every error of
// which a description states (or the domain answers), else why not.
func refusal(res mcptest.Result, in *schemaNode, tool *mcp.Tool) string {
	if accepted(res) {
		return ""
	}
	for _, e := range errorsOf(res) {
		code, _ := e["code"].(string)
		if !schemaCodes[code] {
			continue // the domain, a reference, a vocabulary, a proposal
		}
		field, _ := e["field"].(string)
		desc := fieldDescription(in, field)
		if top, _, _ := strings.Cut(strings.SplitN(field, "[", 2)[0], "."); in.Properties[top] == nil {
			desc = tool.Description // a rule of the whole request (exactly one of ...)
		}
		stated := false
		for _, w := range statedWords {
			stated = stated || strings.Contains(desc, w)
		}
		if !stated || code == "INTERNAL" {
			msg, _ := e["message"].(string)
			return fmt.Sprintf("%s on %q (%s)", code, field, msg)
		}
	}
	return "stated"
}

// fieldDescription is the description of the property at a dotted path
// (list indexes dropped), and of every property on the way.
func fieldDescription(in *schemaNode, path string) string {
	var out []string
	s := in
	for _, part := range strings.Split(path, ".") {
		if i := strings.IndexByte(part, '['); i >= 0 {
			part = part[:i]
		}
		if s == nil || s.Properties[part] == nil {
			break
		}
		s = s.Properties[part]
		out = append(out, s.Description)
		if s.Items != nil {
			s = s.Items
			out = append(out, s.Description)
		}
	}
	return strings.Join(out, " ")
}

func mustMarshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}
