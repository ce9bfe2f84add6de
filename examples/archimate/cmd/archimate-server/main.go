// Command archimate-server serves the reference example's MCP write tools
// over stdio (default) or streamable HTTP (-http 127.0.0.1:8080).
//
// Tenant and principal come from the transport in production (see the
// runtime's HTTP middleware); for local use they are fixed by flags.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

func main() {
	httpAddr := flag.String("http", "", "serve streamable HTTP on this loopback address (e.g. 127.0.0.1:8080) instead of stdio")
	tenant := flag.String("tenant", "tenant-dev", "tenant of every call (development only)")
	principal := flag.String("principal", "user-dev", "principal of every call (development only)")
	flag.Parse()
	if err := run(*httpAddr, runtime.RequestContext{TenantID: *tenant, PrincipalID: *principal}); err != nil {
		log.Fatal(err)
	}
}

func run(httpAddr string, rc runtime.RequestContext) error {
	server := mcp.NewServer(&mcp.Implementation{Name: "archimate", Version: runtime.Version}, nil)
	err := archimatev1mcpwrite.RegisterArchitectureServiceTools(server, domain.New(),
		runtime.WithRequestContextFunc(func(context.Context, *mcp.CallToolRequest) (runtime.RequestContext, bool) { return rc, true }))
	if err != nil {
		return err
	}
	if httpAddr == "" {
		return server.Run(context.Background(), &mcp.StdioTransport{})
	}
	host, _, err := net.SplitHostPort(httpAddr)
	if err != nil {
		return fmt.Errorf("-http %q: %w", httpAddr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("-http %q: only loopback addresses are served; put a reverse proxy with authentication in front for anything else", httpAddr)
	}
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	fmt.Fprintf(os.Stderr, "archimate MCP server on http://%s\n", httpAddr)
	return http.ListenAndServe(httpAddr, handler)
}
