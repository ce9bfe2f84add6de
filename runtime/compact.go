package runtime

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/compactlist"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// compactInput is a compact tool's input schema: an object schema, as every
// client requires, explicitly open, so that no client narrows the
// arguments to none (a strict conversion of {"type":"object"} allows only
// {}); the server checks them.
var compactInput = json.RawMessage(`{"type":"object","additionalProperties":true}`)

// maxCompactDescription bounds a compact description, in bytes.
const maxCompactDescription = 80

// compactTool is a write or read tool as the compact list shows it. Its
// _meta holds its schema hash as a compactlist.Hash, which the list writer
// (sdkbind.ListCompactly for go-sdk; runtime/mcpgo) takes out of the tool
// and into the list's hash.
func compactTool(d *schemadoc.Tool, hash string) *toolcall.Tool {
	return &toolcall.Tool{
		Name:        d.Name,
		Description: oneLine(d.Description, maxCompactDescription),
		InputSchema: compactInput,
		Annotations: compactAnnotations(d.Hints),
		Meta:        map[string]any{metaSchemaHash: compactlist.Hash(hash)},
	}
}

// compactAnnotations states the hints that differ from the protocol's
// defaults (destructive and open world when absent). go-sdk writes
// readOnlyHint and idempotentHint even when false; the list writer
// (compactlist.HintsOf) leaves them out.
func compactAnnotations(h schemadoc.Hints) *toolcall.Annotations {
	a := &toolcall.Annotations{ReadOnlyHint: h.ReadOnly, IdempotentHint: h.Idempotent}
	if !h.Destructive {
		a.DestructiveHint = &h.Destructive
	}
	if !h.OpenWorld {
		a.OpenWorldHint = &h.OpenWorld
	}
	return a
}

// oneLine is the first sentence of the first line of s, at most max bytes,
// cut at a word boundary with "…" when longer.
func oneLine(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if i := strings.LastIndexByte(s[:cut], ' '); i > 0 {
		cut = i
	}
	return strings.TrimRight(s[:cut], " ,;:") + "…"
}

// operationSchema is the operation argument of validate_write and
// get_write_schema: an enum of the tools, or in the compact list a string
// (the server answers a wrong name with did-you-mean).
func (st serviceTools) operationSchema(desc string, names []string) jsonSchema {
	if st.r.cfg.compact {
		return stringSchema(desc + " (a tool name from tools/list)")
	}
	return enumSchema(desc, names)
}

// The service tools in the compact list. They are listed with their real
// input schemas (their arguments are few and fixed), but without what the
// compact write tools also leave to get_write_schema: no output schema, no
// title, no _meta, property descriptions folded into one short tool
// description, and for a read-only tool no destructive hint (the protocol
// reads it only for tools that write). Their answers are unchanged.

// compactServiceDescriptions are the compact list's descriptions of the
// service tools, by role.
func (st serviceTools) compactServiceDescriptions() map[string]string {
	return map[string]string{
		st.r.svc.SchemaTool:     "Describe a tool in full (schemas, examples, rules). Call before a tool's first call and when tools/list's schema_hash changes.",
		st.r.svc.ValidateTool:   "Dry-run a write: payload is its arguments as JSON text. Answers errors, warnings and the request it would send.",
		st.r.svc.ApplyTool:      "Commit a write the user confirmed, by its " + st.r.ans.control().proposalID + "; once, by its proposer, before it expires.",
		st.r.svc.DiscardTool:    "Discard a proposed write the user rejected.",
		st.r.svc.OperationsTool: "Get a long-running operation by name; wait (e.g. \"30s\") waits for it to finish. Read-only.",
	}
}

// compactServiceTool trims service tool t for the compact list.
func (st serviceTools) compactServiceTool(t *toolcall.Tool, descs map[string]string) {
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
	t.InputSchema = withoutPropertyDescriptions(t.InputSchema)
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
