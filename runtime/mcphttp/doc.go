// Package mcphttp serves an *mcp.Server that has MCP write tools
// registered (package runtime) over MCP streamable HTTP, with what a write
// server needs in front of it: Handler (cross-origin requests refused,
// resumable streams, trace headers, bounded sessions and request bodies),
// bearer authentication (BearerAuth, StaticTokens), the standard request
// context of an authenticated call (RequestContextFromCall, for
// runtime.WithRequestContextFunc), an http.Server with production timeouts
// (NewServer) and loopback-only serving for development (ServeLoopback,
// CheckLoopback).
//
//	s := mcp.NewServer(&mcp.Implementation{Name: "tasks", Version: "1.0.0"}, nil)
//	err := tasksv1mcpwrite.RegisterTaskServiceTools(s, handler,
//		runtime.WithRequestContextFunc(mcphttp.RequestContextFromCall))
//	...
//	h := mcphttp.BearerAuth(hook)(mcphttp.Handler(s))
//	srv := mcphttp.NewServer(h)
//	srv.Addr = ":8080"
//	log.Fatal(srv.ListenAndServe())
package mcphttp
