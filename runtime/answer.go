package runtime

// answers: the one place a service's answers are built. The error result
// and body, rendering, handler errors, next steps and warnings; the error
// entries a confirmation answers with (declined, cancelled, refused,
// unconfirmed, anonymous) and the summary and consequence text they show the
// user; the RESOURCE_EXHAUSTED entries of the quotas. Stages return these
// results; none calls back into the orchestrator. status.go classifies a
// handler's errors, hints.go adds their hints, respond.go encodes the
// envelope.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
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
func (a *answers) errorResult(ctx context.Context, tool string, req proto.Message, es impl.Errors) *toolcall.Result {
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

// stepsOf turns the tool's next_steps into sentences an agent can act on,
// using each next tool's own description.
func (a *answers) stepsOf(wt *boundTool) []string {
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
	return out[:len(out):len(out)] // shared by every answer: an append copies
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
func (a *answers) replay(ctx context.Context, tool string, stored []byte, isError bool, created time.Time) *toolcall.Result {
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

// summarize is one line naming the tool and the agent's scalar arguments,
// which is what a person needs to recognise the write.
func summarize(wt *boundTool, body *impl.Object) string {
	title := wt.doc.Title
	if title == "" {
		title = wt.doc.Name
	}
	var parts []string
	for i, k := range body.Keys {
		if pu := wt.doc.PreviewUnless; pu != nil && k == pu.Argument {
			continue // asking for the write is not part of what is written
		}
		if len(parts) == 4 {
			parts = append(parts, "...")
			break
		}
		v := body.Vals[i]
		switch v.Kind {
		case impl.KindString:
			s := v.Str
			if r := []rune(s); len(r) > 60 {
				s = string(r[:57]) + "..."
			}
			parts = append(parts, fmt.Sprintf("%s=%q", k, s))
		case impl.KindNumber:
			parts = append(parts, k+"="+v.Str)
		case impl.KindBool:
			parts = append(parts, fmt.Sprintf("%s=%t", k, v.Bool))
		}
	}
	if len(parts) == 0 {
		return title
	}
	return title + ": " + strings.Join(parts, ", ")
}

// consequence says what a classification puts at risk.
func consequence(classification string) string {
	switch classification {
	case "DESTRUCTIVE_DELETE":
		return "This permanently deletes data; it cannot be undone."
	case "DESTRUCTIVE_UPDATE":
		return "This overwrites existing data; the previous values are lost."
	}
	return "This changes data."
}

// declined is the answer when the user said no.
func declined(wt *boundTool, body *impl.Object) *impl.ErrorEntry {
	return &impl.ErrorEntry{
		Code:        impl.CodeConfirmationDeclined,
		Message:     "The user declined: " + summarize(wt, body) + ". Nothing was written.",
		Suggestions: &impl.Suggestions{Hint: "Do not retry unless the user asks for the change again."},
	}
}

// refusesWithoutElicitation: the tool's elicit_fallback is REFUSE, so a
// confirmation the client cannot show refuses the call instead of storing a
// proposal.
func refusesWithoutElicitation(d *schemadoc.Tool) bool { return d.ElicitFallback == "REFUSE" }

// confirmationRequired answers a write that must be confirmed by the user
// when the client cannot ask and the tool does not fall back to a proposal.
func confirmationRequired(wt *boundTool, body *impl.Object) *impl.ErrorEntry {
	return &impl.ErrorEntry{
		Code:        impl.CodeConfirmationRequired,
		Message:     "The user must confirm " + summarize(wt, body) + ", and this client cannot ask (it does not support MCP elicitation forms). Nothing was written.",
		Suggestions: &impl.Suggestions{Hint: "Tell the user this change needs their confirmation in a client that can show confirmation prompts; do not retry it here."},
	}
}

// cancelled is the answer when the user dismissed the confirmation without
// deciding: unlike a decline, the user may still want the change.
func cancelled(wt *boundTool, body *impl.Object) *impl.ErrorEntry {
	return &impl.ErrorEntry{
		Code:        impl.CodeConfirmationCancelled,
		Message:     "The user dismissed the confirmation without deciding: " + summarize(wt, body) + ". Nothing was written.",
		Suggestions: &impl.Suggestions{Hint: "Ask the user whether they want this change; call again only if they say yes."},
	}
}

// refusal is the answer to a confirmation that was not accepted: cancel
// (dismissed) and decline (or an accept without confirm) differ.
func refusal(wt *boundTool, body *impl.Object, res *toolcall.ElicitResult) *impl.ErrorEntry {
	if res != nil && res.Action == "cancel" {
		return cancelled(wt, body)
	}
	return declined(wt, body)
}

// invalidConfirmation is a CONFIRMATION_INVALID entry; reason is stable for
// programs, the message for people.
func invalidConfirmation(reason, msg string) *impl.ErrorEntry {
	return &impl.ErrorEntry{
		Code: codeConfirmationInvalid, Message: msg,
		Details:     map[string]any{"reason": reason},
		Suggestions: &impl.Suggestions{Hint: "Call the tool again without inputResponses or requestState to ask the user again."},
	}
}

// anonymousConfirmation refuses to confirm or propose for a caller without
// tenant and principal: the confirmation would belong to nobody (or anybody).
func anonymousConfirmation(tool string) *impl.ErrorEntry {
	return &impl.ErrorEntry{
		Code:    impl.CodePermissionDenied,
		Message: tool + " needs the user's confirmation, which is bound to an authenticated tenant and principal; this call carries none. Nothing was written.",
		Suggestions: &impl.Suggestions{
			Hint: "Reconnect with credentials that identify the tenant and the user; the identity comes from the connection, never from tool arguments.",
		},
	}
}

// CodeConfirmationInvalid means the answer to a confirmation cannot be
// trusted: its request state is missing, altered, expired, issued for another
// call, or already used. Nothing was written.
const codeConfirmationInvalid = "CONFIRMATION_INVALID"

// Quotas named in RESOURCE_EXHAUSTED answers (details.quota).
const (
	quotaProposalsPerPrincipal = "pending_proposals_per_principal"
	quotaProposalsPerTenant    = "pending_proposals_per_tenant"
	quotaProposalsServer       = "pending_proposals_server"
	quotaIdempotencyPerTenant  = "idempotency_records_per_tenant"
)

// exhausted is the retryable RESOURCE_EXHAUSTED entry of a call refused
// because a bounded resource of its caller (or, for the server-wide bound,
// of the server) is full: it names the quota, its limit and when to retry.
func exhausted(quota string, limit int, retry time.Duration, message, hint string) *impl.ErrorEntry {
	secs := int64(max(retry, time.Second).Round(time.Second) / time.Second)
	return &impl.ErrorEntry{
		Code:        impl.CodeResourceExhausted,
		Message:     message,
		Details:     map[string]any{"quota": quota, "limit": limit, "retry_after_seconds": secs},
		Suggestions: &impl.Suggestions{Hint: hint},
	}
}

// Quotas named in RESOURCE_EXHAUSTED answers for waiting confirmations.
const (
	quotaElicitationsPerPrincipal = "waiting_confirmations_per_principal"
	quotaElicitationsPerTenant    = "waiting_confirmations_per_tenant"
)

// idempotencyQuotaError is the RESOURCE_EXHAUSTED entry of a claim the
// store refused because the caller's tenant holds its quota of records;
// nil for other errors.
func idempotencyQuotaError(tool string, err error) *impl.ErrorEntry {
	qe, ok := errors.AsType[*idempotency.QuotaError](err)
	if !ok {
		return nil
	}
	return exhausted(quotaIdempotencyPerTenant, qe.Limit, qe.RetryAfter,
		fmt.Sprintf("%s was not run: your tenant holds the quota of %d idempotency records (client_request_id keys); nothing was written", tool, qe.Limit),
		"Retry after details.retry_after_seconds, when the earliest record expires, or retry an earlier call with its own client_request_id.")
}
