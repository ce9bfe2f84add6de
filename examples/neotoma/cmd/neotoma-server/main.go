// Command neotoma-server serves Neotoma's MCP tools (store, reinterpret,
// correct, merge_entities, create_relationship, register_schema,
// update_schema_incremental and fourteen reads) over stdio (default) or
// streamable HTTP (-http 127.0.0.1:8080). store's file_path reads files
// under -files only.
//
// The acting user comes from the transport in production; for local use the
// tenant and principal (the Neotoma user) are fixed by flags.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1/neotomav1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcphttp"
)

func main() {
	httpAddr := flag.String("http", "", "serve streamable HTTP on this loopback address (e.g. 127.0.0.1:8080) instead of stdio")
	tenant := flag.String("tenant", "tenant-dev", "tenant of every call (development only)")
	principal := flag.String("principal", "user-dev", "acting Neotoma user of every call (development only)")
	tokens := flag.String("tokens", "", "HTTP: bearer tokens as token=tenant:principal, comma-separated (empty: every call acts as -tenant/-principal, development only)")
	files := flag.String("files", "", "directory store's file_path may read (empty: file_path is refused)")
	flag.Parse()
	if err := run(*httpAddr, *tokens, *files, runtime.RequestContext{TenantID: *tenant, PrincipalID: *principal}); err != nil {
		log.Fatal(err)
	}
}

func run(httpAddr, tokens, files string, rc runtime.RequestContext) error {
	server := mcp.NewServer(&mcp.Implementation{Name: "neotoma", Version: runtime.Version}, nil)
	mem := domain.New(nil)
	mem.SetFiles(domain.FileOptions{Root: files})
	err := neotomav1mcpwrite.RegisterMemoryServiceTools(server, mem,
		runtime.WithErrorHook(domain.ErrorHook),
		runtime.WithVocabulary(mem.EntityTypeVocabulary()),
		runtime.WithRequestContextFunc(contextFunc(httpAddr, tokens, rc)))
	if err != nil {
		return err
	}
	if httpAddr == "" {
		return server.Run(context.Background(), &mcp.StdioTransport{})
	}
	if err := mcphttp.CheckLoopback(httpAddr); err != nil {
		return fmt.Errorf("-http: %w", err)
	}
	fmt.Fprintf(os.Stderr, "neotoma MCP server on http://%s\n", httpAddr)
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
	return runtime.StaticRequestContext(rc)
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
