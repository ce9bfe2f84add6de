package runtime

import (
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/sdkbind"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
)

// ToolAdder is where Register adds tools: a go-sdk *mcp.Server, or an
// adapter that serves the same tools and handlers on another MCP library
// (runtime/mcpgo for mark3labs/mcp-go).
type ToolAdder interface {
	AddTool(t *mcp.Tool, h mcp.ToolHandler)
}

// resourceAdder is a server Register also adds resource templates to: a
// go-sdk *mcp.Server, or the mcpgo adapter.
type resourceAdder interface {
	AddResourceTemplate(t *mcp.ResourceTemplate, h mcp.ResourceHandler)
}

// Register adds the tools of one proto service to s: one write tool per entry
// of the service's schema document, bound by name to svc.Tools, plus the
// service tools the document names (validate, schema, apply, discard) and one
// read-only discovery tool per discovery entry. It fails, registering
// nothing, when the document and the bindings disagree, when a tool name is
// not portable ([A-Za-z0-9_-], at most 64 characters), or when another
// Register on the same *mcp.Server took one of its names (WithToolNames
// registers a service again under other names).
func Register(s ToolAdder, svc *mcpwriteimpl.Service, opts ...Option) error {
	srv, isSDK := s.(*mcp.Server)
	if s == nil || isSDK && srv == nil {
		return errors.New("runtime: Register: nil server")
	}
	g, err := build(svc, opts)
	if err != nil {
		return err
	}
	if isSDK {
		if err := sdkbind.ClaimNames(srv, svc.Name, g.names()); err != nil {
			return fmt.Errorf("runtime: service %s: %w", svc.Name, err)
		}
		if g.r.cfg.compact {
			sdkbind.ListCompactly(srv)
		}
	}
	for _, sp := range g.tools {
		s.AddTool(sdkbind.Tool(sp.tool), sdkbind.Handler(sp.handler))
	}
	g.addResources(s)
	return nil
}

// addResources adds the templates to s, the server Register was given,
// when s serves resources. A go-sdk server keeps the first registration
// of a URI template; a later one is logged and left out.
func (g *registration) addResources(s any) {
	r, specs := g.r, g.resources
	if len(specs) == 0 {
		return
	}
	ra, ok := s.(resourceAdder)
	if !ok {
		r.cfg.logger.Warn("mcpwrite: the server takes no resource templates, so the service's resources are not served", "service", r.svc.Name, "server", fmt.Sprintf("%T", s))
		return
	}
	if srv, isSDK := s.(*mcp.Server); isSDK {
		templates := make([]*toolcall.ResourceTemplate, len(specs))
		for i, sp := range specs {
			templates[i] = sp.template
		}
		kept := sdkbind.ClaimTemplates(srv, r.svc.Name, templates, func(t *toolcall.ResourceTemplate, servedBy string) {
			r.cfg.logger.Warn("mcpwrite: resource template already served on this server by another registration; this registration does not serve it",
				"service", r.svc.Name, "uri_template", t.URITemplate, "served_by", servedBy)
		})
		var out []resourceSpec
		for i, sp := range specs {
			if kept[i] {
				out = append(out, sp)
			}
		}
		specs = out
	}
	for _, sp := range specs {
		ra.AddResourceTemplate(sdkbind.ResourceTemplate(sp.template), sdkbind.ResourceHandler(sp.handler))
	}
}
