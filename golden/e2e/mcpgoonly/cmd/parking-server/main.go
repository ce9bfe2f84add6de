// Command parking-server serves the parking tools, generated with
// sdk=mcp-go, from a mark3labs/mcp-go server over stdio, acting as -tenant
// and -principal. Its build links no go-sdk (TestServerLinksNoGoSDK).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/mcpgoonly"
	"github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/mcpgoonly/gen/parking/v1/parkingv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

var (
	tenant    = flag.String("tenant", "tenant-dev", "tenant the stdio session acts for")
	principal = flag.String("principal", "user-dev", "principal the stdio session acts for")
)

func main() {
	flag.Parse()
	if err := run(context.Background()); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context) error {
	s := server.NewMCPServer("parking", "1.0.0", server.WithToolCapabilities(false))
	who := runtime.RequestContext{TenantID: *tenant, PrincipalID: *principal}
	if err := parkingv1mcpwrite.RegisterParkingServiceTools(s, &mcpgoonly.Garage{},
		runtime.WithRequestContextFunc(runtime.StaticRequestContext(who))); err != nil {
		return fmt.Errorf("register tools: %w", err)
	}
	return server.NewStdioServer(s).Listen(ctx, os.Stdin, os.Stdout)
}
