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
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "archimate", Version: runtime.Version}, nil)
	rc := runtime.RequestContext{TenantID: "tenant-acme", PrincipalID: "user-ada", CorrelationID: "corr-demo-1"}
	if err := archimatev1mcpwrite.RegisterArchitectureServiceTools(server, domain.New(),
		runtime.WithRequestContextFunc(func(context.Context, *mcp.CallToolRequest) (runtime.RequestContext, bool) { return rc, true })); err != nil {
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
		fmt.Printf("  %-22s readOnly=%-5v destructive=%-5v idempotent=%-5v  %s\n", t.Name, a.ReadOnlyHint, deref(a.DestructiveHint), a.IdempotentHint, firstSentence(t.Description))
	}
	steps := []struct{ say, tool, args string }{
		{"The agent checks the element types first.", "getElementTypes", `{}`},
		{"It validates before writing (dry run, nothing is written).", "validateWrite", `{"operation":"createElement","payload":{"type":"ApplicationComponent","name":"OrderService"}}`},
		{"A typical agent mistake: an abbreviated type and a camelCase field.", "createElement", `{"type":"AppComponent","name":"OrderService","parentId":"x"}`},
		{"Fixed from the suggestions, with an idempotency key.", "createElement", `{"type":"ApplicationComponent","name":"OrderService","description":"Handles order processing","client_request_id":"demo-create-1"}`},
		{"A network retry with the same key replays the stored result.", "createElement", `{"type":"ApplicationComponent","name":"OrderService","description":"Handles order processing","client_request_id":"demo-create-1"}`},
		{"A capability with its required profile.", "createCapability", `{"name":"Fulfillment","profile":{"owner":"Supply Chain","criticality":"High","lifecycle":"Active"}}`},
	}
	for i, s := range steps {
		fmt.Printf("\n== %d. %s\n-> %s %s\n", i+1, s.say, s.tool, s.args)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: s.tool, Arguments: json.RawMessage(s.args)})
		if err != nil {
			return fmt.Errorf("%s: %w", s.tool, err)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var pretty bytes.Buffer
		_ = json.Indent(&pretty, raw, "   ", "  ")
		fmt.Printf("<- isError=%v\n   %s\n", res.IsError, pretty.String())
	}
	return nil
}

func deref(b *bool) bool { return b != nil && *b }

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i > 0 {
		return s[:i+1]
	}
	return s
}
