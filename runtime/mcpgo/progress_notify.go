package mcpgo

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
)

// progressOf sends the runtime's progress notifications (the operations
// tool's waits) to the calling client through s, as notifications/progress.
func progressOf(s *server.MCPServer) func(ctx context.Context, token any, progress, total float64, message string) error {
	return func(ctx context.Context, token any, progress, total float64, message string) error {
		params := map[string]any{"progressToken": token, "progress": progress}
		if total > 0 {
			params["total"] = total
		}
		if message != "" {
			params["message"] = message
		}
		return s.SendNotificationToClient(ctx, "notifications/progress", params)
	}
}
