// Package mcpgo registers the write tools of a generated service into a
// github.com/mark3labs/mcp-go server, as runtime/gosdk's Register does into a
// go-sdk one: the same tools, schemas, output schemas and annotations, the
// same handlers (envelope, idempotency, proposals, structured content), so
// a team with an existing mcp-go server imports the generated package
// unchanged.
//
//	s := server.NewMCPServer("tasks", "1.0.0", server.WithToolCapabilities(false))
//	err := mcpgo.Register(s, tasksv1mcpwrite.NewTaskService(handler),
//		runtime.WithRequestContextFunc(rcFunc))
//
// Confirmation: an mcp-go client that declared form elicitation is asked
// inside the call (elicitation/create); one that did not, a session that
// cannot send server requests, or a call authenticated by a bearer token
// (mcp-go does not bind sessions to tokens) gets the documented fallback of
// a go-sdk client without elicitation: a proposal to apply with
// apply_proposal (or the refusal a tool with elicit_fallback REFUSE asks for). The 2026-07-28
// input-request round trip is served on go-sdk servers only.
//
// The request context comes from runtime.WithRequestContextFunc with a
// function of mcp-go's CallToolRequest (RequestContextFromCall: the
// identity httpfront.BearerAuth or mcphttp.BearerAuth verified for the
// request) or runtime.StaticRequestContext, or from
// runtime.WithRequestContext on the context mcp-go hands the handler
// (server.WithHTTPContextFunc). mcp-go does not bind an HTTP session to the
// token that opened it: each call acts for the token it carries. The
// package links no go-sdk.
package mcpgo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	mgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/compactlist"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/perserver"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/served"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
)

// Register adds the tools of one generated service (New<Service>(handler))
// to s, with the options gosdk.Register takes (runtime.WithToolNames
// registers a service twice). It fails, adding nothing, where
// gosdk.Register fails, and when s already serves a tool of the same name.
// With runtime.WithCompactList, s lists the service's tools as a go-sdk
// server does: the list's schema hash in the tools/list result's _meta (an
// after-list-tools hook on s's hooks, which Register creates when s has
// none), no per-tool _meta, only the hints that differ from the defaults.
func Register(s *server.MCPServer, svc *mcpwriteimpl.Service, opts ...runtime.Option) error {
	if s == nil {
		return errors.New("mcpgo: Register: nil *server.MCPServer")
	}
	g, err := served.Build(svc, opts, native)
	if err != nil {
		return err
	}
	tools := make([]server.ServerTool, 0, len(g.Tools))
	compact := map[string]compactlist.Hash{}
	for _, t := range g.Tools {
		if s.GetTool(t.Tool.Name) != nil {
			return fmt.Errorf("mcpgo: service %s: tool %q is already registered on this server; register the service again with runtime.WithToolNames(prefix, suffix) to give its tools other names", svc.Name, t.Tool.Name)
		}
		mt, err := toolOf(t.Tool)
		if err != nil {
			return fmt.Errorf("mcpgo: service %s: %w", svc.Name, err)
		}
		tools = append(tools, server.ServerTool{Tool: mt, Handler: handlerOf(s, t.Handler)})
		if h, ok := compactlist.Of(t.Tool); ok {
			compact[t.Tool.Name] = h
		}
	}
	if len(compact) > 0 {
		listCompactly(s, compact)
	}
	s.AddTools(tools...)
	addResources(s, svc.Name, g.Resources)
	return nil
}

// native is the type of mcp-go's requests, which a
// runtime.WithRequestContextFunc function may take (RequestContextFromCall
// does).
var native = served.Native{Type: reflect.TypeFor[mgo.CallToolRequest](), Name: "mcp.CallToolRequest (github.com/mark3labs/mcp-go/mcp)"}

// compactServers holds, per mcp-go server, the schema hashes of the tools
// it lists compactly.
var compactServers perserver.Map[server.MCPServer, map[string]compactlist.Hash]

func newHashes() map[string]compactlist.Hash { return map[string]compactlist.Hash{} }

// listCompactly records the compact tools' hashes for s and, the first
// time, hooks s's tools/list to put their list hash in the result's _meta.
// The hook computes it from the tools the result lists.
func listCompactly(s *server.MCPServer, hashes map[string]compactlist.Hash) {
	first := false
	compactServers.Update(s, newHashes, func(known map[string]compactlist.Hash, created bool) {
		for n, h := range hashes {
			known[n] = h
		}
		first = created
	})
	if !first {
		return
	}
	hooks := s.GetHooks()
	if hooks == nil {
		hooks = &server.Hooks{}
		server.WithHooks(hooks)(s)
	}
	hooks.AddAfterListTools(func(_ context.Context, _ any, _ *mgo.ListToolsRequest, res *mgo.ListToolsResult) {
		if res == nil {
			return
		}
		listed := map[string]compactlist.Hash{}
		compactServers.Update(s, newHashes, func(known map[string]compactlist.Hash, _ bool) {
			for _, t := range res.Tools {
				if h, ok := known[t.Name]; ok {
					listed[t.Name] = h
				}
			}
		})
		if len(listed) == 0 {
			return
		}
		if res.Meta == nil {
			res.Meta = &mgo.Meta{}
		}
		if res.Meta.AdditionalFields == nil {
			res.Meta.AdditionalFields = map[string]any{}
		}
		res.Meta.AdditionalFields[compactlist.MetaKey] = compactlist.ListHash(listed)
	})
}

// toolOf is the runtime's tool as mcp-go lists it: the same schemas (raw,
// compact: toolcall.WireSchema), annotations, all four hints spelled out,
// and _meta. A compact tool has only the hints that differ from the
// defaults, and no _meta (its hash goes into the list's).
func toolOf(t *toolcall.Tool) (mgo.Tool, error) {
	if _, ok := compactlist.Of(t); ok {
		return compactToolOf(t)
	}
	if len(t.InputSchema) == 0 {
		return mgo.Tool{}, fmt.Errorf("tool %q: no input schema", t.Name)
	}
	mt := mgo.Tool{Name: t.Name, Title: t.Title, Description: t.Description, RawInputSchema: toolcall.WireSchema(t.InputSchema)}
	if len(t.OutputSchema) > 0 {
		mt.RawOutputSchema = toolcall.WireSchema(t.OutputSchema)
	}
	if a := t.Annotations; a != nil {
		readOnly, idempotent := a.ReadOnlyHint, a.IdempotentHint
		mt.Annotations = mgo.ToolAnnotation{Title: a.Title, ReadOnlyHint: &readOnly, DestructiveHint: a.DestructiveHint, IdempotentHint: &idempotent, OpenWorldHint: a.OpenWorldHint}
	}
	if len(t.Meta) > 0 {
		mt.Meta = &mgo.Meta{AdditionalFields: t.Meta}
	}
	return mt, nil
}

// compactToolOf is a compact tool as mcp-go lists it (compactlist.Listed).
func compactToolOf(t *toolcall.Tool) (mgo.Tool, error) {
	c := compactlist.Listed(t)
	if len(c.InputSchema) == 0 {
		return mgo.Tool{}, fmt.Errorf("tool %q: no input schema", t.Name)
	}
	mt := mgo.Tool{Name: c.Name, Description: c.Description, RawInputSchema: toolcall.WireSchema(c.InputSchema)}
	if h := c.Annotations; h != nil {
		mt.Annotations = mgo.ToolAnnotation{DestructiveHint: h.DestructiveHint, OpenWorldHint: h.OpenWorldHint}
		if h.ReadOnlyHint {
			mt.Annotations.ReadOnlyHint = &h.ReadOnlyHint
		}
		if h.IdempotentHint {
			mt.Annotations.IdempotentHint = &h.IdempotentHint
		}
	}
	return mt, nil
}

// handlerOf runs the runtime's handler for an mcp-go call: the arguments,
// _meta, HTTP headers and the identity a bearer middleware verified as the
// runtime's request, the client's elicitation and progress through s, the
// result back as mcp-go's.
func handlerOf(s *server.MCPServer, h toolcall.Handler) server.ToolHandlerFunc {
	return func(ctx context.Context, req mgo.CallToolRequest) (*mgo.CallToolResult, error) {
		args, err := arguments(req)
		if err != nil {
			return nil, err
		}
		tr := request(ctx, req, args)
		tr.Elicitor = asker{s: s, ctx: ctx, authenticated: tr.HasToken}
		tr.Progress = progressOf(s)
		res, err := h(ctx, tr)
		if err != nil {
			return nil, err
		}
		return resultOf(res)
	}
}

// resultOf is the runtime's result as mcp-go sends it: text content, the
// same JSON as structured content, the error flag.
func resultOf(res *toolcall.Result) (*mgo.CallToolResult, error) {
	if res == nil {
		return nil, errors.New("mcpgo: the tool handler returned no result")
	}
	if len(res.InputRequests) > 0 || res.RequestState != "" {
		// Only a go-sdk session on protocol 2026-07-28 gets input requests.
		return nil, errors.New("mcpgo: the tool asked for an input round trip, which mcp-go sessions do not serve")
	}
	out := &mgo.CallToolResult{IsError: res.IsError}
	if res.StructuredContent != nil {
		out.StructuredContent = res.StructuredContent
	}
	for _, text := range res.Content {
		out.Content = append(out.Content, mgo.NewTextContent(text))
	}
	return out, nil
}

// asker asks the calling client through mcp-go's elicitation.
type asker struct {
	s   *server.MCPServer
	ctx context.Context // the call's: it holds the client session
	// authenticated: the call carries a verified bearer token.
	authenticated bool
}

// Mode: the client is asked inside the call when it can be (CanAsk);
// mcp-go serves no input-request round trip.
func (a asker) Mode() toolcall.ElicitMode {
	if a.CanAsk() {
		return toolcall.ElicitInCall
	}
	return toolcall.ElicitNone
}

// CanAsk: the call is not authenticated per identity, the session can send
// requests and the client declared form elicitation (form, or elicitation
// without modes, as 2025-06-18 clients do). mcp-go does not bind an HTTP
// session to the token that opened it, and a question sent on a session
// can reach any stream listening on it: a caller with another's session id
// could have that user confirm its write. So an authenticated call is never
// asked in the call; it becomes a proposal, which only its caller can apply.
func (a asker) CanAsk() bool {
	if a.authenticated {
		return false
	}
	sess := server.ClientSessionFromContext(a.ctx)
	if _, ok := sess.(server.SessionWithElicitation); !ok {
		return false
	}
	ci, ok := sess.(server.SessionWithClientInfo)
	if !ok {
		return false
	}
	e := ci.GetClientCapabilities().Elicitation
	return e != nil && (e.Form != nil || e.URL == nil)
}

// Elicit sends elicitation/create with message and the form schema to the
// calling client and returns the user's answer.
func (a asker) Elicit(ctx context.Context, message string, schema json.RawMessage) (*toolcall.ElicitResult, error) {
	var sch map[string]any
	if err := json.Unmarshal(schema, &sch); err != nil {
		return nil, fmt.Errorf("mcpgo: confirmation schema: %w", err)
	}
	res, err := a.s.RequestElicitation(ctx, mgo.ElicitationRequest{Params: mgo.ElicitationParams{Message: message, RequestedSchema: sch}})
	if err != nil {
		return nil, err
	}
	content, err := contentOf(res.Content)
	if err != nil {
		return nil, err
	}
	return &toolcall.ElicitResult{Action: string(res.Action), Content: content}, nil
}

// contentOf reads the form's answer, whatever shape mcp-go decoded it to.
func contentOf(v any) (map[string]any, error) {
	switch c := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return c, nil
	default:
		b, err := json.Marshal(c)
		if err != nil {
			return nil, fmt.Errorf("mcpgo: elicitation content: %w", err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("mcpgo: elicitation content is not an object: %w", err)
		}
		return m, nil
	}
}
