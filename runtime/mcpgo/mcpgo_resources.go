package mcpgo

// MCP resources (docs/resources.md) on an mcp-go server: the resource
// templates gosdk.Register adds to a go-sdk server, with the same
// handlers, read requests and errors carried across.

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	mgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/perserver"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/served"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
)

// templateServers records, per mcp-go server, which service serves each
// URI template: mcp-go replaces a template added again, so a second
// registration of a service (runtime.WithToolNames) would silently take
// over the first one's resources.
var templateServers perserver.Map[server.MCPServer, map[string]string]

// addResources adds the collected templates to s (mcp-go declares the
// resources capability when the first one is added). As on a go-sdk
// server, the first registration of a URI template keeps it; a later one
// is logged (slog's default logger) and left out.
func addResources(s *server.MCPServer, service string, rs []served.Resource) {
	var kept []served.Resource
	templateServers.Update(s, func() map[string]string { return map[string]string{} }, func(taken map[string]string, _ bool) {
		for _, r := range rs {
			if other, dup := taken[r.Template.URITemplate]; dup {
				slog.Warn("mcpwrite: resource template already served on this server by another registration; this registration does not serve it",
					"service", service, "uri_template", r.Template.URITemplate, "served_by", other)
				continue
			}
			taken[r.Template.URITemplate] = service + " (" + r.Template.Name + ")"
			kept = append(kept, r)
		}
	})
	for _, r := range kept {
		t := r.Template
		mt := mgo.NewResourceTemplate(t.URITemplate, t.Name,
			mgo.WithTemplateTitle(t.Title), mgo.WithTemplateDescription(t.Description), mgo.WithTemplateMIMEType(t.MIMEType))
		s.AddResourceTemplate(mt, resourceHandlerOf(r.Handler))
	}
}

// resourceHandlerOf runs the runtime's resource handler for an mcp-go
// read: the URI, _meta, HTTP headers and verified token as a go-sdk
// request without a session (what WithRequestContextFunc reads), the
// contents back as mcp-go's. A failed read is the runtime's error, whose
// text is "CODE: message"; mcp-go answers it as an internal error.
func resourceHandlerOf(h toolcall.ResourceHandler) server.ResourceTemplateHandlerFunc {
	return func(ctx context.Context, req mgo.ReadResourceRequest) ([]mgo.ResourceContents, error) {
		call := func(tool string, args json.RawMessage) *toolcall.Request {
			creq := mgo.CallToolRequest{Header: req.Header}
			creq.Params.Name, creq.Params.Arguments, creq.Params.Meta = tool, args, req.Params.Meta
			return request(ctx, creq, args)
		}
		res, err := h(ctx, &toolcall.ResourceRequest{URI: req.Params.URI, Call: call})
		if err != nil {
			return nil, err
		}
		if res == nil {
			return nil, errors.New("mcpgo: the resource handler returned no result")
		}
		out := make([]mgo.ResourceContents, 0, len(res.Contents))
		for _, c := range res.Contents {
			out = append(out, mgo.TextResourceContents{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text})
		}
		return out, nil
	}
}
