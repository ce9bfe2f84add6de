// Package httpfront is what goes in front of any MCP SDK's streamable HTTP
// handler for a write server, without depending on one: bearer
// authentication (BearerAuth, StaticTokens) that records the verified
// tenant and principal for the SDK adapters, trace headers (TraceHeaders),
// cross-origin requests refused and request bodies read within their
// bounds (Front), an http.Server with production timeouts and connection
// caps (NewServer) and loopback-only serving for development
// (ServeLoopback, CheckLoopback).
//
// A mark3labs/mcp-go server builds with it and never links go-sdk:
//
//	s := server.NewMCPServer("tasks", "1.0.0", server.WithToolCapabilities(false))
//	err := tasksv1mcpwrite.RegisterTaskServiceTools(s, handler) // generated with sdk=mcp-go
//	...
//	h := httpfront.BearerAuth(hook)(mcpgo.StatelessHTTPHandler(s))
//	srv := httpfront.NewServer(h)
//	srv.Addr = ":8080"
//	log.Fatal(srv.ListenAndServe())
//
// runtime/mcphttp serves a go-sdk server behind the same front (its Handler
// adds go-sdk's sessions and their bounds) and takes the same options.
package httpfront
