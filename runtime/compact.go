package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/compactlist"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/perserver"
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
// (listCompactly; runtime/mcpgo) takes out of the tool and into the list's
// hash. A ToolAdder of another library lists it as a per-tool hash.
func compactTool(d *schemadoc.Tool, hash string) *mcp.Tool {
	return &mcp.Tool{
		Name:        d.Name,
		Description: oneLine(d.Description, maxCompactDescription),
		InputSchema: compactInput,
		Annotations: compactAnnotations(d.Hints),
		Meta:        mcp.Meta{metaSchemaHash: compactlist.Hash(hash)},
	}
}

// compactAnnotations states the hints that differ from the protocol's
// defaults (destructive and open world when absent). go-sdk writes
// readOnlyHint and idempotentHint even when false; the list writer
// (compactlist.HintsOf) leaves them out.
func compactAnnotations(h schemadoc.Hints) *mcp.ToolAnnotations {
	a := &mcp.ToolAnnotations{ReadOnlyHint: h.ReadOnly, IdempotentHint: h.Idempotent}
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

// compactServers are the go-sdk servers whose tools/list writes compact
// tools compactly (listCompactly).
var compactServers perserver.Map[mcp.Server, struct{}]

// listCompactly makes s write its compact tools compactly in tools/list,
// once per server: a receiving middleware that puts the compact tools'
// list hash in the result's _meta and writes each compact tool without
// _meta and with only the hints that differ from the protocol's defaults.
func listCompactly(s *mcp.Server) {
	first := false
	compactServers.Update(s, func() struct{} { return struct{}{} }, func(_ struct{}, created bool) { first = created })
	if first {
		s.AddReceivingMiddleware(compactListMiddleware)
	}
}

// compactListMiddleware rewrites a tools/list result that holds compact
// tools (compactListResult); every other answer passes unchanged.
func compactListMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		lr, ok := res.(*mcp.ListToolsResult)
		if err != nil || method != "tools/list" || !ok || lr == nil {
			return res, err
		}
		hashes := map[string]compactlist.Hash{}
		for _, t := range lr.Tools {
			if h, ok := compactlist.Of(t); ok {
				hashes[t.Name] = h
			}
		}
		if len(hashes) == 0 {
			return res, nil
		}
		if lr.Meta == nil {
			lr.Meta = mcp.Meta{}
		}
		lr.Meta[compactlist.MetaKey] = compactlist.ListHash(hashes)
		return &compactListResult{lr}, nil
	}
}

// compactListResult is a tools/list result that writes its compact tools
// as compactlist.Listed does (go-sdk's ToolAnnotations always writes
// readOnlyHint and idempotentHint); the result's other members, and the
// other tools, as go-sdk writes them.
type compactListResult struct{ *mcp.ListToolsResult }

func (r *compactListResult) MarshalJSON() ([]byte, error) {
	type plain mcp.ListToolsResult
	tools := make([]any, len(r.Tools))
	for i, t := range r.Tools {
		if _, ok := compactlist.Of(t); ok {
			tools[i] = compactlist.Listed(t)
		} else {
			tools[i] = t
		}
	}
	return json.Marshal(struct {
		*plain
		Tools []any `json:"tools"`
	}{(*plain)(r.ListToolsResult), tools})
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
func (st serviceTools) compactServiceTool(t *mcp.Tool, descs map[string]string) {
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
