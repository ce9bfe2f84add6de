package runtime

import (
	"context"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// Outcomes of a call.
const (
	outcomeError         = "error"          // an isError result; ErrorCode says which
	outcomeProposed      = "proposed"       // a proposal waits for the user
	outcomeInputRequired = "input_required" // the client must ask the user and call again
)

// Proposal and confirmation events of a call.
const (
	proposalApplied   = "applied"
	proposalDiscarded = "discarded"
	proposalExpired   = "expired"

	confirmationAsked     = "asked"
	confirmationAccepted  = "accepted"
	confirmationDeclined  = "declined"
	confirmationCancelled = "cancelled"
	confirmationStale     = "stale"
)

// observe wraps a handler with the configured observer.
func (r *registry) observe(tool string, h toolcall.Handler) toolcall.Handler {
	obs := r.cfg.observer
	if obs == nil {
		return h
	}
	return func(ctx context.Context, req *toolcall.Request) (*toolcall.Result, error) {
		rc, hasRC := r.requestContext(ctx, req)
		// The handler reads the same request context instead of resolving
		// it again: WithRequestContextFunc runs once per call.
		ctx = context.WithValue(ctx, resolvedKey{}, resolvedContext{rc, hasRC})
		ctx = obs.CallStarted(ctx, CallStart{Tool: tool, RequestContext: rc, HasRequestContext: hasRC})
		causes := &hiddenCauses{}
		ctx = context.WithValue(ctx, hiddenCausesKey{}, causes)
		start := time.Now()
		res, err := h(ctx, req)
		end := r.callEnd(tool, req, res)
		end.Duration = time.Since(start)
		if end.ErrorTraceID != "" {
			end.Cause = causes.get(end.ErrorTraceID)
		}
		obs.CallEnded(ctx, end)
		return res, err
	}
}

// callEnd reads what happened from the result the agent receives.
func (r *registry) callEnd(tool string, req *toolcall.Request, res *toolcall.Result) CallEnd {
	end := CallEnd{Tool: tool, Outcome: outcomeSuccess}
	if wt, ok := r.tools[tool]; ok {
		end.Read = wt.read
	}
	if res == nil {
		end.Outcome, end.ErrorCode = outcomeError, impl.CodeInternal
		return end
	}
	if res.NeedsInput() {
		end.Outcome, end.Confirmation = outcomeInputRequired, confirmationAsked
		return end
	}
	var facts resultFacts
	if raw := res.StructuredContent; raw != nil {
		facts = readResultFacts(raw)
	}
	end.Replay = facts.replay
	switch {
	case res.IsError:
		end.Outcome = outcomeError
		end.ErrorCode, end.ErrorTraceID = facts.code, facts.traceID
		switch end.ErrorCode {
		case impl.CodeConfirmationDeclined:
			end.Confirmation = confirmationDeclined
		case impl.CodeConfirmationCancelled:
			end.Confirmation = confirmationCancelled
		case impl.CodeProposalStale:
			end.Confirmation = confirmationStale
		case impl.CodeProposalExpired:
			end.Proposal = proposalExpired
		}
	case facts.proposal:
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
