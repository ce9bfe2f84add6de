// Command demo runs a scripted agent session against the reference example:
// a real MCP client lists the generated tools and makes the calls an agent
// makes, mistakes included, printing every request and result.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	archserver "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
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
	fmt.Printf("== tools/list: %d tools\n", len(tools.Tools))
	for _, t := range tools.Tools {
		a := t.Annotations
		fmt.Printf("  %-26s readOnly=%-5v destructive=%-5v idempotent=%-5v  %s\n", t.Name, a.ReadOnlyHint, deref(a.DestructiveHint), a.IdempotentHint, firstSentence(t.Description))
	}
	steps := []struct{ say, tool, args string }{
		{"The agent checks the element types first.", "getElementTypes", `{}`},
		{"It validates before writing (dry run, nothing is written).", "validateWrite", `{"operation":"createElement","payload":{"type":"ApplicationComponent","name":"OrderService"}}`},
		{"A typical agent mistake: an abbreviated type and a camelCase field.", "createElement", `{"type":"AppComponent","name":"OrderService","parentId":"x"}`},
		{"Fixed from the suggestions, with an idempotency key.", "createElement", `{"type":"ApplicationComponent","name":"OrderService","description":"Handles order processing","client_request_id":"demo-create-1"}`},
		{"A network retry with the same key replays the stored result.", "createElement", `{"type":"ApplicationComponent","name":"OrderService","description":"Handles order processing","client_request_id":"demo-create-1"}`},
		{"A capability with its required profile.", "createCapability", `{"name":"Fulfillment","profile":{"owner":"Supply Chain","criticality":"High","lifecycle":"Active"}}`},
		{"A relationship ArchiMate does not allow is refused with the valid alternatives.", "createRelationship", `{"type":"Realization","source_id":"{{capability}}","target_id":"{{element}}"}`},
		{"Deleting is destructive: without elicitation the client gets a proposal naming what is lost.", "deleteElement", `{"id":"{{element}}"}`},
		{"The user confirmed; the agent applies the proposal by id only.", "applyProposal", `{"proposal_id":"{{proposal}}"}`},
	}
	ids := map[string]string{}
	for i, s := range steps {
		args := s.args
		for k, v := range ids {
			args = strings.ReplaceAll(args, "{{"+k+"}}", v)
		}
		fmt.Printf("\n== %d. %s\n-> %s %s\n", i+1, s.say, s.tool, args)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: s.tool, Arguments: json.RawMessage(args)})
		if err != nil {
			return fmt.Errorf("%s: %w", s.tool, err)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		remember(ids, raw)
		var pretty bytes.Buffer
		_ = json.Indent(&pretty, raw, "   ", "  ")
		fmt.Printf("<- isError=%v\n   %s\n", res.IsError, pretty.String())
	}
	return nil
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
