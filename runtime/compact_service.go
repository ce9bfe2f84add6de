package runtime

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// The service tools in the compact list. They are listed with their real
// input schemas (their arguments are few and fixed), but without what the
// compact write tools also leave to get_write_schema: no output schema, no
// title, no _meta, property descriptions folded into one short tool
// description, and for a read-only tool no destructive hint (the protocol
// reads it only for tools that write). Their answers are unchanged.

// compactServiceDescriptions are the compact list's descriptions of the
// service tools, by role.
func (r *registry) compactServiceDescriptions() map[string]string {
	return map[string]string{
		r.svc.SchemaTool:     "Describe a tool in full (schemas, examples, rules). Call before a tool's first call and when tools/list's schema_hash changes.",
		r.svc.ValidateTool:   "Dry-run a write: payload is its arguments as JSON text. Answers errors, warnings and the request it would send.",
		r.svc.ApplyTool:      "Commit a write the user confirmed, by its " + r.control().proposalID + "; once, by its proposer, before it expires.",
		r.svc.DiscardTool:    "Discard a proposed write the user rejected.",
		r.svc.OperationsTool: "Get a long-running operation by name; wait (e.g. \"30s\") waits for it to finish. Read-only.",
	}
}

// compactServiceTool trims service tool t for the compact list.
func (r *registry) compactServiceTool(t *mcp.Tool, descs map[string]string) {
	t.Title, t.OutputSchema, t.Meta = "", nil, nil
	if d := descs[t.Name]; d != "" && t.Name != "" {
		t.Description = d
	}
	if a := t.Annotations; a != nil {
		a.Title = ""
		if a.ReadOnlyHint {
			a.DestructiveHint = nil
		}
	}
	if raw, ok := t.InputSchema.(json.RawMessage); ok {
		t.InputSchema = withoutPropertyDescriptions(raw)
	}
}

// withoutPropertyDescriptions is an object schema without the descriptions
// of its properties (the tool's description says what they hold).
func withoutPropertyDescriptions(raw json.RawMessage) json.RawMessage {
	var s map[string]any
	if json.Unmarshal(raw, &s) != nil {
		return raw
	}
	props, _ := s["properties"].(map[string]any)
	for _, p := range props {
		if ps, ok := p.(map[string]any); ok {
			delete(ps, "description")
		}
	}
	out, err := json.Marshal(s)
	if err != nil {
		return raw
	}
	return out
}

// fullInputSchema is the complete input schema of d, which get_write_schema
// answers: tools/list's, or the one before the plugin's schema budget gave
// optional subtrees as JSON text.
func fullInputSchema(d *schemadoc.Tool) json.RawMessage {
	if len(d.FullInputSchema) > 0 {
		return d.FullInputSchema
	}
	return d.InputSchema
}
