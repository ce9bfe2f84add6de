package runtime

// Governance decides, per call, whether a write commits directly, asks the
// user through MCP elicitation, or becomes a proposal applied later by id.
//
// What is supported:
//   - DIRECT: the handler runs.
//   - PROPOSAL: the enriched request is stored (proto binary, the agent's
//     arguments and the preview a person is shown) with an expiry; the tool answers with
//     the proposal, and the service's apply tool commits it for the same tenant
//     and principal only, once, after checking it is not stale.
//   - ELICIT: the user is asked to confirm a flat boolean form naming what
//     will be written and, for deletes and DESTRUCTIVE_* writes, what will
//     be lost (WithPreviews Loss). How depends on the session's protocol (elicit.go):
//     up to 2025-11-25 the server sends elicitation/create inside the call;
//     from 2026-07-28 the call answers with an input request and signed
//     request state, and the client's retried call carries the answer, which
//     is verified (signature, expiry, tool, arguments, tenant, principal,
//     single use) before anything is written. Decline or cancel means no
//     write; a client without the elicitation capability gets a proposal, so
//     confirmation is never skipped.
//
// Proposals and confirmations belong to a tenant and a principal: a call
// without both is refused (PERMISSION_DENIED) rather than confirmed for an
// anonymous caller. The idempotency claim is taken before a proposal is
// stored and before the user is asked inside the call (with a lease covering
// the wait), so a retried call with the same client_request_id returns the
// same proposal or waits instead of writing twice; a 2026-07-28 round trip
// claims nothing until the user's answer verifies.

import (
	"context"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// confirmation applies the policy hook to the tool's default.
func (c *call) confirmation() Confirmation {
	r, d := c.r, c.wt.doc
	conf := defaultConfirmation(d)
	if r.cfg.policy != nil {
		pc := PolicyCall{Tool: d.Name, Classification: d.Classification, Kind: d.Kind, RequestContext: c.rc, Confirmation: conf}
		switch p := r.cfg.policy(c.ctx, pc); p {
		case ConfirmDirect, ConfirmProposal, ConfirmElicit:
			conf = p
		}
	}
	return conf
}

// confirmRoute is how a write is confirmed, as the pipeline follows it.
type confirmRoute uint8

const (
	routeDirect  confirmRoute = iota // DIRECT: the handler runs
	routePropose                     // PROPOSAL, or ELICIT for a client that cannot ask
	routeInCall                      // ELICIT up to 2025-11-25: asked inside the call
	routeAsk                         // ELICIT from 2026-07-28: answered with an input request
	routeAnswer                      // ELICIT from 2026-07-28: the retry with the user's answer
)

// route is the confirmation decision: the tool's confirmation after the
// policy hook and, for ELICIT, how this client can be asked. An entry is
// the answer instead: for a caller without tenant and principal, or for a
// client that cannot ask when the tool's elicit_fallback is REFUSE.
func (c *call) route() (confirmRoute, *ErrorEntry) {
	conf := c.confirmation()
	if conf != ConfirmDirect && (c.rc.TenantID == "" || c.rc.PrincipalID == "") {
		return routeDirect, anonymousConfirmation(c.name())
	}
	switch conf {
	case ConfirmDirect:
		return routeDirect, nil
	case ConfirmProposal:
		return routePropose, nil
	}
	if isRoundTripAnswer(c.req) {
		return routeAnswer, nil
	}
	switch elicitationMode(c.ctx, c.req) {
	case elicitRoundTrip:
		return routeAsk, nil
	case elicitInCall:
		return routeInCall, nil
	}
	if refusesWithoutElicitation(c.wt.doc) {
		return routeDirect, confirmationRequired(c.wt, c.body)
	}
	return routePropose, nil // no way to ask: a proposal waits for the user instead
}

// decisionKind is what a confirmation step decided.
type decisionKind uint8

const (
	proceed            decisionKind = iota // run the handler
	propose                                // store a proposal for the user to apply
	refuse                                 // answer es; nothing is written
	answerInputRequest                     // answer res, the confirmation as an input request
)

// confirmDecision is the outcome of a confirmation step. Confirmation steps
// never run the handler, store a proposal or claim the idempotency key:
// the pipeline does, on their decision.
type confirmDecision struct {
	kind decisionKind
	// es is the answer of a refusal; record says whether it is an outcome
	// recorded under the claim (a business error of a preview) rather than
	// a refusal that releases the claim.
	es     Errors
	record bool
	// res is the input request.
	res *mcp.CallToolResult
}

// refused is a refusal that releases the claim.
func refused(es ...*ErrorEntry) confirmDecision { return confirmDecision{kind: refuse, es: es} }

// proposeDecision prepares a proposal: the previews (domain check, state,
// loss), then the proposal.
func (c *call) proposeDecision() confirmDecision {
	if d := c.previewLoss(); d.kind != proceed {
		return d
	}
	return confirmDecision{kind: propose}
}

// propose stores the call's proposal: an outcome to record. A proposal that
// cannot be made or stored is an internal error, not recorded.
func (c *call) propose() answer {
	b, es := c.storeProposal()
	if len(es) > 0 {
		return c.failure(es, false)
	}
	return answer{body: b, keep: true}
}

// storeProposal stores the call's enriched request with its previews
// (c.loss) and renders the proposal answer.
func (c *call) storeProposal() ([]byte, Errors) {
	r, wt, ctx, m, loss := c.r, c.wt, c.ctx, c.m, c.loss
	name := wt.doc.Name
	if r.svc.ApplyTool == "" {
		return nil, Errors{r.internal(ctx, name, fmt.Errorf("policy asked for confirmation of %s but the service has no apply tool", name))}
	}
	reqBin, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return nil, Errors{r.internal(ctx, name, fmt.Errorf("marshal proposal request: %w", err))}
	}
	preview, err := r.personRequest(wt.doc, m, c.body)
	if err != nil {
		return nil, Errors{r.internal(ctx, name, fmt.Errorf("marshal proposal preview: %w", err))}
	}
	args := json.RawMessage(c.raw)
	if len(strings.TrimSpace(string(c.raw))) == 0 || !json.Valid(c.raw) {
		args = json.RawMessage("{}")
	}
	now := r.now()
	p := &proposal.Proposal{
		ID:             r.proposalID(),
		Tenant:         c.rc.TenantID,
		Principal:      c.rc.PrincipalID,
		Tool:           name,
		Classification: wt.doc.Classification,
		Summary:        summarize(wt, c.body),
		Request:        reqBin,
		Arguments:      args,
		Preview:        preview,
		CreatedAt:      now,
		ExpiresAt:      now.Add(r.cfg.proposalTTL),
	}
	if loss.hasState {
		p.Target, p.StateDigest, p.StateSummary = loss.state.Target, loss.state.Digest, loss.state.Summary
	}
	if err := r.cfg.proposals.Create(ctx, p); err != nil {
		if e := r.proposalQuotaError(name, err); e != nil {
			r.cfg.logger.WarnContext(ctx, "mcpwrite: proposal refused: quota reached", "tool", name, "tenant", c.rc.TenantID, "principal", c.rc.PrincipalID, "error", err)
			return nil, Errors{e}
		}
		return nil, Errors{r.internal(ctx, name, fmt.Errorf("store proposal: %w", err))}
	}
	po := object{
		{"proposal_id", p.ID},
		{"action", proposalAction(wt.doc)},
		{"tool", name},
	}
	if e := proposalEntity(wt, loss, preview); e != nil {
		po = append(po, member{"entity", e})
	}
	po = append(po,
		member{"classification", p.Classification},
		member{"summary", p.Summary},
	)
	if s := r.agentSummaryOf(wt, args); s != "" {
		po = append(po, member{"agent_summary", s})
	}
	if d := proposalDiff(wt.doc, loss, preview); len(d) > 0 {
		po = append(po, member{"diff", d})
	}
	if loss.hasState {
		po = append(po, member{"target", loss.state.Target})
		if loss.state.Summary != "" {
			po = append(po, member{"current_state", loss.state.Summary})
		}
	}
	if loss.text != "" {
		po = append(po, member{"will_lose", loss.text})
	}
	if loss.domain != nil {
		po = append(po, member{"domain_preview", loss.domain})
	}
	po = append(po,
		member{"preview", preview},
		member{"expires_at", p.ExpiresAt.UTC().Format(timeFormat)},
		member{"apply_with", r.svc.ApplyTool},
	)
	ws := r.warnings(wt, c.body)
	if loss.warning != nil {
		ws = append(ws, *loss.warning)
	}
	o := object{
		{"success", true},
		{"proposal", po},
		{"suggestions", []string{fmt.Sprintf(
			"Nothing was written yet. Show the summary and preview to the user; if they confirm, call %s with %s %q before it expires.",
			r.svc.ApplyTool, r.control().proposalID, p.ID)}},
		{"warnings", warningsJSON(ws)},
	}
	return r.render(ctx, name, o), nil
}

// agentSummaryOf is the agent's own summary of the change in the call's
// arguments, made safe to show ("" when the tool takes none or it was not
// sent). The arguments were checked before anything was proposed.
func (r *registry) agentSummaryOf(wt *writeTool, args []byte) string {
	if wt.doc.AgentSummary == "" {
		return ""
	}
	obj, es := r.parseArgs(args)
	if len(es) > 0 {
		return ""
	}
	ctl, _ := wt.splitControl(obj)
	return neutralize(ctl.summary)
}

// timeFormat is how every time is written for agents.
const timeFormat = "2006-01-02T15:04:05Z07:00"

// proposalID mints an id of the same form as proposal.NewID from the
// configured random source, so tests can pin it.
func (r *registry) proposalID() string {
	var b [16]byte
	if _, err := io.ReadFull(r.cfg.rand, b[:]); err != nil {
		return proposal.NewID()
	}
	return proposal.IDPrefix + base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:])
}

// summarize is one line naming the tool and the agent's scalar arguments,
// which is what a person needs to recognise the write.
func summarize(wt *writeTool, body *mcpwriteimpl.Object) string {
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
		case mcpwriteimpl.KindString:
			s := v.Str
			if r := []rune(s); len(r) > 60 {
				s = string(r[:57]) + "..."
			}
			parts = append(parts, fmt.Sprintf("%s=%q", k, s))
		case mcpwriteimpl.KindNumber:
			parts = append(parts, k+"="+v.Str)
		case mcpwriteimpl.KindBool:
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
func declined(wt *writeTool, body *mcpwriteimpl.Object) *ErrorEntry {
	return &ErrorEntry{
		Code:        mcpwriteimpl.CodeConfirmationDeclined,
		Message:     "The user declined: " + summarize(wt, body) + ". Nothing was written.",
		Suggestions: &Suggestions{Hint: "Do not retry unless the user asks for the change again."},
	}
}

// refusesWithoutElicitation: the tool's elicit_fallback is REFUSE, so a
// confirmation the client cannot show refuses the call instead of storing a
// proposal.
func refusesWithoutElicitation(d *schemadoc.Tool) bool { return d.ElicitFallback == "REFUSE" }

// confirmationRequired answers a write that must be confirmed by the user
// when the client cannot ask and the tool does not fall back to a proposal.
func confirmationRequired(wt *writeTool, body *mcpwriteimpl.Object) *ErrorEntry {
	return &ErrorEntry{
		Code:        mcpwriteimpl.CodeConfirmationRequired,
		Message:     "The user must confirm " + summarize(wt, body) + ", and this client cannot ask (it does not support MCP elicitation forms). Nothing was written.",
		Suggestions: &Suggestions{Hint: "Tell the user this change needs their confirmation in a client that can show confirmation prompts; do not retry it here."},
	}
}

// cancelled is the answer when the user dismissed the confirmation without
// deciding: unlike a decline, the user may still want the change.
func cancelled(wt *writeTool, body *mcpwriteimpl.Object) *ErrorEntry {
	return &ErrorEntry{
		Code:        mcpwriteimpl.CodeConfirmationCancelled,
		Message:     "The user dismissed the confirmation without deciding: " + summarize(wt, body) + ". Nothing was written.",
		Suggestions: &Suggestions{Hint: "Ask the user whether they want this change; call again only if they say yes."},
	}
}

// refusal is the answer to a confirmation that was not accepted: cancel
// (dismissed) and decline (or an accept without confirm) differ.
func refusal(wt *writeTool, body *mcpwriteimpl.Object, res *mcp.ElicitResult) *ErrorEntry {
	if res != nil && res.Action == "cancel" {
		return cancelled(wt, body)
	}
	return declined(wt, body)
}

// proposalError maps store errors to envelope entries.
func (r *registry) proposalError(ctx context.Context, tool, id string, err error) *ErrorEntry {
	details := map[string]any{"proposal_id": id}
	switch {
	case errors.Is(err, proposal.ErrNotFound):
		return &ErrorEntry{Code: mcpwriteimpl.CodeProposalNotFound, Field: r.control().proposalID, Message: fmt.Sprintf("proposal %q not found", id), Details: details,
			Suggestions: &Suggestions{Hint: "Proposals can only be applied by the tenant and principal that made them. Call the write tool again to make a new proposal."}}
	case errors.Is(err, proposal.ErrDiscarded):
		return &ErrorEntry{Code: mcpwriteimpl.CodeProposalNotFound, Field: r.control().proposalID, Message: fmt.Sprintf("proposal %q was discarded", id), Details: details,
			Suggestions: &Suggestions{Hint: "Call the write tool again to make a new proposal."}}
	case errors.Is(err, proposal.ErrExpired):
		return &ErrorEntry{Code: mcpwriteimpl.CodeProposalExpired, Field: r.control().proposalID, Message: fmt.Sprintf("proposal %q has expired", id), Details: details,
			Suggestions: &Suggestions{Hint: "Call the write tool again to make a fresh proposal and ask the user again."}}
	case errors.Is(err, proposal.ErrBusy):
		return &ErrorEntry{Code: mcpwriteimpl.CodeConflict, Field: r.control().proposalID, Message: fmt.Sprintf("proposal %q is being applied by another call", id), Details: details,
			Suggestions: &Suggestions{Hint: "Wait a few seconds and apply again to get its result."}}
	case errors.Is(err, proposal.ErrApplied):
		return &ErrorEntry{Code: mcpwriteimpl.CodeConflict, Field: r.control().proposalID, Message: fmt.Sprintf("proposal %q was already applied", id), Details: details}
	}
	return r.internal(ctx, tool, err)
}

// applyHandler commits a proposal by id: once, for its owner, after checking
// that re-running enrichment on the original arguments still yields the same
// request (otherwise the user confirmed something that no longer holds).
func (r *registry) applyHandler(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
	name := r.svc.ApplyTool
	vals, es := r.readArgs(arguments(req), r.proposalIDArg())
	if len(es) > 0 {
		return r.errorResult(ctx, name, nil, es), nil
	}
	id := vals[r.control().proposalID].Str
	rc, hasRC := r.requestContext(ctx, req)
	if hasRC {
		ctx = WithRequestContext(ctx, rc)
	}
	p, err := r.cfg.proposals.BeginApply(ctx, id, rc.TenantID, rc.PrincipalID, r.now())
	if err != nil {
		return r.errorResult(ctx, name, nil, Errors{r.proposalError(ctx, name, id, err)}), nil
	}
	if _, ok := r.tools[p.Tool]; !ok {
		// Made by another registration sharing the store (another service,
		// or this one under other names): left for its own apply tool.
		if p.State != proposal.StateApplied {
			if err := r.cfg.proposals.AbortApply(context.WithoutCancel(ctx), p.ID); err != nil {
				r.cfg.logger.WarnContext(ctx, "mcpwrite: proposal abort failed", "proposal_id", p.ID, "error", err)
			}
		}
		return r.errorResult(ctx, name, nil, Errors{{
			Code: mcpwriteimpl.CodeProposalNotFound, Field: "proposal_id", Details: map[string]any{"proposal_id": id, "tool": p.Tool},
			Message:     fmt.Sprintf("proposal %q was made by %s, which %s does not serve", id, p.Tool, name),
			Suggestions: &Suggestions{Hint: fmt.Sprintf("Apply it with the apply tool registered beside %s.", p.Tool)},
		}}), nil
	}
	if p.State == proposal.StateApplied {
		return r.replay(ctx, name, p.Result, p.ResultIsError, time.Time{}), nil
	}
	finished := false
	abort := func() {
		if !finished {
			finished = true
			if err := r.cfg.proposals.AbortApply(context.WithoutCancel(ctx), p.ID); err != nil {
				r.cfg.logger.WarnContext(ctx, "mcpwrite: proposal abort failed", "proposal_id", p.ID, "error", err)
			}
		}
	}
	defer func() {
		if x := recover(); x != nil {
			abort()
			panic(x)
		}
	}()
	// finish saves the result; when it cannot be saved after retries the
	// caller is told the write was applied but not recorded (never plain
	// success), and the proposal stays applying until its apply lease ends.
	finish := func(body []byte, isError bool) *mcp.CallToolResult {
		finished = true
		var err error
		for attempt := 0; attempt < recordAttempts; attempt++ {
			if attempt > 0 {
				time.Sleep(recordBackoff[min(attempt-1, len(recordBackoff)-1)])
			}
			if err = r.cfg.proposals.FinishApply(context.WithoutCancel(ctx), p.ID, body, isError); err == nil || errors.Is(err, proposal.ErrNotApplying) {
				break
			}
		}
		if err == nil {
			return toolResult(body, isError)
		}
		e := &ErrorEntry{
			Code: mcpwriteimpl.CodeUnavailable, Field: r.control().proposalID, TraceID: r.traceID(),
			Message:     fmt.Sprintf("proposal %q was applied, but its result could not be saved: do not apply it again", p.ID),
			Details:     map[string]any{"proposal_id": p.ID, "applied": true},
			Suggestions: &Suggestions{Hint: "The write happened; details.result is its result. Read the current state instead of applying again."},
		}
		if o, perr := parseObject(body); perr == nil {
			e.Details["result"] = o
		}
		r.cfg.logger.ErrorContext(ctx, "mcpwrite: proposal result not saved", "proposal_id", p.ID, "tool", p.Tool, "trace_id", e.TraceID, "error", err)
		return r.errorResult(ctx, name, nil, Errors{e})
	}

	wt := r.tools[p.Tool] // known: checked above
	c := r.newCall(ctx, wt, rc, hasRC)
	stored := wt.bind.NewRequest()
	if err := proto.Unmarshal(p.Request, stored); err != nil {
		abort()
		return r.errorResult(ctx, name, nil, Errors{r.internal(ctx, name, fmt.Errorf("proposal %s request: %w", p.ID, err))}), nil
	}
	// The state check comes first: when the entity changed, what changed
	// about it tells the user more than which request fields differ.
	if p.StateDigest != "" && r.cfg.statePreview != nil {
		now, ok, es := r.entityState(ctx, wt.doc.Name, stored)
		if len(es) > 0 && isInternal(es) {
			abort()
			return r.errorResult(ctx, name, stored, es), nil
		}
		if len(es) > 0 || !ok || now.Digest != p.StateDigest {
			abort()
			e := staleState(r.control().proposalID, fmt.Sprintf("Proposal %q", p.ID), EntityState{Target: p.Target, Summary: p.StateSummary}, now, ok && len(es) == 0)
			e.Details["proposal_id"] = p.ID
			c.offerFreshProposal(p, e)
			return r.errorResult(ctx, name, stored, Errors{e}), nil
		}
	}
	fresh, stale := c.staleness(p, stored)
	if stale != nil {
		abort()
		if len(stale) == 1 {
			// Only a changed fill (not a refusal) can be proposed afresh.
			c.offerFreshProposal(p, stale[0])
		}
		return r.errorResult(ctx, name, stored, stale), nil
	}
	// The write happens now: timestamps the server generates ("the current
	// time") are taken at apply time; ids and everything else stay exactly
	// as the user confirmed them.
	for _, f := range wt.doc.ServerFills {
		if f.Source == "generated" && f.How == nowFill {
			copyPath(stored.ProtoReflect(), fresh.ProtoReflect(), f.ProtoPath())
		}
	}
	// The handler may check the state and record the outcome under its own
	// lock, in its transaction (Outcome with a ProposalID).
	var ws []mcpwriteimpl.Warning
	if obj, es := r.parseArgs(p.Arguments); len(es) == 0 {
		_, b := wt.splitControl(obj)
		ws = r.warnings(wt, b)
	}
	ap := &Outcome{ProposalID: p.ID, ApplyToken: p.ApplyStartedAt, StateDigest: p.StateDigest, Now: r.now(), render: func(resp proto.Message) ([]byte, error) {
		o, err := successEnvelope(resp, wt.doc.Result, r.nextSteps(wt), ws, r.enums, r.shape())
		if err != nil {
			return nil, err
		}
		return r.render(ctx, name, o), nil
	}}
	resp, err := wt.bind.Invoke(context.WithValue(ctx, outcomeKey{}, ap), stored)
	if errors.Is(err, proposal.ErrStale) {
		// The state changed after the check above, before the write locked it.
		abort()
		now, ok, es := r.entityState(ctx, wt.doc.Name, stored)
		e := staleState("proposal_id", fmt.Sprintf("Proposal %q", p.ID), EntityState{Target: p.Target, Summary: p.StateSummary}, now, ok && len(es) == 0)
		e.Details["proposal_id"] = p.ID
		c.offerFreshProposal(p, e)
		return r.errorResult(ctx, name, stored, Errors{e}), nil
	}
	if errors.Is(err, proposal.ErrNotApplying) {
		// Another apply took this one over; its outcome is the proposal's.
		finished = true
		return r.supersededApply(ctx, name, p), nil
	}
	if err == nil && ap.recorded {
		finished = true
		return toolResult(ap.body, false), nil
	}
	if err != nil {
		es, class := r.handlerError(ctx, wt, stored, err)
		body := r.errorBody(ctx, name, stored, es)
		if class == classBusiness {
			return finish(body, true), nil
		}
		abort()
		return toolResult(body, true), nil
	}
	o, err := successEnvelope(resp, wt.doc.Result, r.nextSteps(wt), ws, r.enums, r.shape())
	if err != nil {
		abort()
		return r.errorResult(ctx, name, stored, Errors{r.internal(ctx, name, fmt.Errorf("marshal response: %w", err))}), nil
	}
	return finish(r.render(ctx, name, o), false), nil
}

// supersededApply answers an apply that rolled back because another apply
// of the proposal took it over: the proposal's result once that apply
// finished, else that it is still being applied.
func (r *registry) supersededApply(ctx context.Context, name string, p *proposal.Proposal) *mcp.CallToolResult {
	cur, err := r.cfg.proposals.Get(ctx, p.ID, p.Tenant, p.Principal, r.now())
	if err == nil && cur.State == proposal.StateApplied {
		return r.replay(ctx, name, cur.Result, cur.ResultIsError, time.Time{})
	}
	if err == nil || errors.Is(err, proposal.ErrExpired) {
		err = proposal.ErrBusy
	}
	return r.errorResult(ctx, name, nil, Errors{r.proposalError(ctx, name, p.ID, err)})
}

// staleness re-derives the request from the proposal's arguments and compares
// it with the stored one, ignoring fields that legitimately differ per call:
// generated values (IDs, timestamps) and request-context metadata
// (correlation, causation, trace), which belong to the call, not to the world.
// c is the apply call, for the proposal's tool.
func (c *call) staleness(p *proposal.Proposal, stored proto.Message) (proto.Message, Errors) {
	r, wt := c.r, c.wt
	obj, es := r.parseArgs(p.Arguments)
	var fresh proto.Message
	if len(es) == 0 {
		f := r.newCall(c.ctx, wt, c.rc, c.hasRC)
		f.ctl, f.body = wt.splitControl(obj)
		f.ctl.dryRun = false // the request the write gets
		fresh, es, _ = f.prepare(nil)
	}
	if len(es) > 0 {
		stale := &ErrorEntry{
			Code: mcpwriteimpl.CodeProposalStale, Field: r.control().proposalID,
			Message:     fmt.Sprintf("proposal %q no longer validates against the current state", p.ID),
			Details:     map[string]any{"proposal_id": p.ID},
			Suggestions: &Suggestions{Hint: "Nothing was written. Call the write tool again to make a fresh proposal."},
		}
		return nil, append(Errors{stale}, es...)
	}
	a, b := comparableRequest(wt, stored), comparableRequest(wt, fresh)
	if proto.Equal(a, b) {
		return fresh, nil
	}
	return nil, Errors{{
		Code: mcpwriteimpl.CodeProposalStale, Field: r.control().proposalID,
		Message:     fmt.Sprintf("proposal %q is stale: the server would now fill it differently", p.ID),
		Details:     map[string]any{"proposal_id": p.ID, "changed_fields": changedFields(a.ProtoReflect(), b.ProtoReflect())},
		Suggestions: &Suggestions{Hint: "Nothing was written. Call the write tool again to make a fresh proposal and show it to the user."},
	}}
}

// comparableRequest is a copy of an enriched request without the fields that
// legitimately differ per call (generated IDs and timestamps, request-context
// metadata), so what remains is what the user confirmed about the world.
func comparableRequest(wt *writeTool, m proto.Message) proto.Message {
	c := proto.Clone(m)
	for _, f := range wt.doc.ServerFills {
		if f.Source == "generated" || f.Source == "context" {
			clearPath(c.ProtoReflect(), f.ProtoPath())
		}
	}
	return c
}

// nowFill is how the plugin describes a generated NOW field in server_fills.
const nowFill = "the current time"

// copyPath sets the field at a dotted proto path in dst to its value in src.
func copyPath(dst, src protoreflect.Message, path string) {
	for {
		name, rest, nested := cut(path)
		fd := dst.Descriptor().Fields().ByName(protoreflect.Name(name))
		if fd == nil || fd.IsList() || fd.IsMap() {
			return
		}
		if !nested {
			if src.Has(fd) {
				dst.Set(fd, src.Get(fd))
			}
			return
		}
		if fd.Message() == nil || !src.Has(fd) {
			return
		}
		dst, src, path = dst.Mutable(fd).Message(), src.Get(fd).Message(), rest
	}
}

// clearPath clears the field at a dotted proto path ("meta.created_at").
func clearPath(m protoreflect.Message, path string) {
	for {
		name, rest, nested := cut(path)
		fd := m.Descriptor().Fields().ByName(protoreflect.Name(name))
		if fd == nil {
			return
		}
		if !nested {
			m.Clear(fd)
			return
		}
		if fd.Message() == nil || fd.IsList() || fd.IsMap() || !m.Has(fd) {
			return
		}
		m, path = m.Mutable(fd).Message(), rest
	}
}

func cut(path string) (head, rest string, nested bool) {
	for i := 0; i < len(path); i++ {
		if path[i] == '.' {
			return path[:i], path[i+1:], true
		}
	}
	return path, "", false
}

// changedFields names the top-level fields that differ, for the agent.
func changedFields(a, b protoreflect.Message) []string {
	out := []string{}
	fields := a.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		x, y := a.New(), b.New()
		if a.Has(fd) {
			x.Set(fd, a.Get(fd))
		}
		if b.Has(fd) {
			y.Set(fd, b.Get(fd))
		}
		if !proto.Equal(x.Interface(), y.Interface()) {
			out = append(out, string(fd.Name()))
		}
	}
	return out
}

// discardHandler drops a proposal the user rejected; discarding twice succeeds.
func (r *registry) discardHandler(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	name := r.svc.DiscardTool
	vals, es := r.readArgs(arguments(req), r.proposalIDArg())
	if len(es) > 0 {
		return r.errorResult(ctx, name, nil, es), nil
	}
	id := vals[r.control().proposalID].Str
	rc, _ := r.requestContext(ctx, req)
	if err := r.cfg.proposals.Discard(ctx, id, rc.TenantID, rc.PrincipalID, r.now()); err != nil && !errors.Is(err, proposal.ErrDiscarded) {
		return r.errorResult(ctx, name, nil, Errors{r.proposalError(ctx, name, id, err)}), nil
	}
	return toolResult(r.render(ctx, name, object{{"success", true}, {"proposal_id", id}, {"discarded", true}}), false), nil
}

// proposalEntity names what a proposal changes: the domain's type and id
// from its state preview or, for a create, the tool's result entity and the
// id the server filled in the request. nil when neither is known.
func proposalEntity(wt *writeTool, loss lossInfo, preview json.RawMessage) object {
	typ, id := loss.state.Type, loss.state.ID
	if !loss.hasState && wt.doc.Kind == "CREATE" {
		typ = wt.doc.Result
		var req struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(preview, &req) == nil {
			id = req.ID
		}
	}
	if typ == "" && id == "" {
		return nil
	}
	e := object{}
	if typ != "" {
		e = append(e, member{"type", typ})
	}
	if id != "" {
		e = append(e, member{"id", id})
	}
	return e
}

// proposalDiff is the proposal's structured diff, {field, before, after}
// per field in name order: for a create, each field the request sets, from
// null (but the id, which entity names); for a delete, each field
// of the entity's previewed state, to null; otherwise each field of that
// state the request sets to another value.
func proposalDiff(d *schemadoc.Tool, loss lossInfo, preview json.RawMessage) []object {
	var req map[string]json.RawMessage
	if json.Unmarshal(preview, &req) != nil {
		return nil
	}
	if d.Kind == "CREATE" && !loss.hasState {
		delete(req, "id")
		return diffRows(req, func(k string) (json.RawMessage, json.RawMessage) { return json.RawMessage("null"), req[k] })
	}
	if !loss.hasState || len(loss.state.Fields) == 0 {
		return nil
	}
	if d.Kind == "DELETE" {
		before := map[string]json.RawMessage{}
		for k, v := range loss.state.Fields {
			if b, err := json.Marshal(v); err == nil {
				before[k] = b
			}
		}
		return diffRows(before, func(k string) (json.RawMessage, json.RawMessage) { return before[k], json.RawMessage("null") })
	}
	names := make([]string, 0, len(loss.state.Fields))
	for k := range loss.state.Fields {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []object
	for _, k := range names {
		after, ok := req[k]
		if !ok {
			continue
		}
		before, err := json.Marshal(loss.state.Fields[k])
		if err != nil || jsonEqual(before, after) {
			continue
		}
		out = append(out, object{{"field", k}, {"before", json.RawMessage(before)}, {"after", after}})
	}
	return out
}

// diffRows is one {field, before, after} row per key of fields, in name
// order, with the values row gives.
func diffRows(fields map[string]json.RawMessage, row func(k string) (before, after json.RawMessage)) []object {
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make([]object, 0, len(names))
	for _, k := range names {
		before, after := row(k)
		out = append(out, object{{"field", k}, {"before", before}, {"after", after}})
	}
	return out
}

// jsonEqual compares two JSON texts by value.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// proposalAction is what a proposal does: create, update or delete, or for
// any other write the verb its tool name starts with (merge_people ->
// merge, linkPersonToOrg -> link).
func proposalAction(d *schemadoc.Tool) string {
	if d.Kind != "ACTION" {
		return strings.ToLower(d.Kind)
	}
	name := strings.TrimLeft(d.Name, "_-")
	for i, c := range name {
		if i > 0 && (c == '_' || c == '-' || unicode.IsUpper(c)) {
			return strings.ToLower(name[:i])
		}
	}
	return strings.ToLower(name)
}

// offerFreshProposal makes a new proposal of a stale one's arguments
// against the current state and puts it in e (details.fresh_proposal), so
// the user can confirm what would happen now instead. When the arguments no
// longer make a proposal (the entity is gone, the domain refuses), e is left
// as it is and tells the agent to call the write tool again.
// c is the apply call, for the proposal's tool; the fresh proposal is made
// as a call without control arguments.
func (c *call) offerFreshProposal(p *proposal.Proposal, e *ErrorEntry) {
	r, wt, ctx, name := c.r, c.wt, c.ctx, c.name()
	obj, es := r.parseArgs(p.Arguments)
	if len(es) > 0 {
		return
	}
	f := r.newCall(ctx, wt, c.rc, c.hasRC)
	f.raw = p.Arguments
	_, f.body = wt.splitControl(obj)
	m, es, _ := f.prepare(nil)
	if len(es) > 0 {
		return
	}
	f.m = m
	dp, des, _ := r.domainCheck(ctx, name, m)
	if len(des) > 0 {
		return
	}
	info := lossInfo{domain: dp}
	st, ok, es := r.entityState(ctx, name, m)
	if len(es) > 0 || (p.StateDigest != "" && !ok) {
		return
	}
	info.state, info.hasState = st, ok
	if r.cfg.lossPreview != nil && losesData(wt.doc) {
		if text, err := r.cfg.lossPreview(ctx, name, m); err == nil {
			info.text = neutralize(strings.TrimSpace(text))
		}
	}
	f.loss = info
	b, es := f.storeProposal()
	if len(es) > 0 {
		return
	}
	var env struct {
		Proposal json.RawMessage `json:"proposal"`
	}
	if json.Unmarshal(b, &env) != nil || len(env.Proposal) == 0 {
		return
	}
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details["fresh_proposal"] = env.Proposal
	e.Suggestions = &Suggestions{Hint: "Nothing was written. details.fresh_proposal is the same change against the current state: show it to the user and, if they confirm, call " + r.svc.ApplyTool + " with its proposal_id."}
}
