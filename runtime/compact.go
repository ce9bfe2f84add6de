package runtime

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// WithCompactList lists the service's write and read tools compactly, for
// services with many methods: each tool's name, a one-line description, its
// hints and its schema hash, with an open object as input schema and no
// output schema. The schema tool (get_write_schema) describes a tool in
// full on demand, and the schema hash says when a cached description is
// stale. Calls are unchanged: the server checks every argument as it does
// with the full list, and a wrong call gets the same errors and
// did-you-mean answers. validate_write and get_write_schema take the
// operation as a string rather than an enum of every tool, so their size
// does not grow with the service either. Strict-mode function calling
// (OpenAI strict, Anthropic strict tool use) cannot apply to a compact
// tool: its arguments are not in the list (docs/compact.md).
func WithCompactList() Option { return option(func(c *config) { c.compact = true }) }

// compactInput is a compact tool's input schema: an object schema, as every
// client requires, explicitly open, so that no client narrows the
// arguments to none (a strict conversion of {"type":"object"} allows only
// {}); the server checks them.
var compactInput = json.RawMessage(`{"type":"object","additionalProperties":true}`)

// maxCompactDescription bounds a compact description, in bytes.
const maxCompactDescription = 80

// compactTool is a write or read tool as the compact list shows it.
func compactTool(d *schemadoc.Tool, hash string) *mcp.Tool {
	return &mcp.Tool{
		Name:        d.Name,
		Description: oneLine(d.Description, maxCompactDescription),
		InputSchema: compactInput,
		Annotations: compactAnnotations(d.Hints),
		Meta:        mcp.Meta{metaSchemaHash: hash},
	}
}

// compactAnnotations states the hints that differ from the protocol's
// defaults (destructive and open world when absent): the same hints as
// annotations, in fewer bytes. readOnlyHint and idempotentHint are always
// sent by the SDK.
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
func (r *registry) operationSchema(desc string, names []string) jsonSchema {
	if r.cfg.compact {
		return stringSchema(desc + " (a tool name from tools/list)")
	}
	return enumSchema(desc, names)
}
