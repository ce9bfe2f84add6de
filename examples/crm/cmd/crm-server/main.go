// Command crm-server serves the CRM MCP write tools (people, organisations,
// notes; every write a proposal) over stdio (default) or streamable
// HTTP (-http 127.0.0.1:8080).
//
// The acting user comes from the transport in production; for local use the
// tenant and principal (the CRM user) are fixed by flags.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/gen/crm/v1/crmv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

func main() {
	httpAddr := flag.String("http", "", "serve streamable HTTP on this loopback address (e.g. 127.0.0.1:8080) instead of stdio")
	tenant := flag.String("tenant", "tenant-dev", "tenant of every call (development only)")
	principal := flag.String("principal", "user-dev", "acting CRM user of every call (development only)")
	flag.Parse()
	if err := run(*httpAddr, runtime.RequestContext{TenantID: *tenant, PrincipalID: *principal}); err != nil {
		log.Fatal(err)
	}
}

func run(httpAddr string, rc runtime.RequestContext) error {
	server := mcp.NewServer(&mcp.Implementation{Name: "crm", Version: runtime.Version}, nil)
	err := crmv1mcpwrite.RegisterCrmServiceTools(server, domain.New(nil),
		runtime.WithErrorHook(domain.ErrorHook),
		runtime.WithRequestContextFunc(func(context.Context, *mcp.CallToolRequest) (runtime.RequestContext, bool) { return rc, true }))
	if err != nil {
		return err
	}
	if httpAddr == "" {
		return server.Run(context.Background(), &mcp.StdioTransport{})
	}
	if err := runtime.CheckLoopback(httpAddr); err != nil {
		return fmt.Errorf("-http: %w", err)
	}
	fmt.Fprintf(os.Stderr, "crm MCP server on http://%s\n", httpAddr)
	return runtime.ServeLoopback(context.Background(), httpAddr, runtime.StreamableHTTPHandler(server))
}
