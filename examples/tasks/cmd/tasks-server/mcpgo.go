package main

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"

	mgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/gen/tasks/v1/tasksv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpgo"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcphttp"
)

// runMCPGo serves the same tools from a mark3labs/mcp-go server: the
// generated service registered through runtime/mcpgo, over stdio or
// streamable HTTP behind the same bearer authentication. Every call acts
// for dev, or over HTTP with tokens for the identity its bearer token
// carries (mcpgo.RequestContextFromCall).
func runMCPGo(ctx context.Context, httpAddr, tokens string, dev runtime.RequestContext, root string, opts []runtime.Option) error {
	devContext := func(context.Context, mgo.CallToolRequest) (runtime.RequestContext, bool) { return dev, true }
	rc := runtime.WithRequestContextFunc(devContext)
	if httpAddr != "" && tokens != "" {
		rc = runtime.WithRequestContextFunc(mcpgo.RequestContextFromCall)
	}
	opts = append(opts, rc)
	s := server.NewMCPServer("tasks-server", "0.1.0", server.WithToolCapabilities(false))
	if err := mcpgo.Register(s, tasksv1mcpwrite.NewTaskService(domain.New(root)), opts...); err != nil {
		return fmt.Errorf("register tools: %w", err)
	}
	if httpAddr == "" {
		return server.NewStdioServer(s).Listen(ctx, os.Stdin, os.Stdout)
	}
	if err := mcphttp.CheckLoopback(httpAddr); err != nil {
		return fmt.Errorf("-http: %w", err)
	}
	log.Printf("tasks-server: mcp-go streamable HTTP on http://%s/mcp", httpAddr)
	var h http.Handler = server.NewStreamableHTTPServer(s)
	if tokens != "" {
		hook, err := mcphttp.StaticTokens(tokens)
		if err != nil {
			return fmt.Errorf("-tokens: %w", err)
		}
		h = mcphttp.BearerAuth(hook)(h)
	}
	return mcphttp.ServeLoopback(ctx, httpAddr, h)
}
