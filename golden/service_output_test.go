package golden_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// Every example's get_write_schema answer, for every tool it describes,
// conforms to get_write_schema's own closed output schema in both dialects:
// clients such as the TypeScript SDK validate structuredContent against it
// and refuse the call otherwise. A member the document gains without the
// output schema (required_when, references, ...) fails here.
func TestGetWriteSchemaAnswersConformToTheirOutputSchema(t *testing.T) {
	names := make([]string, 0, len(exampleServers))
	for n := range exampleServers {
		names = append(names, n)
	}
	sort.Strings(names)
	checked := map[string]int{}
	for _, name := range names {
		s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "test"}, nil)
		if err := exampleServers[name](s); err != nil {
			t.Fatalf("%s: register: %v", name, err)
		}
		cs := mcptest.Connect(t, s, mcptest.Options{})
		ctx := context.Background()
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatalf("%s: tools/list: %v", name, err)
		}
		var schemaTool *mcp.Tool
		for _, tool := range res.Tools {
			if tool.Name == "get_write_schema" || tool.Name == "getWriteSchema" {
				schemaTool = tool
			}
		}
		if schemaTool == nil || schemaTool.OutputSchema == nil {
			t.Fatalf("%s: no schema tool with an output schema", name)
		}
		out, _ := json.Marshal(schemaTool.OutputSchema)
		validators := map[string]*jsonschema.Schema{}
		for dialect, draft := range map[string]*jsonschema.Draft{"2020-12": jsonschema.Draft2020, "draft-07": jsonschema.Draft7} {
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
			if err != nil {
				t.Fatalf("%s: output schema: %v", name, err)
			}
			c := jsonschema.NewCompiler()
			c.DefaultDraft(draft)
			if err := c.AddResource("mem:///out.json", inst); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if validators[dialect], err = c.Compile("mem:///out.json"); err != nil {
				t.Fatalf("%s: %s output schema does not compile as %s: %v", name, schemaTool.Name, dialect, err)
			}
		}
		for _, tool := range res.Tools {
			r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: schemaTool.Name, Arguments: map[string]any{"operation": tool.Name}})
			if err != nil {
				t.Fatalf("%s: %s(%s): %v", name, schemaTool.Name, tool.Name, err)
			}
			if r.IsError {
				continue // not a write tool the document describes (service and discovery tools)
			}
			body, _ := json.Marshal(r.StructuredContent)
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
			if err != nil {
				t.Fatalf("%s: %s(%s): structuredContent: %v", name, schemaTool.Name, tool.Name, err)
			}
			for dialect, v := range validators {
				if err := v.Validate(inst); err != nil {
					t.Errorf("%s: %s(%s) does not conform to its %s output schema: %v", name, schemaTool.Name, tool.Name, dialect, err)
				}
			}
			checked[name]++
		}
	}
	// Every write and read tool of each example (service and discovery
	// tools are not described by get_write_schema).
	want := map[string]int{"archimate": 8, "crm": 19, "neotoma": 21, "purchasing": 6, "tasks": 9}
	if fmt.Sprint(checked) != fmt.Sprint(want) {
		t.Errorf("described tools checked %v, want %v", checked, want)
	}
}
