package runtime

// Helpers every stage and entry point uses to build an answer: the clock, the
// error result and body, rendering, handler errors, next steps and warnings.
// Stages return these results; none calls back into the orchestrator.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// now is the configured clock.
func (a *answers) now() time.Time { return a.cfg.clock() }

// errorBody lets the domain hook amend the entries and renders the envelope.
func (a *answers) errorBody(ctx context.Context, tool string, req proto.Message, es impl.Errors) []byte {
	if a.cfg.errorHook != nil {
		for _, e := range es {
			if e != nil {
				a.cfg.errorHook(ctx, tool, req, e)
			}
		}
	}
	return a.render(ctx, tool, errorEnvelope(es))
}

// errorResult is errorBody as an isError tool result.
func (a *answers) errorResult(ctx context.Context, tool string, req proto.Message, es impl.Errors) *mcp.CallToolResult {
	return toolResult(a.errorBody(ctx, tool, req, es), true)
}

// render marshals an envelope; a value that cannot be marshalled is a bug,
// answered as INTERNAL rather than a protocol error.
func (a *answers) render(ctx context.Context, tool string, o object) []byte {
	b, err := marshalJSON(o)
	if err != nil {
		e := a.internal(ctx, tool, fmt.Errorf("marshal result: %w", err))
		b, _ = marshalJSON(errorEnvelope(impl.Errors{e}))
	}
	return b
}

// handlerError maps a handler error; an Aborted answer gets a hint that says
// what was already tried.
func (a *answers) handlerError(ctx context.Context, wt *boundTool, m proto.Message, err error) (impl.Errors, errClass) {
	es, class := a.classify(ctx, wt.doc.Name, err)
	if status.Code(err) == codes.Aborted && len(es) == 1 {
		hint := "The target changed while writing. Read its current state and retry."
		if n := wt.doc.RetryOnConflict; n > 0 {
			hint = fmt.Sprintf("The target changed while writing; the server retried %d time(s) with fresh values. Read its current state and retry.", n)
		}
		es[0].Suggestions = mergeHint(es[0].Suggestions, hint)
	}
	return es, class
}

// nextSteps turns the tool's next_steps into sentences an agent can act on,
// using each next tool's own description.
func (a *answers) nextSteps(wt *boundTool) []string {
	out := []string{}
	for _, name := range wt.doc.NextSteps {
		if next, ok := a.tools[name]; ok && lowerFirst(next.doc.Description) != "" {
			out = append(out, fmt.Sprintf("Call %s to %s", name, lowerFirst(next.doc.Description)))
		} else {
			out = append(out, fmt.Sprintf("Call %s next", name))
		}
	}
	if s := a.operationStep(wt.doc); s != "" {
		out = append(out, s)
	}
	return out
}

// warnings are remarks on a valid call: today an omitted optional
// description, which makes the entity hard to find later.
func (a *answers) warnings(wt *boundTool, body *impl.Object) []impl.Warning {
	ws := []impl.Warning{}
	if wt.optionalDescription {
		if v := body.Get("description"); v == nil || v.Kind == impl.KindNull || (v.Kind == impl.KindString && v.Str == "") {
			entity := "The request"
			if wt.doc.Result != "" {
				entity = humanize(wt.doc.Result)
			}
			ws = append(ws, impl.Warning{
				Code: "MISSING_DESCRIPTION", Field: "description",
				Message:    entity + " has no description",
				Suggestion: "Add a description for better discoverability",
			})
		}
	}
	return ws
}

func article(noun string) string {
	if noun != "" && (noun[0] == 'a' || noun[0] == 'o') {
		return "an"
	}
	return "a"
}

func hasError(es impl.Errors, field string) bool {
	for _, e := range es {
		if e.Field == field {
			return true
		}
	}
	return false
}

// replay returns a stored result verbatim, marked as a replay.
func (a *answers) replay(ctx context.Context, tool string, stored []byte, isError bool, created time.Time) *mcp.CallToolResult {
	o, err := parseObject(stored)
	if err != nil {
		return a.errorResult(ctx, tool, nil, impl.Errors{a.internal(ctx, tool, fmt.Errorf("stored result: %w", err))})
	}
	o.set("idempotent_replay", true)
	if !created.IsZero() {
		o.set("original_request_time", created.UTC().Format(time.RFC3339))
	}
	return toolResult(a.render(ctx, tool, o), isError)
}

// unanswered is the answer when the user did not confirm in time.
func (a *answers) unanswered(wt *boundTool, body *impl.Object) *impl.ErrorEntry {
	return &impl.ErrorEntry{
		Code:        impl.CodeConfirmationDeclined,
		Message:     fmt.Sprintf("The user did not answer within %s: %s. Nothing was written.", a.cfg.elicitTimeout, summarize(wt, body)),
		Suggestions: &impl.Suggestions{Hint: "Ask the user whether to make this change, then call again."},
	}
}

// proposalError maps store errors to envelope entries.
func (a *answers) proposalError(ctx context.Context, tool, id string, err error) *impl.ErrorEntry {
	details := map[string]any{"proposal_id": id}
	switch {
	case errors.Is(err, proposal.ErrNotFound):
		return &impl.ErrorEntry{Code: impl.CodeProposalNotFound, Field: a.control().proposalID, Message: fmt.Sprintf("proposal %q not found", id), Details: details,
			Suggestions: &impl.Suggestions{Hint: "Proposals can only be applied by the tenant and principal that made them. Call the write tool again to make a new proposal."}}
	case errors.Is(err, proposal.ErrDiscarded):
		return &impl.ErrorEntry{Code: impl.CodeProposalNotFound, Field: a.control().proposalID, Message: fmt.Sprintf("proposal %q was discarded", id), Details: details,
			Suggestions: &impl.Suggestions{Hint: "Call the write tool again to make a new proposal."}}
	case errors.Is(err, proposal.ErrExpired):
		return &impl.ErrorEntry{Code: impl.CodeProposalExpired, Field: a.control().proposalID, Message: fmt.Sprintf("proposal %q has expired", id), Details: details,
			Suggestions: &impl.Suggestions{Hint: "Call the write tool again to make a fresh proposal and ask the user again."}}
	case errors.Is(err, proposal.ErrBusy):
		return &impl.ErrorEntry{Code: impl.CodeConflict, Field: a.control().proposalID, Message: fmt.Sprintf("proposal %q is being applied by another call", id), Details: details,
			Suggestions: &impl.Suggestions{Hint: "Wait a few seconds and apply again to get its result."}}
	case errors.Is(err, proposal.ErrApplied):
		return &impl.ErrorEntry{Code: impl.CodeConflict, Field: a.control().proposalID, Message: fmt.Sprintf("proposal %q was already applied", id), Details: details}
	}
	return a.internal(ctx, tool, err)
}

// proposalQuotaError turns a store's refusal of a new proposal for lack of
// room into its RESOURCE_EXHAUSTED entry; it returns nil for other errors.
func (a *answers) proposalQuotaError(tool string, err error) *impl.ErrorEntry {
	free := fmt.Sprintf("Apply a pending proposal with %s or discard one with %s, or retry after details.retry_after_seconds, when the earliest pending proposal expires.",
		a.svc.ApplyTool, a.svc.DiscardTool)
	if qe, ok := errors.AsType[*proposal.QuotaError](err); ok {
		quota, who := quotaProposalsPerPrincipal, "you hold"
		if qe.Scope == proposal.ScopeTenant {
			quota, who = quotaProposalsPerTenant, "your tenant holds"
		}
		return exhausted(quota, qe.Limit, qe.RetryAfter,
			fmt.Sprintf("%s was not proposed: %s the quota of %d pending proposals; nothing was written", tool, who, qe.Limit), free)
	}
	if fe, ok := errors.AsType[*proposal.FullError](err); ok {
		return exhausted(quotaProposalsServer, fe.Limit, fe.RetryAfter,
			fmt.Sprintf("%s was not proposed: the server holds its limit of %d pending proposals; nothing was written", tool, fe.Limit),
			"Retry after details.retry_after_seconds.")
	}
	return nil
}
