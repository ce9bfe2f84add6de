package httpfront

import (
	"net/http"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/httpbase"
)

// Front puts in front of an SDK's stateless streamable HTTP handler
// (mark3labs/mcp-go's, see mcpgo.StatelessHTTPHandler) what
// runtime/mcphttp's Handler puts in front of go-sdk's with
// mcphttp.WithStateless: trace headers
// (TraceHeaders), cross-origin requests refused, and the request body read
// within WithRequestReadTimeout and WithMaxRequestBodyBytes before h sees
// it. Session bounds do not apply: h must keep no sessions. Wrap the result
// with BearerAuth to authenticate callers, and serve it with NewServer or
// ServeLoopback for the connection bounds.
func Front(h http.Handler, opts ...Option) http.Handler {
	cfg := newConfig(opts)
	return TraceHeaders(http.NewCrossOriginProtection().Handler(httpbase.ReadBodyWithin(h, cfg.RequestReadTimeout, cfg.MaxBodyBytes)))
}
