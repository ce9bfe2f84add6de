// Package mcphttp serves an *mcp.Server (go-sdk) that has MCP write tools
// registered over MCP streamable HTTP, with what a write server needs in
// front of it: Handler (cross-origin requests refused, resumable streams,
// trace headers, bounded sessions bound to the identity that opened them,
// bounded request bodies), bearer authentication (BearerAuth, StaticTokens),
// the standard request context of an authenticated call
// (RequestContextFromCall, for runtime.WithRequestContextFunc), an
// http.Server with production timeouts (NewServer) and loopback-only serving
// for development (ServeLoopback, CheckLoopback).
//
// The SDK-neutral half (bearer authentication, trace headers, body and
// connection bounds, the server) is package httpfront, which an mcp-go
// server uses without linking go-sdk; the names here are that package's,
// and the options of both packages configure both.
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
