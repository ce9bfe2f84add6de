package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	mgo "github.com/mark3labs/mcp-go/mcp"
	mgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcphttp"
)

// The MCP floor: the physical floor's transaction behind a trivial go-sdk
// tool, served and called like ours (the same stateless streamable HTTP
// handler and bearer tokens, the same load driver client). What
// it costs over the physical floor is what any MCP tool on this SDK pays
// per call (JSON-RPC framing, the per-request _meta, the result's
// decoding); what ours costs over it is the runtime's and the domain's
// own work.

// floorArgs are createElement's arguments, as the trivial tool takes them.
type floorArgs struct {
	Type            string `json:"type"`
	Name            string `json:"name"`
	Description     string `json:"description"`
	ClientRequestID string `json:"client_request_id"`
}

// mcpFloorServer is a go-sdk server with one tool, floorWrite, running
// e.floorWrite for the tenant of the call's bearer token and answering with the
// response it stored (the SDK sends it as structured content and as text,
// as ours sends its answer).
func (e *durableEnv) mcpFloorServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcp-floor", Version: "test"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "floorWrite", Description: "Insert an element, its outbox row and its idempotency row in one transaction."},
		func(ctx context.Context, req *mcp.CallToolRequest, in floorArgs) (*mcp.CallToolResult, any, error) {
			rc, _ := mcphttp.RequestContextFromCall(ctx, req)
			tenant := rc.TenantID
			if tenant == "" || in.Name == "" || in.ClientRequestID == "" {
				return nil, nil, errors.New("floorWrite: want a tenant (bearer token), a name and a client_request_id")
			}
			resp, err := e.floorWriteResp(ctx, tenant)
			if err != nil {
				return nil, nil, err
			}
			// The created element, as structured content and as text.
			return nil, json.RawMessage(resp), nil
		})
	return s
}

// mcpFloorWrite calls floorWrite with ours' arguments as tenant; a tool
// error is an error.
func mcpFloorWrite(ctx context.Context, d *mcpDriver, tenant string) error {
	n := writeSeq.Add(1)
	args := fmt.Sprintf(`{"type":"ApplicationComponent","name":"Svc-%d","description":"Handles order processing","client_request_id":"k-%d"}`, n, n)
	return d.callTool(tenantToken(tenant), "floorWrite", args)
}

// mcpFloorServerMCPGo is mcpFloorServer on a mark3labs/mcp-go server: the
// same trivial tool around the same transaction, the tenant from the same
// bearer token, the created element as structured content and as text.
func (e *durableEnv) mcpFloorServerMCPGo() *mgoserver.MCPServer {
	s := mgoserver.NewMCPServer("mcp-floor", "test", mgoserver.WithToolCapabilities(false))
	tool := mgo.NewTool("floorWrite", mgo.WithDescription("Insert an element, its outbox row and its idempotency row in one transaction."),
		mgo.WithString("type"), mgo.WithString("name"), mgo.WithString("description"), mgo.WithString("client_request_id"))
	s.AddTool(tool, mgo.NewStructuredToolHandler(func(ctx context.Context, req mgo.CallToolRequest, in floorArgs) (json.RawMessage, error) {
		tenant, _, _ := mcphttp.TokenIdentity(auth.TokenInfoFromContext(ctx))
		if tenant == "" || in.Name == "" || in.ClientRequestID == "" {
			return nil, errors.New("floorWrite: want a tenant (bearer token), a name and a client_request_id")
		}
		resp, err := e.floorWriteResp(ctx, tenant)
		if err != nil {
			return nil, err
		}
		return json.RawMessage(resp), nil
	}))
	return s
}
