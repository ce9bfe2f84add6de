// Package gosdk registers the tools of a generated service on a
// github.com/modelcontextprotocol/go-sdk server. The generated
// Register<Service>Tools of a package generated for go-sdk (the plugin's
// default, sdk=go-sdk) calls Register; package runtime itself links no MCP
// library, so a mark3labs/mcp-go build (runtime/mcpgo) links no go-sdk.
//
//	s := mcp.NewServer(&mcp.Implementation{Name: "tasks", Version: "1.0.0"}, nil)
//	err := gosdk.Register(s, tasksv1mcpwrite.NewTaskService(handler),
//		runtime.WithRequestContextFunc(mcphttp.RequestContextFromCall))
package gosdk

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/sdkbind"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/served"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
)

// Register adds the tools of one proto service to s: one write tool per entry
// of the service's schema document, bound by name to svc.Tools, plus the
// service tools the document names (validate, schema, apply, discard) and one
// read-only discovery tool per discovery entry, and the service's resource
// templates. It fails, registering nothing, when the document and the
// bindings disagree, when a tool name is not portable ([A-Za-z0-9_-], at
// most 64 characters), or when another Register on s took one of its names
// (runtime.WithToolNames registers a service again under other names).
// runtime.WithRequestContextFunc takes a function of *mcp.CallToolRequest
// (mcphttp.RequestContextFromCall) or runtime.StaticRequestContext.
func Register(s *mcp.Server, svc *mcpwriteimpl.Service, opts ...runtime.Option) error {
	if s == nil {
		return errors.New("runtime: Register: nil server")
	}
	g, err := served.Build(svc, opts, native)
	if err != nil {
		return err
	}
	names := make([]string, len(g.Tools))
	for i, t := range g.Tools {
		names[i] = t.Tool.Name
	}
	if err := sdkbind.ClaimNames(s, g.Service, names); err != nil {
		return fmt.Errorf("runtime: service %s: %w", g.Service, err)
	}
	if g.Compact {
		sdkbind.ListCompactly(s)
	}
	for _, t := range g.Tools {
		s.AddTool(sdkbind.Tool(t.Tool), sdkbind.Handler(t.Handler))
	}
	addResources(s, g)
	return nil
}

// native is the type of go-sdk's requests.
var native = served.Native{Type: reflect.TypeFor[*mcp.CallToolRequest](), Name: "*mcp.CallToolRequest (github.com/modelcontextprotocol/go-sdk/mcp)"}

// addResources adds the service's resource templates to s. A server keeps
// the first registration of a URI template; a later one is logged and left
// out.
func addResources(s *mcp.Server, g *served.Registration) {
	if len(g.Resources) == 0 {
		return
	}
	templates := make([]*toolcall.ResourceTemplate, len(g.Resources))
	for i, r := range g.Resources {
		templates[i] = r.Template
	}
	kept := sdkbind.ClaimTemplates(s, g.Service, templates, func(t *toolcall.ResourceTemplate, servedBy string) {
		g.Logger.Warn("mcpwrite: resource template already served on this server by another registration; this registration does not serve it",
			"service", g.Service, "uri_template", t.URITemplate, "served_by", servedBy)
	})
	for i, r := range g.Resources {
		if kept[i] {
			s.AddResourceTemplate(sdkbind.ResourceTemplate(r.Template), sdkbind.ResourceHandler(r.Handler))
		}
	}
}

// StaticRequestContext is runtime.StaticRequestContext as a function of
// go-sdk's request, for code that chooses between it and another function
// of *mcp.CallToolRequest (mcphttp.RequestContextFromCall): every call acts
// as rc, with trace fields still taken from the call.
func StaticRequestContext(rc runtime.RequestContext) func(context.Context, *mcp.CallToolRequest) (runtime.RequestContext, bool) {
	static := runtime.StaticRequestContext(rc)
	return func(ctx context.Context, req *mcp.CallToolRequest) (runtime.RequestContext, bool) {
		var tr *toolcall.Request
		if req != nil {
			tr = sdkbind.Request(ctx, req)
		}
		return static(ctx, tr)
	}
}
