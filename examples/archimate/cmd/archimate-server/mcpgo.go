package main

import (
	"context"
	"fmt"
	"os"

	mgoserver "github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpgo"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcphttp"
)

// serveMCPGo serves the tools from a mark3labs/mcp-go server (-sdk mcp-go):
// over stdio as dev, or over stateless streamable HTTP on addr, with bearer
// tokens when given (else every call acts as dev).
func serveMCPGo(repo server.Domain, addr, tokens string, dev runtime.RequestContext, stores []runtime.Option) error {
	if addr == "" {
		s, err := server.NewMCPGo(repo, append(stores, runtime.WithRequestContextFunc(runtime.StaticRequestContext(dev)))...)
		if err != nil {
			return err
		}
		return mgoserver.NewStdioServer(s).Listen(context.Background(), os.Stdin, os.Stdout)
	}
	if err := mcphttp.CheckLoopback(addr); err != nil {
		return fmt.Errorf("-http: %w", err)
	}
	var table map[string]server.Identity
	rc := runtime.WithRequestContextFunc(runtime.StaticRequestContext(dev))
	if tokens != "" {
		t, err := server.ParseTokens(tokens)
		if err != nil {
			return err
		}
		table, rc = t, runtime.WithRequestContextFunc(mcpgo.RequestContextFromCall)
	}
	s, err := server.NewMCPGo(repo, append(stores, rc)...)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "archimate MCP server (mcp-go, stateless) on http://%s (bearer tokens: %d)\n", addr, len(table))
	return mcphttp.ServeLoopback(context.Background(), addr, server.MCPGoHTTPHandler(s, table))
}
