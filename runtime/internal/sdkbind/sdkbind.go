// Package sdkbind serves the runtime's library-neutral tools, handlers and
// resource templates (runtime/internal/toolcall) on a go-sdk server: it
// converts tools and templates to go-sdk's types, each *mcp.CallToolRequest
// to a toolcall.Request (elicitation through the session, the 2026-07-28
// input-request round trip, progress notifications), and results back. It
// does not import package runtime.
package sdkbind

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
)

// roundTripProtocol is the first protocol version that asks the user
// through an input request answered in a retried call.
const roundTripProtocol = "2026-07-28"

// Tool is t as go-sdk lists it, its schemas compact
// (toolcall.WireSchema).
func Tool(t *toolcall.Tool) *mcp.Tool {
	mt := &mcp.Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: toolcall.WireSchema(t.InputSchema)}
	if len(t.OutputSchema) > 0 {
		mt.OutputSchema = toolcall.WireSchema(t.OutputSchema)
	}
	if a := t.Annotations; a != nil {
		mt.Annotations = &mcp.ToolAnnotations{Title: a.Title, ReadOnlyHint: a.ReadOnlyHint, DestructiveHint: a.DestructiveHint, IdempotentHint: a.IdempotentHint, OpenWorldHint: a.OpenWorldHint}
	}
	if t.Meta != nil {
		mt.Meta = mcp.Meta(t.Meta)
	}
	return mt
}

// Handler runs h for a go-sdk call.
func Handler(h toolcall.Handler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := h(ctx, Request(ctx, req))
		if err != nil {
			return nil, err
		}
		return Result(res), nil
	}
}

// Request is req as the runtime reads it. A call without a session (a
// resources/read outside one, a test) can neither ask nor notify.
func Request(ctx context.Context, req *mcp.CallToolRequest) *toolcall.Request {
	out := &toolcall.Request{Native: req}
	if req == nil {
		return out
	}
	if p := req.Params; p != nil {
		out.Name, out.Arguments = p.Name, p.Arguments
		if p.Meta != nil {
			out.Meta = map[string]any(p.Meta)
		}
		out.ProgressToken = p.GetProgressToken()
		out.RequestState = p.RequestState
		if len(p.InputResponses) > 0 {
			out.InputResponses = make(map[string]*toolcall.ElicitResult, len(p.InputResponses))
			for id, r := range p.InputResponses {
				var er *toolcall.ElicitResult
				if e, ok := r.(*mcp.ElicitResult); ok && e != nil {
					er = &toolcall.ElicitResult{Action: e.Action, Content: e.Content}
				}
				out.InputResponses[id] = er
			}
		}
	}
	if ex := req.Extra; ex != nil {
		out.Header = ex.Header
		if ti := ex.TokenInfo; ti != nil {
			out.HasToken, out.TokenExtra = true, ti.Extra
		}
	}
	if s := req.Session; s != nil {
		out.SessionID = s.ID()
		out.Elicitor = sessionElicitor{req}
		out.Progress = func(ctx context.Context, token any, progress, total float64, msg string) error {
			return s.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: progress, Total: total, Message: msg})
		}
	}
	return out
}

// Result is res as go-sdk answers it.
func Result(res *toolcall.Result) *mcp.CallToolResult {
	if res == nil {
		return nil
	}
	out := &mcp.CallToolResult{IsError: res.IsError, RequestState: res.RequestState}
	if res.Content != nil {
		out.Content = make([]mcp.Content, len(res.Content))
		for i, text := range res.Content {
			out.Content[i] = &mcp.TextContent{Text: text}
		}
	}
	if res.StructuredContent != nil {
		out.StructuredContent = res.StructuredContent
	}
	if res.InputRequests != nil {
		out.InputRequests = make(mcp.InputRequestMap, len(res.InputRequests))
		for id, r := range res.InputRequests {
			out.InputRequests[id] = &mcp.ElicitParams{Message: r.Message, RequestedSchema: r.Schema}
		}
	}
	return out
}

// sessionElicitor asks through the call's go-sdk session.
type sessionElicitor struct{ req *mcp.CallToolRequest }

// Mode reads the session's protocol version (as the SDK does to decide
// whether input requests are allowed) and the client's capabilities,
// preferring those sent with this very request.
func (e sessionElicitor) Mode() toolcall.ElicitMode {
	ip := e.req.Session.InitializeParams()
	if ip == nil {
		return toolcall.ElicitNone
	}
	caps := ip.Capabilities
	if pc := requestCapabilities(e.req); pc != nil {
		caps = pc
	}
	if caps == nil || caps.Elicitation == nil {
		return toolcall.ElicitNone
	}
	if el := caps.Elicitation; el.Form == nil && el.URL != nil {
		return toolcall.ElicitNone // URL-only clients cannot show the form
	}
	if ip.ProtocolVersion >= roundTripProtocol {
		return toolcall.ElicitRoundTrip
	}
	return toolcall.ElicitInCall
}

func (e sessionElicitor) Elicit(ctx context.Context, msg string, schema json.RawMessage) (*toolcall.ElicitResult, error) {
	res, err := e.req.Session.Elicit(ctx, &mcp.ElicitParams{Message: msg, RequestedSchema: schema})
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, errors.New("elicitation answered no result")
	}
	return &toolcall.ElicitResult{Action: res.Action, Content: res.Content}, nil
}

// requestCapabilities decodes the capabilities a 2026-07-28 client sends in
// the _meta of every request; nil when absent or unreadable.
func requestCapabilities(req *mcp.CallToolRequest) *mcp.ClientCapabilities {
	if req.Params == nil {
		return nil
	}
	raw, ok := req.Params.GetMeta()[mcp.MetaKeyClientCapabilities]
	if !ok || raw == nil {
		return nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil
	}
	var caps mcp.ClientCapabilities
	if err := json.Unmarshal(b, &caps); err != nil {
		return nil
	}
	return &caps
}

// ResourceTemplate is t as go-sdk lists it.
func ResourceTemplate(t *toolcall.ResourceTemplate) *mcp.ResourceTemplate {
	return &mcp.ResourceTemplate{Name: t.Name, Title: t.Title, Description: t.Description, URITemplate: t.URITemplate, MIMEType: t.MIMEType}
}

// ResourceHandler runs h for a go-sdk resources/read: the read runs as a
// tool call with the read's session, headers, token and _meta.
func ResourceHandler(h toolcall.ResourceHandler) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		if req == nil || req.Params == nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "resources/read without params"}
		}
		call := func(tool string, args json.RawMessage) *toolcall.Request {
			return Request(ctx, &mcp.CallToolRequest{Session: req.Session, Extra: req.Extra, Params: &mcp.CallToolParamsRaw{Name: tool, Arguments: args, Meta: req.Params.Meta}})
		}
		res, err := h(ctx, &toolcall.ResourceRequest{URI: req.Params.URI, Call: call})
		if err != nil {
			var te *toolcall.Error
			if errors.As(err, &te) {
				return nil, &jsonrpc.Error{Code: te.Code, Message: te.Message, Data: te.Data}
			}
			return nil, err
		}
		if res == nil {
			return nil, nil
		}
		out := &mcp.ReadResourceResult{Contents: make([]*mcp.ResourceContents, len(res.Contents))}
		for i, c := range res.Contents {
			out.Contents[i] = &mcp.ResourceContents{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text}
		}
		return out, nil
	}
}
