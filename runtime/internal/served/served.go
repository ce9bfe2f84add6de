// Package served is what an MCP library's adapter serves of one registered
// service: the tools, handlers and resource templates package runtime built.
package served

import (
	"log/slog"
	"reflect"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
)

// Registration is one service's tools and resource templates, built by
// package runtime, for an MCP library's adapter to serve.
type Registration struct {
	// Service is the proto service's full name.
	Service   string
	Tools     []Tool
	Resources []Resource
	// Compact: the tools are listed compactly (runtime.WithCompactList);
	// compact tools carry their schema hash as a compactlist.Hash.
	Compact bool
	// Logger is the registration's logger (runtime.WithLogger).
	Logger *slog.Logger
}

// Tool is one tool and its handler (observed and guarded).
type Tool struct {
	Tool    *toolcall.Tool
	Handler toolcall.Handler
}

// Resource is one resource template and its handler.
type Resource struct {
	Template *toolcall.ResourceTemplate
	Handler  toolcall.ResourceHandler
}

// Build builds a service's registration from svc and opts (a
// []runtime.Option) for an adapter whose requests' Native is of type
// native.Type, which errors call native.Name. Package runtime sets it when it is initialised; an adapter
// imports package runtime (for its options), so Build is set before any
// adapter calls it.
var Build func(svc *impl.Service, opts any, native Native) (*Registration, error)

// Native is the type of an adapter's own requests and its name as users
// write it (*mcp.CallToolRequest, not the generic type it aliases).
type Native struct {
	Type reflect.Type
	Name string
}
