// Command tasks-server serves the task tracker's MCP write tools over stdio
// (the default) or streamable HTTP (-http), with an in-memory store and a
// fixed development tenant and principal, from a go-sdk server or, with
// -mcp-go, from a mark3labs/mcp-go server (runtime/mcpgo).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/gen/tasks/v1/tasksv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcphttp"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/secret"
)

func main() {
	httpAddr := flag.String("http", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:8082) instead of stdio")
	tenant := flag.String("tenant", "dev-tenant", "tenant every call is made for (development only)")
	principal := flag.String("principal", "dev-user", "principal every call is made by (development only)")
	root := flag.String("root", "/projects", "base directory of the tenants' project roots")
	mcpGo := flag.Bool("mcp-go", false, "serve from a github.com/mark3labs/mcp-go server instead of the official go-sdk")
	compact := flag.Bool("compact", false, "list the write tools compactly (runtime.WithCompactList); get_write_schema describes each in full")
	tokens := flag.String("tokens", "", "HTTP: bearer tokens as token=tenant:principal, comma-separated (empty: every call acts as -tenant/-principal, development only)")
	var secrets secret.Flags
	secrets.Register(flag.CommandLine)
	flag.Parse()
	// Missing secrets are reported with the fix; weak ones are refused.
	secretOpt, err := secrets.RuntimeOption(nil, "", func(n string) { log.Print("tasks-server: " + n) })
	if err != nil {
		log.Fatal(err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *mcpGo, *compact, *httpAddr, *tokens, *tenant, *principal, *root, secretOpt); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, mcpGo, compact bool, httpAddr, tokens, tenant, principal, root string, secrets runtime.Option) error {
	// A development server has no authentication, so every call acts for the
	// tenant and principal given on the command line; a production server
	// derives them from its auth layer instead.
	devContext := func(_ context.Context, req *mcp.CallToolRequest) (runtime.RequestContext, bool) {
		rc := runtime.RequestContext{TenantID: tenant, PrincipalID: principal}
		if req != nil && req.Session != nil {
			rc.SessionID = req.Session.ID()
		}
		return rc, true
	}
	ctxFunc := devContext
	if httpAddr != "" && tokens != "" {
		ctxFunc = mcphttp.RequestContextFromCall // identity from the bearer token
	}
	opts := []runtime.Option{secrets}
	if compact {
		opts = append(opts, runtime.WithCompactList())
	}
	if mcpGo {
		return runMCPGo(ctx, httpAddr, tokens, runtime.RequestContext{TenantID: tenant, PrincipalID: principal}, root, opts)
	}
	opts = append(opts, runtime.WithRequestContextFunc(ctxFunc))
	server := mcp.NewServer(&mcp.Implementation{Name: "tasks-server", Version: "0.1.0"}, nil)
	tracker := domain.New(root)
	// Deleting a task that does not exist, or a parent without cascade, is
	// refused before the user is asked to confirm it.
	opts = append(opts, runtime.WithPreviews(runtime.Previews{Check: tracker.Check}))
	if err := tasksv1mcpwrite.RegisterTaskServiceTools(server, tracker, opts...); err != nil {
		return fmt.Errorf("register tools: %w", err)
	}
	if httpAddr == "" {
		return server.Run(ctx, &mcp.StdioTransport{})
	}
	if err := mcphttp.CheckLoopback(httpAddr); err != nil {
		return fmt.Errorf("-http: %w", err)
	}
	log.Printf("tasks-server: streamable HTTP on http://%s", httpAddr)
	h, err := httpHandler(server, tokens)
	if err != nil {
		return err
	}
	return mcphttp.ServeLoopback(ctx, httpAddr, h)
}

// httpHandler serves server over streamable HTTP, behind bearer
// authentication when tokens are given.
func httpHandler(server *mcp.Server, tokens string) (http.Handler, error) {
	h := mcphttp.Handler(server)
	if tokens == "" {
		return h, nil
	}
	hook, err := mcphttp.StaticTokens(tokens)
	if err != nil {
		return nil, fmt.Errorf("-tokens: %w", err)
	}
	return mcphttp.BearerAuth(hook)(h), nil
}
