package runtime

// Confirmation through MCP elicitation, on both protocol generations.
//
// Up to 2025-11-25 the server may send elicitation/create while it handles
// the call, so the call asks and waits (confirmInCall); the pipeline claims
// the idempotency key first, with a lease covering the wait. From 2026-07-28
// a server must not send requests of its own: the call answers with an input
// request (the confirmation form) and a request state (askRoundTrip), the
// client asks the user and retries the call with the answer and the state,
// which is verified before the pipeline claims the key (verifyAnswer) and
// used up under the claim (confirmAnswered). The state crosses the client,
// so it is signed with HMAC-SHA256 and bound to the tool, the arguments, the
// tenant, the principal, the client_request_id, the enriched request and an
// expiry, and it is single use: a client can neither forge an acceptance, nor
// reuse one for other arguments, another caller or a second write.
//
// Every step here returns a confirmDecision; none runs the handler, stores
// a proposal or claims the key: the pipeline (call.run) does, on the
// decision.

import (
	"context"
	"crypto/hmac"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// losesData: deletes and anything classified destructive can lose what
// exists, so the user is told what. A SAFE_UPDATE by its classification
// loses nothing, so it names no loss.
func losesData(d *schemadoc.Tool) bool {
	return d.Kind == "DELETE" || strings.HasPrefix(d.Classification, "DESTRUCTIVE")
}

// previewLoss runs the previews a confirmation or proposal shows, into
// c.loss: the domain check, the state preview and the loss preview hook
// (what the write would lose). An error the domain wrote for agents refuses
// the call as an outcome (recorded like a handler's business error); an
// internal or transient failure of the domain check or state preview
// refuses it with the claim released; any other loss preview failure is
// logged and the confirmation goes on without the text, with a warning in
// proposals.
func (c *call) previewLoss() confirmDecision {
	r, wt, ctx, m, name := c.r, c.wt, c.ctx, c.m, c.name()
	outcome := func(es impl.Errors) confirmDecision { return confirmDecision{kind: refuse, es: es, record: true} }
	// The domain refuses now what the write would refuse, before anyone is
	// asked or a proposal is stored.
	dp, des, class := r.ans.domainCheck(ctx, name, m)
	if len(des) > 0 {
		if class != classBusiness {
			return refused(des...)
		}
		return outcome(des)
	}
	st, hasState, es := r.ans.entityState(ctx, name, m)
	if len(es) > 0 {
		if isInternal(es) {
			return refused(es...)
		}
		return outcome(es)
	}
	c.loss = lossInfo{state: st, hasState: hasState, domain: dp}
	if r.cfg.lossPreview == nil || !losesData(wt.doc) {
		return confirmDecision{kind: proceed}
	}
	text, err := r.cfg.lossPreview(ctx, name, m)
	if err == nil {
		c.loss.text = neutralize(strings.TrimSpace(text))
		return confirmDecision{kind: proceed}
	}
	es, class = r.ans.classify(ctx, name, err)
	if class == classBusiness {
		return outcome(es)
	}
	if class == classTransient { // internal failures were logged by classify
		r.cfg.logger.WarnContext(ctx, "mcpwrite: loss preview failed", "tool", name, "error", err)
	}
	c.loss.warning = &impl.Warning{
		Code:       "LOSS_PREVIEW_UNAVAILABLE",
		Message:    "What this change would remove could not be determined",
		Suggestion: "Review the preview with the user before applying",
	}
	return confirmDecision{kind: proceed}
}

// stateDigest is the digest the confirmation binds ("" without a state).
func (l lossInfo) stateDigest() string {
	if !l.hasState {
		return ""
	}
	return l.state.Digest
}

// isInternal reports an answer that is a server failure, not an outcome.
func isInternal(es impl.Errors) bool {
	for _, e := range es {
		if e.Code == impl.CodeInternal || e.Code == impl.CodeUnavailable || e.Code == impl.CodeDeadlineExceeded {
			return true
		}
	}
	return false
}

// stillAsShown re-reads the state a confirmation was given for: proceed
// when it is unchanged, else the refusal (PROPOSAL_STALE, or the failure to
// read it).
func (c *call) stillAsShown(was EntityState, digest string) confirmDecision {
	r, name := c.r, c.name()
	if r.cfg.statePreview == nil || digest == "" {
		return confirmDecision{kind: proceed}
	}
	now, ok, es := r.ans.entityState(c.ctx, name, c.m)
	if len(es) > 0 && !isInternal(es) {
		es, ok = nil, false // the entity is gone: stale, not the domain's error
	}
	if len(es) > 0 {
		return refused(es...)
	}
	if ok && now.Digest == digest {
		return confirmDecision{kind: proceed}
	}
	return refused(staleState("", "The confirmation", was, now, ok))
}

// confirmMessage is what the user reads: what will be written (the tool's
// confirmation_message template when it has one), what that risks, when
// known what will be lost (c.loss), then the request as "field: value"
// lines (personRequest: nothing the server filled in for itself).
func (c *call) confirmMessage() (string, error) {
	r, wt := c.r, c.wt
	shown, err := r.ans.shape.personRequest(wt.doc, c.m, c.body)
	if err != nil {
		return "", err
	}
	head := "Confirm " + summarize(wt, c.body) + "."
	if tpl := wt.doc.ConfirmationMessage; tpl != "" {
		if text, err := r.ans.shape.renderConfirmation(tpl, c.m, c.loss.domain); err == nil {
			head = text
		} else {
			r.cfg.logger.WarnContext(c.ctx, "mcpwrite: confirmation message template not filled; asking with the default text", "tool", wt.doc.Name, "error", err)
		}
	}
	msg := head + " " + consequence(wt.doc.Classification)
	if loss := strings.TrimRight(neutralize(c.loss.text), ". "); loss != "" {
		msg += " What will be lost: " + loss + "."
	}
	if lines := personLines(shown); lines != "" {
		msg += "\n\n" + lines
	}
	return msg, nil
}

// confirmInCall asks through elicitation/create while the call waits, under
// the claim the pipeline took with a lease covering the wait. A client that
// turns out unable to answer gets a proposal, or CONFIRMATION_REQUIRED when
// the tool's elicit_fallback is REFUSE.
func (c *call) confirmInCall() confirmDecision {
	r, wt, name := c.r, c.wt, c.name()
	if d := c.previewLoss(); d.kind != proceed {
		return d
	}
	msg, err := c.confirmMessage()
	if err != nil {
		return refused(r.ans.internal(c.ctx, name, fmt.Errorf("confirmation message: %w", err)))
	}
	switch c.askInCall(msg) {
	case elicitConfirmed:
		return c.stillAsShown(c.loss.state, c.loss.stateDigest())
	case elicitDeclined:
		return refused(declined(wt, c.body))
	case elicitCancelled:
		return refused(cancelled(wt, c.body))
	case elicitTimedOut:
		return refused(r.ans.unanswered(wt, c.body))
	}
	if refusesWithoutElicitation(wt.doc) {
		return refused(confirmationRequired(wt, c.body))
	}
	return confirmDecision{kind: propose}
}

// askInCall sends elicitation/create, bounded by the elicitation timeout.
func (c *call) askInCall(msg string) elicitOutcome {
	ctx, req, tool := c.ctx, c.req, c.name()
	ectx, cancel := context.WithTimeout(ctx, c.r.cfg.elicitTimeout)
	defer cancel()
	res, err := elicit(ectx, req, msg)
	if err != nil {
		if ectx.Err() != nil {
			c.r.cfg.logger.InfoContext(ctx, "mcpwrite: confirmation unanswered", "tool", tool, "error", err)
			return elicitTimedOut
		}
		c.r.cfg.logger.DebugContext(ctx, "mcpwrite: elicitation unavailable, proposing instead", "tool", tool, "error", err)
		return elicitUnavailable
	}
	if accepted(res) {
		return elicitConfirmed
	}
	if res != nil && res.Action == "cancel" {
		return elicitCancelled
	}
	return elicitDeclined
}

// askRoundTrip is the first round of a 2026-07-28 call: the confirmation
// form as an input request and the signed state the retried call must bring
// back. Nothing is claimed or written.
func (c *call) askRoundTrip() confirmDecision {
	r, wt, ctx, name := c.r, c.wt, c.ctx, c.name()
	if d := c.previewLoss(); d.kind != proceed {
		return d
	}
	msg, err := c.confirmMessage()
	if err != nil {
		return refused(r.ans.internal(ctx, name, fmt.Errorf("confirmation message: %w", err)))
	}
	args, err := idempotency.Fingerprint(c.raw)
	if err != nil {
		return refused(r.ans.internal(ctx, name, fmt.Errorf("fingerprint: %w", err)))
	}
	digest, err := requestDigest(wt, c.m)
	if err != nil {
		return refused(r.ans.internal(ctx, name, err))
	}
	st := confirmState{
		Expires: r.ans.now().Add(r.cfg.elicitTimeout).Unix(), Nonce: r.cfg.nonce(), Args: args, Request: digest,
		State: c.loss.stateDigest(), Target: c.loss.state.Target, Summary: c.loss.state.Summary,
	}
	token, err := r.cfg.signState(st, stateBinding(name, c.rc, c.ctl.key))
	if err != nil {
		return refused(r.ans.internal(ctx, name, fmt.Errorf("sign confirmation state: %w", err)))
	}
	return confirmDecision{kind: answerInputRequest, res: &toolcall.Result{
		InputRequests: map[string]*toolcall.ElicitRequest{confirmInputID: {Message: msg, Schema: confirmSchema}},
		RequestState:  token,
	}}
}

// verifyAnswer checks the retried call of a 2026-07-28 round trip before
// anything is claimed: the state verifies for this tool, caller and
// client_request_id, has not expired, was given for these arguments and
// this request, and the user explicitly said yes. The verified state is kept
// in c.answered for confirmAnswered.
func (c *call) verifyAnswer() confirmDecision {
	r, wt, ctx, name := c.r, c.wt, c.ctx, c.name()
	p := c.req
	if p.RequestState == "" {
		return refused(invalidConfirmation("missing_state", "The call carries a confirmation answer but no requestState from this server. Nothing was written."))
	}
	st, err := r.cfg.openState(p.RequestState, stateBinding(name, c.rc, c.ctl.key))
	switch {
	case errors.Is(err, errStateAltered):
		return refused(invalidConfirmation("altered", "The confirmation state does not verify: it was altered, or issued for another tool, caller or client_request_id. Nothing was written."))
	case err != nil:
		return refused(r.ans.internal(ctx, name, fmt.Errorf("verify confirmation state: %w", err)))
	}
	if !r.ans.now().Before(time.Unix(st.Expires, 0)) {
		return refused(invalidConfirmation("expired", fmt.Sprintf("The confirmation expired: answers are accepted for %s. Nothing was written.", r.cfg.elicitTimeout)))
	}
	args, err := idempotency.Fingerprint(c.raw)
	if err != nil {
		return refused(r.ans.internal(ctx, name, fmt.Errorf("fingerprint: %w", err)))
	}
	if !hmac.Equal([]byte(args), []byte(st.Args)) {
		return refused(invalidConfirmation("other_arguments", "The confirmation was given for different arguments. Nothing was written."))
	}
	digest, err := requestDigest(wt, c.m)
	if err != nil {
		return refused(r.ans.internal(ctx, name, err))
	}
	if digest != st.Request {
		// When the entity itself changed, say what changed about it.
		if d := c.stillAsShown(EntityState{Target: st.Target, Summary: st.Summary}, st.State); d.kind != proceed {
			return d
		}
		return refused(&impl.ErrorEntry{
			Code:        impl.CodeProposalStale,
			Message:     "The confirmation is stale: the server would now fill the request differently from what the user confirmed. Nothing was written.",
			Suggestions: &impl.Suggestions{Hint: "Call the tool again without inputResponses or requestState so the user confirms the current state."},
		})
	}
	er := p.InputResponses[confirmInputID]
	if er == nil {
		return refused(invalidConfirmation("missing_answer", fmt.Sprintf("The call carries no answer to the confirmation input request %q. Nothing was written.", confirmInputID)))
	}
	if !accepted(er) {
		return refused(refusal(wt, c.body, er))
	}
	c.answered = &st
	return confirmDecision{kind: proceed}
}

// confirmAnswered finishes a verified answer under the claim: the state the
// user confirmed must still hold, and the confirmation is used up, so it
// authorises one write.
func (c *call) confirmAnswered() confirmDecision {
	r, ctx, name, st := c.r, c.ctx, c.name(), c.answered
	if d := c.stillAsShown(EntityState{Target: st.Target, Summary: st.Summary}, st.State); d.kind != proceed {
		return d
	}
	used, err := c.consumeConfirmation(*st)
	if e := idempotencyQuotaError(name, err); e != nil {
		return refused(e)
	}
	if err != nil {
		return refused(r.ans.storeUnavailable(ctx, name, "confirmation", idempotency.Key{Tenant: c.rc.TenantID, Tool: name}, c.ctl.key, err))
	}
	if used {
		e := invalidConfirmation("used", "This confirmation was already used for a write. Nothing was written again.")
		e.Suggestions.Hint = "To get the first result, retry with its client_request_id; to write again, call the tool without inputResponses or requestState so the user confirms again."
		return refused(e)
	}
	return confirmDecision{kind: proceed}
}

// consumeConfirmation marks the state's nonce used in the idempotency store
// (shared by every instance), so one confirmation authorises one write.
// Without an idempotency store a state can be replayed until it expires.
func (c *call) consumeConfirmation(st confirmState) (used bool, err error) {
	r, ctx := c.r, c.ctx
	store := r.cfg.idem
	if store == nil {
		return false, nil
	}
	now := r.ans.now()
	ttl := time.Unix(st.Expires, 0).Sub(now) + time.Minute
	k := idempotency.Key{Tenant: c.rc.TenantID, Tool: c.name() + "#confirmation", Key: st.Nonce}
	cr, err := store.Claim(ctx, k, st.Args, now, ttl)
	if err != nil {
		return false, err
	}
	if !cr.Claimed {
		return true, nil
	}
	if err := store.Complete(context.WithoutCancel(ctx), k, st.Args, []byte(`{"confirmation":"used"}`), false, now, ttl); err != nil {
		// The claim itself already blocks reuse until ttl.
		r.cfg.logger.WarnContext(ctx, "mcpwrite: confirmation use not recorded", "tool", c.name(), "error", err)
	}
	return false, nil
}

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

// route is the confirmation decision: the tool's confirmation after the
// policy hook and, for ELICIT, how this client can be asked. An entry is
// the answer instead: for a caller without tenant and principal, or for a
// client that cannot ask when the tool's elicit_fallback is REFUSE.
func (c *call) route() (confirmRoute, *impl.ErrorEntry) {
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
	switch elicitationMode(c.req) {
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
