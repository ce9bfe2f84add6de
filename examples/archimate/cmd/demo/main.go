// Command demo runs a scripted agent session against the reference example:
// a real MCP client lists the generated tools and makes the calls an agent
// makes, mistakes included, printing every request and result. Each step
// checks that the server answered what the step claims and the demo fails
// (exit 1) at the first step that does not.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	archserver "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

func main() {
	if err := run(os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// intro is what the reference system is, for someone who has not read the seed.
const intro = `The reference example is an ArchiMate architecture repository: agents create elements
(applications, capabilities, ...) and relationships, which the domain checks against ArchiMate's rules.
Agents send names and friendly types; the server fills ids, layers, models, tenant and trace metadata.
`

// step is one agent call and what its answer must show.
type step struct {
	say, tool, args string
	check           func(isError bool, sc map[string]any) error
}

func run(w io.Writer) error {
	ctx := context.Background()
	rc := runtime.RequestContext{TenantID: "tenant-acme", PrincipalID: "user-ada", CorrelationID: "corr-demo-1"}
	server, err := archserver.New(domain.New(), runtime.WithRequestContextFunc(runtime.StaticRequestContext(rc)))
	if err != nil {
		return err
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		return err
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "demo-agent", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return err
	}
	defer cs.Close()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	fmt.Fprint(w, intro)
	fmt.Fprintf(w, "\n== tools/list: %d tools\n", len(tools.Tools))
	if len(tools.Tools) != 14 {
		return fmt.Errorf("tools/list: %d tools, want 14", len(tools.Tools))
	}
	for _, t := range tools.Tools {
		a := t.Annotations
		fmt.Fprintf(w, "  %-26s readOnly=%-5v destructive=%-5v idempotent=%-5v  %s\n", t.Name, a.ReadOnlyHint, deref(a.DestructiveHint), a.IdempotentHint, firstSentence(t.Description))
	}
	steps := []step{
		{"The agent checks the element types first.", "getElementTypes", `{}`, func(isErr bool, sc map[string]any) error {
			return want(!isErr && length(sc["values"]) == 14, "14 element types")
		}},
		{"It validates before writing (dry run, nothing is written).", "validateWrite", `{"operation":"createElement","payload":{"type":"ApplicationComponent","name":"OrderService"}}`, func(isErr bool, sc map[string]any) error {
			return want(!isErr && sc["valid"] == true, "valid: true")
		}},
		{"A typical agent mistake: an abbreviated type and a camelCase field.", "createElement", `{"type":"AppComponent","name":"OrderService","parentId":"x"}`, func(isErr bool, sc map[string]any) error {
			return want(isErr && codes(sc) == "INVALID_ELEMENT_TYPE,UNKNOWN_FIELD" && didYouMean(sc, 0) == "ApplicationComponent" && didYouMean(sc, 1) == "parent_id",
				"INVALID_ELEMENT_TYPE suggesting ApplicationComponent, UNKNOWN_FIELD suggesting parent_id")
		}},
		{"Fixed from the suggestions, with an idempotency key.", "createElement", `{"type":"ApplicationComponent","name":"OrderService","description":"Handles order processing","client_request_id":"demo-create-1"}`, func(isErr bool, sc map[string]any) error {
			e, _ := sc["element"].(map[string]any)
			return want(!isErr && e["layer"] == "Application" && e["model_id"] == "model-tenant-acme-main", "an element in the Application layer of the active model")
		}},
		{"A network retry with the same key replays the stored result.", "createElement", `{"type":"ApplicationComponent","name":"OrderService","description":"Handles order processing","client_request_id":"demo-create-1"}`, func(isErr bool, sc map[string]any) error {
			return want(!isErr && sc["idempotent_replay"] == true, "idempotent_replay: true")
		}},
		{"A capability with its required profile.", "createCapability", `{"name":"Fulfillment","profile":{"owner":"Supply Chain","criticality":"High","lifecycle":"Active"}}`, func(isErr bool, sc map[string]any) error {
			return want(!isErr && sc["success"] == true, "success")
		}},
		{"A relationship ArchiMate does not allow is refused with the valid alternatives.", "createRelationship", `{"type":"Realization","source_id":"{{capability}}","target_id":"{{element}}"}`, func(isErr bool, sc map[string]any) error {
			return want(isErr && codes(sc) == "INVALID_RELATIONSHIP", "INVALID_RELATIONSHIP")
		}},
		{"Deleting is destructive: without elicitation the client gets a proposal naming what is lost.", "deleteElement", `{"id":"{{element}}"}`, func(isErr bool, sc map[string]any) error {
			p, _ := sc["proposal"].(map[string]any)
			return want(!isErr && p["will_lose"] == "element OrderService", "a proposal that will lose element OrderService")
		}},
		{"The user confirmed; the agent applies the proposal by id only.", "applyProposal", `{"proposal_id":"{{proposal}}"}`, func(isErr bool, sc map[string]any) error {
			return want(!isErr && sc["success"] == true && sc["id"] != nil, "the element deleted")
		}},
	}
	ids := map[string]string{}
	for i, s := range steps {
		args := s.args
		for k, v := range ids {
			args = strings.ReplaceAll(args, "{{"+k+"}}", v)
		}
		fmt.Fprintf(w, "\n== %d. %s\n-> %s %s\n", i+1, s.say, s.tool, args)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: s.tool, Arguments: json.RawMessage(args)})
		if err != nil {
			return fmt.Errorf("%s: %w", s.tool, err)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		remember(ids, raw)
		var pretty bytes.Buffer
		_ = json.Indent(&pretty, raw, "   ", "  ")
		fmt.Fprintf(w, "<- isError=%v\n   %s\n", res.IsError, pretty.String())
		var sc map[string]any
		_ = json.Unmarshal(raw, &sc)
		if err := s.check(res.IsError, sc); err != nil {
			return fmt.Errorf("step %d (%s): %w", i+1, s.tool, err)
		}
	}
	fmt.Fprintf(w, "\n== Summary: %d steps, each answered as claimed. The agent sent names and friendly types; "+
		"the server filled ids, layers, the model and the tenant, caught two mistakes with suggestions, replayed a retry "+
		"instead of writing twice, refused an invalid relationship and turned a delete into a proposal the user confirmed.\n", len(steps))
	return nil
}

func want(ok bool, what string) error {
	if ok {
		return nil
	}
	return errors.New("the answer does not show " + what)
}

func length(v any) int {
	a, _ := v.([]any)
	return len(a)
}

// codes joins the codes of an error answer.
func codes(sc map[string]any) string {
	var out []string
	es, _ := sc["errors"].([]any)
	for _, e := range es {
		m, _ := e.(map[string]any)
		c, _ := m["code"].(string)
		out = append(out, c)
	}
	return strings.Join(out, ",")
}

// didYouMean is the first suggestion of error i.
func didYouMean(sc map[string]any, i int) string {
	es, _ := sc["errors"].([]any)
	if i >= len(es) {
		return ""
	}
	m, _ := es[i].(map[string]any)
	sg, _ := m["suggestions"].(map[string]any)
	d, _ := sg["did_you_mean"].([]any)
	if len(d) == 0 {
		return ""
	}
	s, _ := d[0].(string)
	return s
}

// remember keeps the ids later steps refer to.
func remember(ids map[string]string, raw []byte) {
	var out struct {
		Element    struct{ ID string } `json:"element"`
		Capability struct{ ID string } `json:"capability"`
		Proposal   struct {
			ID string `json:"proposal_id"`
		} `json:"proposal"`
	}
	if json.Unmarshal(raw, &out) != nil {
		return
	}
	for k, v := range map[string]string{"element": out.Element.ID, "capability": out.Capability.ID, "proposal": out.Proposal.ID} {
		if v != "" {
			ids[k] = v
		}
	}
}

func deref(b *bool) bool { return b != nil && *b }

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i > 0 {
		return s[:i+1]
	}
	return s
}
