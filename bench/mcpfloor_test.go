package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP floor: the physical floor's transaction behind a trivial go-sdk
// tool, called through the same in-process official client as ours. What
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
// e.floorWrite for the tenant in the call's _meta and answering with the
// response it stored (the SDK sends it as structured content and as text,
// as ours sends its answer).
func (e *durableEnv) mcpFloorServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcp-floor", Version: "test"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "floorWrite", Description: "Insert an element, its outbox row and its idempotency row in one transaction."},
		func(ctx context.Context, req *mcp.CallToolRequest, in floorArgs) (*mcp.CallToolResult, any, error) {
			tenant, _ := req.Params.GetMeta()["tenant"].(string)
			if tenant == "" || in.Name == "" || in.ClientRequestID == "" {
				return nil, nil, errors.New("floorWrite: want a tenant in _meta, a name and a client_request_id")
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

// mcpFloorWrite calls floorWrite with ours' arguments; a tool error is an
// error.
func mcpFloorWrite(ctx context.Context, cs *mcp.ClientSession, tenant string) error {
	n := writeSeq.Add(1)
	args := json.RawMessage(fmt.Sprintf(`{"type":"ApplicationComponent","name":"Svc-%d","description":"Handles order processing","client_request_id":"k-%d"}`, n, n))
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "floorWrite", Arguments: args, Meta: mcp.Meta{"tenant": tenant}})
	if err != nil {
		return err
	}
	if res.IsError {
		b, _ := json.Marshal(res.Content)
		return fmt.Errorf("floorWrite answered an error: %s", b)
	}
	return nil
}

// mcpFloorSessions connects n clients to s.
func mcpFloorSessions(b *testing.B, s *mcp.Server, n int) []*mcp.ClientSession {
	sessions := make([]*mcp.ClientSession, n)
	for i := range sessions {
		sessions[i] = connectInMemory(b, s)
	}
	return sessions
}
