package mcphttp

import "net/http"

// Front puts in front of another SDK's stateless streamable HTTP handler
// (mark3labs/mcp-go's, see mcpgo.StatelessHTTPHandler) what Handler puts in
// front of go-sdk's with WithStateless: trace headers (TraceHeaders),
// cross-origin requests refused, and the request body read within
// WithRequestReadTimeout and WithMaxRequestBodyBytes before h sees it.
// Session bounds do not apply: h must keep no sessions. Wrap the result
// with BearerAuth to authenticate callers, and serve it with NewServer or
// ServeLoopback for the connection bounds.
func Front(h http.Handler, opts ...Option) http.Handler {
	cfg := newHTTPConfig(opts)
	return TraceHeaders(http.NewCrossOriginProtection().Handler(readBodyWithin(h, cfg.requestReadTimeout, cfg.maxBodyBytes)))
}
