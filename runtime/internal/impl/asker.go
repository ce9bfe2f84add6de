package impl

import (
	"context"
	"encoding/json"
)

// Asker asks the user of the calling client to confirm a write, for the
// adapters that serve the runtime's tool handlers on another MCP library
// (runtime/mcpgo): their calls carry no go-sdk session to elicit through.
type Asker interface {
	// CanAsk reports whether the calling client declared form
	// elicitation; when false the call falls back as for a go-sdk client
	// without it (a proposal, or a refusal where the tool asks for one).
	CanAsk() bool
	// Ask sends elicitation/create with message and the form schema and
	// returns the user's action ("accept", "decline", "cancel") and the
	// form's content.
	Ask(ctx context.Context, message string, schema json.RawMessage) (action string, content map[string]any, err error)
}

type askerKey struct{}

// WithAsker returns ctx carrying a; the runtime asks through it when the
// call has no go-sdk session.
func WithAsker(ctx context.Context, a Asker) context.Context {
	return context.WithValue(ctx, askerKey{}, a)
}

// AskerFrom returns the Asker ctx carries, or nil.
func AskerFrom(ctx context.Context) Asker {
	a, _ := ctx.Value(askerKey{}).(Asker)
	return a
}
