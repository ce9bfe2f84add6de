// Package server assembles the reference example's MCP server: the
// generated tools over the in-memory domain, and the HTTP stack (trace
// headers, bearer authentication, Origin checks, streamable HTTP).
package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcphttp"
)

// Domain is what the server needs of a repository: the tools' handler and
// the previews confirmations show (domain.Repository in memory,
// pgdomain.Repository on PostgreSQL).
type Domain interface {
	archimatev1mcpwrite.ArchitectureServiceHandler
	PreviewLoss(ctx context.Context, tool string, req proto.Message) (string, error)
	StatePreview(ctx context.Context, tool string, req proto.Message) (runtime.EntityState, bool, error)
	Check(ctx context.Context, tool string, req proto.Message) (map[string]any, error)
	EnrichError(ctx context.Context, tool string, req proto.Message, e *runtime.ErrorEntry)
}

var _ Domain = (*domain.Repository)(nil)

// New returns an MCP server with the generated tools over repo.
func New(repo Domain, opts ...runtime.Option) (*mcp.Server, error) {
	s := mcp.NewServer(&mcp.Implementation{Name: "archimate", Version: runtime.Version}, nil)
	if err := archimatev1mcpwrite.RegisterArchitectureServiceTools(s, repo, domainOptions(repo, opts)...); err != nil {
		return nil, err
	}
	return s, nil
}

// domainOptions puts the domain's own options before opts: confirmations
// and proposals of updates and deletes say what is lost and are bound to the
// state of the element the user was shown; invalid types are answered in
// the source design's words (INVALID_ELEMENT_TYPE).
func domainOptions(repo Domain, opts []runtime.Option) []runtime.Option {
	return append([]runtime.Option{runtime.WithPreviews(runtime.Previews{Loss: repo.PreviewLoss, State: repo.StatePreview, Check: repo.Check}), runtime.WithErrorHook(repo.EnrichError)}, opts...)
}

// Identity is who a bearer token acts as.
type Identity struct{ Tenant, Principal string }

// HTTPHandler is the HTTP stack in front of s: trace headers, bearer
// authentication against tokens, Origin checks, then streamable HTTP. The
// server must use mcphttp.RequestContextFromCall to read the identity. With
// no tokens there is no authentication (local development only). opts
// configure the transport (mcphttp.WithStateless, its bounds).
func HTTPHandler(s *mcp.Server, tokens map[string]Identity, opts ...mcphttp.Option) http.Handler {
	return authenticated(mcphttp.Handler(s, opts...), tokens)
}

// authenticated wraps h with bearer authentication against tokens; with no
// tokens it returns h (local development only).
func authenticated(h http.Handler, tokens map[string]Identity) http.Handler {
	if len(tokens) == 0 {
		return h
	}
	hook := func(_ context.Context, token string) (string, string, error) {
		id, ok := tokens[token]
		if !ok {
			return "", "", errors.New("unknown token")
		}
		return id.Tenant, id.Principal, nil
	}
	return mcphttp.BearerAuth(hook)(h)
}

// ParseTokens reads "token=tenant:principal,..." as given on the command line.
func ParseTokens(s string) (map[string]Identity, error) {
	out := map[string]Identity{}
	for _, entry := range strings.Split(s, ",") {
		token, who, ok := strings.Cut(strings.TrimSpace(entry), "=")
		tenant, principal, ok2 := strings.Cut(who, ":")
		if !ok || !ok2 || token == "" || tenant == "" || principal == "" {
			return nil, fmt.Errorf("-tokens: %q is not token=tenant:principal", entry)
		}
		out[token] = Identity{Tenant: tenant, Principal: principal}
	}
	return out, nil
}
