// Command purchasing-server serves the purchasing MCP tools over stdio (the
// default) or streamable HTTP (-http), with an in-memory store holding a demo
// catalog and a fixed development tenant and principal. The development
// tenant's books start with one customer order (sales order 1: ten wall
// brackets) for fulfill_order to ship once they are made.
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

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/gen/purchasing/v1/purchasingv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcphttp"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/secret"
)

func main() {
	httpAddr := flag.String("http", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:8084) instead of stdio")
	tenant := flag.String("tenant", "dev-tenant", "tenant every call is made for (development only)")
	principal := flag.String("principal", "dev-user", "principal every call is made by (development only)")
	tokens := flag.String("tokens", "", "HTTP: bearer tokens as token=tenant:principal, comma-separated (empty: every call acts as -tenant/-principal, development only)")
	var secrets secret.Flags
	secrets.Register(flag.CommandLine)
	flag.Parse()
	// Missing secrets are reported with the fix; weak ones are refused.
	secretOpt, err := secrets.RuntimeOption(nil, "", func(n string) { log.Print("purchasing-server: " + n) })
	if err != nil {
		log.Fatal(err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *httpAddr, *tokens, *tenant, *principal, secretOpt); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, httpAddr, tokens, tenant, principal string, secrets runtime.Option) error {
	server := mcp.NewServer(&mcp.Implementation{Name: "purchasing-server", Version: "0.1.0"}, nil)
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
	store := domain.NewDemo()
	if _, err := store.PlaceSalesOrder(tenant, "Hansen Hardware", domain.SalesLine{SKU: "BRACKET-WALL", Quantity: 10}); err != nil {
		return fmt.Errorf("demo sales order: %w", err)
	}
	if err := purchasingv1mcpwrite.RegisterPurchasingServiceTools(server, store,
		runtime.WithRequestContextFunc(ctxFunc), runtime.WithErrorHook(domain.ErrorHook),
		runtime.WithPreviews(runtime.Previews{Check: store.Check}), secrets); err != nil {
		return fmt.Errorf("register tools: %w", err)
	}
	if httpAddr == "" {
		return server.Run(ctx, &mcp.StdioTransport{})
	}
	if err := mcphttp.CheckLoopback(httpAddr); err != nil {
		return fmt.Errorf("-http: %w", err)
	}
	log.Printf("purchasing-server: streamable HTTP on http://%s", httpAddr)
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
