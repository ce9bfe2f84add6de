package mcpgo

import (
	"net/http"

	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/httpfront"
)

// StatelessHTTPHandler serves s over stateless streamable HTTP (mcp-go's
// handler with server.WithStateLess) behind the front mcphttp.Handler puts
// before go-sdk's with mcphttp.WithStateless: trace headers, cross-origin
// requests refused, the body read within its bounds (httpfront.Front). Each
// request may go to any instance, as with go-sdk's stateless handler; the
// durable stores and shared secrets must be configured the same way. Wrap it
// with httpfront.BearerAuth to authenticate callers, and serve it with
// httpfront.NewServer or httpfront.ServeLoopback for the connection bounds.
func StatelessHTTPHandler(s *server.MCPServer, opts ...httpfront.Option) http.Handler {
	return httpfront.Front(server.NewStreamableHTTPServer(s, server.WithStateLess(true)), opts...)
}
