package sdkbind

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/compactlist"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/perserver"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
)

// serverNames remembers, per go-sdk server, which service registered each
// tool name, so a second registration under the same names is refused
// instead of silently replacing the first one's tools (AddTool replaces).
var serverNames perserver.Map[mcp.Server, map[string]string]

// ClaimNames records the tool names of one registration of service on s,
// or reports the first name another registration on s already took.
func ClaimNames(s *mcp.Server, service string, tools []string) (err error) {
	serverNames.Update(s, func() map[string]string { return map[string]string{} }, func(names map[string]string, _ bool) {
		for _, name := range tools {
			if other, taken := names[name]; taken {
				err = fmt.Errorf("tool %q is already registered on this server by service %s; register the service again with runtime.WithToolNames(prefix, suffix) to give its tools other names", name, other)
				return
			}
		}
		for _, name := range tools {
			names[name] = service
		}
	})
	return err
}

// serverTemplates records, per go-sdk server, which service serves each
// URI template, so a second registration of a service (WithToolNames)
// does not silently take over the first one's resources.
var serverTemplates perserver.Map[mcp.Server, map[string]string]

// ClaimTemplates records the URI templates of one registration of service
// on s and returns those it may serve: a go-sdk server keeps the first
// registration of a URI template; dup is called for each later one.
func ClaimTemplates(s *mcp.Server, service string, templates []*toolcall.ResourceTemplate, dup func(t *toolcall.ResourceTemplate, servedBy string)) (kept []bool) {
	kept = make([]bool, len(templates))
	serverTemplates.Update(s, func() map[string]string { return map[string]string{} }, func(taken map[string]string, _ bool) {
		for i, t := range templates {
			if other, ok := taken[t.URITemplate]; ok {
				dup(t, other)
				continue
			}
			taken[t.URITemplate] = service + " (" + t.Name + ")"
			kept[i] = true
		}
	})
	return kept
}

// compactServers are the go-sdk servers whose tools/list writes compact
// tools compactly (ListCompactly).
var compactServers perserver.Map[mcp.Server, struct{}]

// ListCompactly makes s write its compact tools compactly in tools/list,
// once per server: a receiving middleware that puts the compact tools'
// list hash in the result's _meta and writes each compact tool without
// _meta and with only the hints that differ from the protocol's defaults.
func ListCompactly(s *mcp.Server) {
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
			if h, ok := compactlist.OfMeta(t.Meta); ok {
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
		if _, ok := compactlist.OfMeta(t.Meta); ok {
			tools[i] = compactlist.Listed(NeutralTool(t))
		} else {
			tools[i] = t
		}
	}
	return json.Marshal(struct {
		*plain
		Tools []any `json:"tools"`
	}{(*plain)(r.ListToolsResult), tools})
}

// NeutralTool is a go-sdk tool as the runtime describes it (the inverse of
// Tool for the tools the runtime builds, whose schemas are raw JSON).
func NeutralTool(t *mcp.Tool) *toolcall.Tool {
	out := &toolcall.Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: rawJSON(t.InputSchema), OutputSchema: rawJSON(t.OutputSchema)}
	if a := t.Annotations; a != nil {
		out.Annotations = &toolcall.Annotations{Title: a.Title, ReadOnlyHint: a.ReadOnlyHint, DestructiveHint: a.DestructiveHint, IdempotentHint: a.IdempotentHint, OpenWorldHint: a.OpenWorldHint}
	}
	if t.Meta != nil {
		out.Meta = map[string]any(t.Meta)
	}
	return out
}

// rawJSON is a schema as raw JSON: as is when it is, else marshalled
// (nil, or a schema that does not marshal, is nil).
func rawJSON(v any) json.RawMessage {
	switch s := v.(type) {
	case nil:
		return nil
	case json.RawMessage:
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}
