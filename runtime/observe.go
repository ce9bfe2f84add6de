package runtime

import (
	"context"
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
)

// Observer sees every tool call the runtime registers: write tools, service
// tools (validate, schema, apply, discard) and discovery tools. Telemetry
// lives behind it, so the runtime itself depends on no telemetry library;
// runtime/otelmcp implements it with OpenTelemetry. Without WithObserver
// nothing is measured and nothing is parsed.
type Observer interface {
	// CallStarted runs before the tool; the context it returns (carrying a
	// span, say) is the one the tool runs with.
	CallStarted(ctx context.Context, call CallStart) context.Context
	// CallEnded runs after the tool answered, with what happened.
	CallEnded(ctx context.Context, call CallEnd)
}

// CallStart is a tool call about to run.
type CallStart struct {
	Tool string
	// RequestContext is the caller as the runtime resolved it (tenant,
	// principal, correlation, the incoming traceparent); HasRequestContext
	// is false when the call has none.
	RequestContext    RequestContext
	HasRequestContext bool
}

// Outcomes of a call.
const (
	outcomeSuccess       = "success"        // the write (or read) succeeded
	outcomeError         = "error"          // an isError result; ErrorCode says which
	outcomeProposed      = "proposed"       // a proposal waits for the user
	outcomeInputRequired = "input_required" // the client must ask the user and call again
)

// Proposal and confirmation events of a call.
const (
	proposalCreated   = "created"
	proposalApplied   = "applied"
	proposalDiscarded = "discarded"
	proposalExpired   = "expired"

	confirmationAsked     = "asked"
	confirmationAccepted  = "accepted"
	confirmationDeclined  = "declined"
	confirmationCancelled = "cancelled"
	confirmationStale     = "stale"
)

// CallEnd is a finished tool call.
type CallEnd struct {
	Tool string
	// Outcome is "success" (the write or read succeeded), "error" (an
	// isError result; ErrorCode says which), "proposed" (a proposal waits
	// for the user) or "input_required" (the client must ask the user and
	// call again).
	Outcome   string
	ErrorCode string // the first error's code when Outcome is "error"
	Replay    bool   // answered from an idempotency record
	// Proposal is what happened to a proposal: "created", "applied",
	// "discarded", "expired", or "".
	Proposal string
	// Confirmation is what happened to a confirmation: "asked",
	// "accepted", "declined", "cancelled", "stale", or "".
	Confirmation string
	// Read: the tool is a read tool (kind READ), which changes nothing.
	Read     bool
	Duration time.Duration
}

// WithObserver reports every tool call to o (see runtime/otelmcp).
func WithObserver(o Observer) Option {
	return option(func(c *config) { c.observer = o })
}

// observe wraps a handler with the configured observer.
func (r *registry) observe(tool string, h mcp.ToolHandler) mcp.ToolHandler {
	obs := r.cfg.observer
	if obs == nil {
		return h
	}
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		rc, hasRC := r.requestContext(ctx, req)
		// The handler reads the same request context instead of resolving
		// it again: WithRequestContextFunc runs once per call.
		ctx = context.WithValue(ctx, resolvedKey{}, resolvedContext{rc, hasRC})
		ctx = obs.CallStarted(ctx, CallStart{Tool: tool, RequestContext: rc, HasRequestContext: hasRC})
		start := time.Now()
		res, err := h(ctx, req)
		end := r.callEnd(tool, req, res)
		end.Duration = time.Since(start)
		obs.CallEnded(ctx, end)
		return res, err
	}
}

// callEnd reads what happened from the result the agent receives.
func (r *registry) callEnd(tool string, req *mcp.CallToolRequest, res *mcp.CallToolResult) CallEnd {
	end := CallEnd{Tool: tool, Outcome: outcomeSuccess}
	if wt, ok := r.tools[tool]; ok {
		end.Read = wt.read
	}
	if res == nil {
		end.Outcome, end.ErrorCode = outcomeError, mcpwriteimpl.CodeInternal
		return end
	}
	if res.NeedsInput() {
		end.Outcome, end.Confirmation = outcomeInputRequired, confirmationAsked
		return end
	}
	var body struct {
		Error *struct {
			Code string `json:"code"`
		} `json:"error"`
		Replay   bool            `json:"idempotent_replay"`
		Proposal json.RawMessage `json:"proposal"`
	}
	if raw, ok := res.StructuredContent.(json.RawMessage); ok {
		_ = json.Unmarshal(raw, &body)
	}
	end.Replay = body.Replay
	switch {
	case res.IsError:
		end.Outcome = outcomeError
		if body.Error != nil {
			end.ErrorCode = body.Error.Code
		}
		switch end.ErrorCode {
		case mcpwriteimpl.CodeConfirmationDeclined:
			end.Confirmation = confirmationDeclined
		case mcpwriteimpl.CodeConfirmationCancelled:
			end.Confirmation = confirmationCancelled
		case mcpwriteimpl.CodeProposalStale:
			end.Confirmation = confirmationStale
		case mcpwriteimpl.CodeProposalExpired:
			end.Proposal = proposalExpired
		}
	case len(body.Proposal) > 0 && string(body.Proposal) != "null":
		end.Outcome, end.Proposal = outcomeProposed, proposalCreated
	case tool == r.svc.ApplyTool:
		end.Proposal = proposalApplied
	case tool == r.svc.DiscardTool:
		end.Proposal = proposalDiscarded
	}
	if !res.IsError && req != nil && isRoundTripAnswer(req) {
		end.Confirmation = confirmationAccepted
	}
	return end
}
