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
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/gen/crm/v1/crmv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/gosdk"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcphttp"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/secret"
)

func main() {
	httpAddr := flag.String("http", "", "serve streamable HTTP on this loopback address (e.g. 127.0.0.1:8080) instead of stdio")
	tenant := flag.String("tenant", "tenant-dev", "tenant of every call (development only)")
	principal := flag.String("principal", "user-dev", "acting CRM user of every call (development only)")
	tokens := flag.String("tokens", "", "HTTP: bearer tokens as token=tenant:principal, comma-separated (empty: every call acts as -tenant/-principal, development only)")
	var secrets secret.Flags
	secrets.Register(flag.CommandLine)
	flag.Parse()
	// Missing secrets are reported with the fix; weak ones are refused.
	secretOpt, err := secrets.RuntimeOption(nil, "", func(n string) { log.Print("crm-server: " + n) })
	if err != nil {
		log.Fatal(err)
	}
	if err := run(*httpAddr, *tokens, runtime.RequestContext{TenantID: *tenant, PrincipalID: *principal}, secretOpt); err != nil {
		log.Fatal(err)
	}
}

func run(httpAddr, tokens string, rc runtime.RequestContext, secrets runtime.Option) error {
	server := mcp.NewServer(&mcp.Implementation{Name: "crm", Version: runtime.Version}, nil)
	crm := domain.New(nil)
	err := crmv1mcpwrite.RegisterCrmServiceTools(server, crm,
		runtime.WithErrorHook(domain.ErrorHook),
		runtime.WithPreviews(runtime.Previews{State: crm.StatePreview, Loss: crm.PreviewLoss}),
		runtime.WithRequestContextFunc(contextFunc(httpAddr, tokens, rc)), secrets)
	if err != nil {
		return err
	}
	if httpAddr == "" {
		return server.Run(context.Background(), &mcp.StdioTransport{})
	}
	if err := mcphttp.CheckLoopback(httpAddr); err != nil {
		return fmt.Errorf("-http: %w", err)
	}
	fmt.Fprintf(os.Stderr, "crm MCP server on http://%s\n", httpAddr)
	h, err := httpHandler(server, tokens)
	if err != nil {
		return err
	}
	return mcphttp.ServeLoopback(context.Background(), httpAddr, h)
}

// contextFunc is where calls take tenant and principal from: the bearer
// token over HTTP with -tokens, otherwise the development flags.
func contextFunc(httpAddr, tokens string, rc runtime.RequestContext) func(context.Context, *mcp.CallToolRequest) (runtime.RequestContext, bool) {
	if httpAddr != "" && tokens != "" {
		return mcphttp.RequestContextFromCall
	}
	return gosdk.StaticRequestContext(rc)
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
