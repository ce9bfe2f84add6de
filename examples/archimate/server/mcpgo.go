package server

import (
	"net/http"

	mgoserver "github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/httpfront"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpgo"
)

// NewMCPGo is New on a mark3labs/mcp-go server: the same generated tools,
// previews and error hook, registered through runtime/mcpgo.
func NewMCPGo(repo Domain, opts ...runtime.Option) (*mgoserver.MCPServer, error) {
	s := mgoserver.NewMCPServer("archimate", runtime.Version, mgoserver.WithToolCapabilities(false))
	if err := mcpgo.Register(s, archimatev1mcpwrite.NewArchitectureService(repo), domainOptions(repo, opts)...); err != nil {
		return nil, err
	}
	return s, nil
}

// MCPGoHTTPHandler is HTTPHandler for an mcp-go server: bearer
// authentication against tokens in front of mcp-go's stateless streamable
// HTTP (mcpgo.StatelessHTTPHandler: trace headers, Origin checks, bounded
// bodies). mcp-go keeps no session a bound could count: every request
// carries its token and may reach any instance. The server must use
// mcpgo.RequestContextFromCall to read the identity. With no tokens there
// is no authentication (local development only).
func MCPGoHTTPHandler(s *mgoserver.MCPServer, tokens map[string]Identity, opts ...httpfront.Option) http.Handler {
	return authenticated(mcpgo.StatelessHTTPHandler(s, opts...), tokens)
}
