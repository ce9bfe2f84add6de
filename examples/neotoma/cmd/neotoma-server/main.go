// Command neotoma-server serves Neotoma's MCP tools (store, reinterpret,
// correct, merge_entities, create_relationship, register_schema,
// update_schema_incremental and fourteen reads) over stdio (default) or
// streamable HTTP (-http 127.0.0.1:8080). store's file_path reads files
// under -files only.
//
// The acting user comes from the transport in production; for local use the
// tenant and principal (the Neotoma user) are fixed by flags. Signed file
// URLs (retrieve_file_url) are read as MCP resources (neotoma://files/...),
// which verify the signature, the expiry, the tenant and the user; their key
// comes from -file-url-key-file or NEOTOMA_FILE_URL_KEY, the runtime's from
// -id-secret-file / MCPWRITE_ID_SECRET and -signing-key-file /
// MCPWRITE_SIGNING_KEY (package runtime/secret).
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
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/gosdk"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcphttp"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/secret"
)

func main() {
	httpAddr := flag.String("http", "", "serve streamable HTTP on this loopback address (e.g. 127.0.0.1:8080) instead of stdio")
	tenant := flag.String("tenant", "tenant-dev", "tenant of every call (development only)")
	principal := flag.String("principal", "user-dev", "acting Neotoma user of every call (development only)")
	tokens := flag.String("tokens", "", "HTTP: bearer tokens as token=tenant:principal, comma-separated (empty: every call acts as -tenant/-principal, development only)")
	files := flag.String("files", "", "directory store's file_path may read (empty: file_path is refused)")
	var secrets secret.Flags
	secrets.Register(flag.CommandLine)
	urlKeyFile := flag.String("file-url-key-file", "", "file holding the key (at least 32 random bytes) that signs retrieve_file_url's URLs, the same on every instance (default: $"+envFileURLKey+", else random per process)")
	flag.Parse()
	notice := func(n string) { log.Print("neotoma-server: " + n) }
	secretOpt, err := secrets.RuntimeOption(nil, "", notice)
	if err != nil {
		log.Fatal(err)
	}
	urlKey, n, err := secret.Load(secret.Spec{
		Name: "file URL key", FileFlag: "-file-url-key-file", File: *urlKeyFile, Env: envFileURLKey,
		Fallback: "retrieve_file_url signs with a random key of this process, so its URLs stop verifying when the process restarts and on any other instance",
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	if n != "" {
		notice(n)
	}
	if err := run(*httpAddr, *tokens, *files, runtime.RequestContext{TenantID: *tenant, PrincipalID: *principal}, urlKey, secretOpt); err != nil {
		log.Fatal(err)
	}
}

// envFileURLKey may hold the key that signs file URLs.
const envFileURLKey = "NEOTOMA_FILE_URL_KEY"

func run(httpAddr, tokens, files string, rc runtime.RequestContext, urlKey []byte, secrets runtime.Option) error {
	server := mcp.NewServer(&mcp.Implementation{Name: "neotoma", Version: runtime.Version}, nil)
	mem := domain.New(nil)
	mem.SetFiles(domain.FileOptions{Root: files})
	if urlKey != nil {
		mem.SetURLKey(urlKey)
	}
	err := neotomav1mcpwrite.RegisterMemoryServiceTools(server, mem,
		runtime.WithErrorHook(domain.ErrorHook),
		runtime.WithVocabulary(mem.EntityTypeVocabulary()),
		runtime.WithRequestContextFunc(contextFunc(httpAddr, tokens, rc)), secrets)
	if err != nil {
		return err
	}
	// The URLs retrieve_file_url signs are read (and verified) here.
	domain.AddFileResource(server, mem, readerFunc(httpAddr, tokens, rc), nil)
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
	return gosdk.StaticRequestContext(rc)
}

// readerFunc is who reads a file resource: the bearer token's tenant and
// principal over HTTP with -tokens, otherwise the development flags.
func readerFunc(httpAddr, tokens string, rc runtime.RequestContext) domain.Identity {
	if httpAddr != "" && tokens != "" {
		return func(_ context.Context, req *mcp.ReadResourceRequest) (string, string, bool) {
			if req.Extra == nil {
				return "", "", false
			}
			return mcphttp.TokenIdentity(req.Extra.TokenInfo)
		}
	}
	return func(context.Context, *mcp.ReadResourceRequest) (string, string, bool) {
		return rc.TenantID, rc.PrincipalID, rc.TenantID != "" && rc.PrincipalID != ""
	}
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
