package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// writeHandler runs the write pipeline (call.run) for one write tool.
func (r *registry) writeHandler(wt *boundTool) toolcall.Handler {
	return func(ctx context.Context, req *toolcall.Request) (res *toolcall.Result, err error) {
		c := &call{r: r, wt: wt, ctx: ctx, req: req, raw: arguments(req)}
		defer func() {
			endPhases(r.cfg, ctx)
			if p := recover(); p != nil {
				c.release()
				panic(p) // guard answers INTERNAL
			}
		}()
		return c.run(), nil
	}
}

// run is the write pipeline (docs/architecture.md, "The write pipeline"),
// top to bottom: every stage is called from here, every answer returns from
// here, and the idempotency key is claimed here only.
func (c *call) run() *toolcall.Result {
	r := c.r
	// Request context and decode (front.go). The parsed arguments live
	// until the answer is rendered, which is before run returns.
	labelPhase(c.r.cfg, phaseFront)
	s := impl.GetScratch()
	defer s.Release()
	if es := c.begin(nil, s); len(es) > 0 {
		return c.fail(es)
	}

	// Validate, enrich, request check.
	labelPhase(c.r.cfg, phasePrepare)
	m, es, class := c.prepare(s)
	c.m = m

	// dry_run: the validate_write answer; it leads with success, so it also
	// conforms to the write tool's own output schema. Nothing is claimed,
	// confirmed or written.
	if c.ctl.dryRun && class != classInternal {
		return toolResult(r.ans.render(c.ctx, c.name(), c.validateResult(append(c.ctl.errs, es...))), false)
	}
	if es = append(c.ctl.errs, es...); len(es) > 0 {
		return c.fail(es)
	}

	// preview_unless: unless the agent asked for the write, a preview
	// answers; nothing is claimed, confirmed or written.
	if c.previewOnly() {
		return c.previewAnswer()
	}

	// Confirmation decision: DIRECT, PROPOSAL or ELICIT, and how the user
	// can be asked.
	labelPhase(c.r.cfg, phaseClaim)
	route, e := c.route()
	if e != nil {
		return c.fail(impl.Errors{e})
	}

	// ELICIT on 2026-07-28, before the claim: the first round answers the
	// confirmation as an input request (or the answer a used key holds)
	// and claims nothing; the retry bringing the user's answer is verified
	// before anything is claimed.
	switch route {
	case routeAsk:
		if res := c.peek(); res != nil {
			return res
		}
		return c.conclude(c.askRoundTrip())
	case routeAnswer:
		if d := c.verifyAnswer(); d.kind != proceed {
			return c.conclude(d)
		}
	}

	// Idempotency claim, or the answer the key already holds (replay,
	// reused key, in flight).
	done, res := c.claimFor(route)
	defer done()
	if res != nil {
		return res
	}

	// Confirmation, under the claim.
	d := c.confirmUnderClaim(route)

	// Handler or stored proposal, and the answer.
	var a answer
	switch d.kind {
	case proceed:
		a = c.execute()
	case propose:
		a = c.propose()
	default:
		return c.conclude(d)
	}

	// Record the answer under the claim, or release the claim.
	labelPhase(c.r.cfg, phaseAnswer)
	return c.record(a)
}

// claimFor takes the claim the route needs: in the handler's transaction
// for a DIRECT write whose handler claims there, else in the idempotency
// store. An in-call confirmation holds the claim while the user answers,
// so a retry meanwhile gets IDEMPOTENCY_IN_PROGRESS instead of a second
// write; it first takes a place in the quota of waiting confirmations,
// which done gives back when the call ends. A result is the answer
// instead.
func (c *call) claimFor(route confirmRoute) (done func(), res *toolcall.Result) {
	r := c.r
	done = func() {}
	lease := r.cfg.idemLease
	if route == routeInCall {
		// A caller past its quota of waiting confirmations is refused
		// before it claims a key for the length of a wait.
		release, e := c.holdElicitation()
		if e != nil {
			r.cfg.logger.WarnContext(c.ctx, "mcpwrite: confirmation refused: quota of waiting confirmations reached", "tool", c.name(), "tenant", c.rc.TenantID, "principal", c.rc.PrincipalID)
			return done, c.fail(impl.Errors{e})
		}
		done = release
		lease += r.cfg.elicitTimeout
	}
	if route == routeDirect && r.cfg.claimInHandler && !c.wt.noTxClaim.Load() {
		return done, c.deferClaim()
	}
	return done, c.claimKey(lease)
}

// confirmUnderClaim is the confirmation step the route takes under the
// claim: the previews, then asking the user (up to 2025-11-25), checking
// the verified answer still holds (2026-07-28) or preparing the proposal.
// A DIRECT write proceeds.
func (c *call) confirmUnderClaim(route confirmRoute) confirmDecision {
	switch route {
	case routePropose:
		return c.proposeDecision()
	case routeInCall:
		return c.confirmInCall()
	case routeAnswer:
		return c.confirmAnswered()
	}
	return confirmDecision{kind: proceed}
}

// record settles what the call holds and returns the answer: a kept answer
// is written to the hold (the claimed key, the proposal being applied),
// retrying a failed write; any other answer releases it. An answer that
// cannot be written is answered as UNAVAILABLE (call.unrecorded), never as
// what it was. Every path that holds something (write, apply_proposal)
// settles it here.
func (c *call) record(a answer) *toolcall.Result {
	if a.res != nil {
		return a.res
	}
	h := c.held
	if h == nil || !a.keep {
		c.release()
		return toolResult(a.body, a.isError)
	}
	c.held = nil
	if err := recordRetrying(h.attempt(c.ctx, a.body, a.isError)); err != nil {
		return c.unrecorded(h, a.body, a.isError, err)
	}
	return toolResult(a.body, a.isError)
}

// conclude answers a confirmation decision that ends the call without the
// handler: the input request, or the refusal, recorded under the claim when
// it is an outcome (a business error of a preview), else with the claim
// released.
func (c *call) conclude(d confirmDecision) *toolcall.Result {
	if d.kind == answerInputRequest {
		return d.res
	}
	return c.record(c.failure(d.es, d.record))
}

// execute runs the handler on a write that needs no (more) confirmation and
// renders its outcome.
func (c *call) execute() answer {
	r, wt, name := c.r, c.wt, c.name()
	var out *Outcome
	if k, _ := c.held.(*claim); k != nil || c.txClaim != nil {
		// The handler may record the outcome in its own transaction (and
		// claim the key there first).
		if c.txClaim != nil {
			k = c.txClaim
		}
		out = &Outcome{Key: k.key, Fingerprint: k.fp, Now: r.ans.now(), TTL: r.cfg.idemTTL, Lease: r.cfg.idemLease, ClaimInTx: c.txClaim != nil,
			render: func(resp proto.Message) ([]byte, error) {
				o, err := successEnvelope(resp, wt.doc.Result, wt.steps, r.ans.warnings(wt, c.body), r.ans.shape.enums, r.ans.shape)
				if err != nil {
					return nil, err
				}
				return r.ans.render(c.ctx, name, o), nil
			}}
		c.ctx = context.WithValue(c.ctx, outcomeKey{}, out)
	}
	labelPhase(c.r.cfg, phaseHandler)
	resp, es, class, held := c.invoke()
	labelPhase(c.r.cfg, phaseAnswer)
	if held != nil {
		fp := c.txClaim.fp
		c.txClaim = nil
		return answer{res: c.answerExisting(fp, held)}
	}
	if c.txClaim != nil && len(es) == 0 && !out.recorded && !wt.noTxClaim.Swap(true) {
		r.cfg.logger.ErrorContext(c.ctx, "mcpwrite: IdempotencyOptions.ClaimInHandler is set but the handler does not record keyed writes in its transaction; the runtime claims this tool's keys from now on",
			"tool", name)
	}
	if c.txClaim != nil && (len(es) == 0 && !out.recorded || len(es) > 0 && class == classBusiness) {
		// The handler's transaction did not record this outcome (a business
		// error rolls back with the claim): the runtime records it.
		c.adoptTxClaim()
	}
	if len(es) > 0 {
		// A business error is an outcome; a transient or internal one is not.
		return c.failure(es, class == classBusiness)
	}
	if out != nil && out.recorded {
		c.held = nil // committed with the write
		return answer{body: out.body}
	}
	o, err := successEnvelope(resp, wt.doc.Result, wt.steps, r.ans.warnings(wt, c.body), r.ans.shape.enums, r.ans.shape)
	if err != nil {
		return c.failure(impl.Errors{r.ans.internal(c.ctx, name, fmt.Errorf("marshal response: %w", err))}, false)
	}
	return answer{body: r.ans.render(c.ctx, name, o), keep: true}
}

// invoke calls the handler. When the tool allows it, an Aborted answer (an
// optimistic-lock conflict) re-runs decode and enrich, so resolvers read the
// new state (version, etag), and tries again. A failure comes back as
// envelope entries with their class: a resolver that fails during the retry
// keeps its own class (a transient lookup failure is not stored as an
// outcome; an internal one is logged with its cause and trace_id).
//
// held is the record that holds the key when the handler's own claim found
// it taken (idempotency.HeldError).
func (c *call) invoke() (resp proto.Message, es impl.Errors, class errClass, held *idempotency.Record) {
	r, wt, m := c.r, c.wt, c.m
	for attempt := uint32(0); ; attempt++ {
		resp, err := wt.bind.Invoke(c.ctx, m)
		if err == nil {
			return resp, nil, classBusiness, nil
		}
		if held := (*idempotency.HeldError)(nil); errors.As(err, &held) && c.txClaim != nil {
			return nil, nil, classBusiness, held.Record
		}
		if status.Code(err) != codes.Aborted || attempt >= wt.doc.RetryOnConflict {
			es, class := r.ans.handlerError(c.ctx, wt, m, err)
			return nil, es, class, nil
		}
		// Only a call that is not a dry run gets here.
		fresh, es, class := c.prepare(nil)
		if len(es) > 0 {
			return nil, es, class, nil
		}
		m = fresh
	}
}

// holdElicitation counts one more waiting confirmation of the caller, or answers
// the RESOURCE_EXHAUSTED entry of the quota it would exceed; release ends
// the wait.
func (c *call) holdElicitation() (release func(), e *impl.ErrorEntry) {
	rc, tool := c.rc, c.name()
	q, w := c.r.cfg.elicitQuotas, &c.r.waits
	owner := [2]string{rc.TenantID, rc.PrincipalID}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.byTenant == nil {
		w.byTenant, w.byOwner = map[string]int{}, map[[2]string]int{}
	}
	hint := fmt.Sprintf("Answer or cancel a confirmation the user is being asked, or retry after details.retry_after_seconds, when the longest wait ends (%s).", c.r.cfg.elicitTimeout)
	switch {
	case w.byOwner[owner] >= q.perPrincipal:
		return nil, exhausted(quotaElicitationsPerPrincipal, q.perPrincipal, c.r.cfg.elicitTimeout,
			fmt.Sprintf("%s was not run: you have the quota of %d confirmations waiting for an answer; nothing was written", tool, q.perPrincipal), hint)
	case w.byTenant[rc.TenantID] >= q.perTenant:
		return nil, exhausted(quotaElicitationsPerTenant, q.perTenant, c.r.cfg.elicitTimeout,
			fmt.Sprintf("%s was not run: your tenant has the quota of %d confirmations waiting for an answer; nothing was written", tool, q.perTenant), hint)
	}
	w.byOwner[owner]++
	w.byTenant[rc.TenantID]++
	var once sync.Once
	return func() {
		once.Do(func() {
			w.mu.Lock()
			defer w.mu.Unlock()
			if w.byOwner[owner]--; w.byOwner[owner] <= 0 {
				delete(w.byOwner, owner)
			}
			if w.byTenant[rc.TenantID]--; w.byTenant[rc.TenantID] <= 0 {
				delete(w.byTenant, rc.TenantID)
			}
		})
	}, nil
}

// previewOnly reports a call of a preview_unless tool whose agent did not
// ask for the write (its bool field is not true).
func (c *call) previewOnly() bool {
	pu := c.wt.doc.PreviewUnless
	return pu != nil && !boolField(c.m, pu.Field)
}

// previewAnswer answers a call of a preview_unless tool whose agent did not
// ask for the write: nothing is claimed, confirmed or written. The domain
// check runs as for the write, so a write the domain would refuse answers
// that refusal. Otherwise the answer has the write's own shape with
// is_preview true: the members of the domain's preview named like fields of
// the tool's answer (the order as it would be, the message, next actions)
// where the write answers them, its warnings among the answer's warnings,
// and under preview the request as the user is shown it (personRequest)
// and the rest of the domain's preview (totals, what it would change).
func (c *call) previewAnswer() *toolcall.Result {
	r, wt, ctx, m := c.r, c.wt, c.ctx, c.m
	name, pu := wt.doc.Name, wt.doc.PreviewUnless
	dp, des, _ := r.ans.domainCheck(ctx, name, m)
	if len(des) > 0 {
		return c.fail(des)
	}
	req, err := r.ans.shape.personRequest(wt.doc, m, c.body)
	if err != nil {
		return c.fail(impl.Errors{r.ans.internal(ctx, name, fmt.Errorf("marshal preview: %w", err))})
	}
	lifted, domainWs, rest := liftAnswerFields(wt.doc, dp)
	po := object{{"request", req}}
	if rest != nil {
		po = append(po, member{"domain", rest})
	}
	next := fmt.Sprintf("Nothing was written. Show this preview to the user; to make the change, call %s again with the same arguments and %s: true", name, pu.Argument)
	if defaultConfirmation(wt.doc) != ConfirmDirect {
		next += " (the user is then asked to confirm)"
	}
	o := object{{"success", true}, {"is_preview", true}}
	o = append(o, lifted...)
	o = append(o,
		member{"valid", true},
		member{"preview", po},
		member{"suggestions", []string{next + "."}},
		member{"warnings", warningsJSON(append(r.ans.warnings(wt, c.body), domainWs...))},
	)
	return toolResult(r.ans.render(ctx, name, o), false)
}

// validateResult is the dry-run answer: valid, every error, warnings,
// suggestions and, when valid, the complete request the handler would get.
func (c *call) validateResult(es impl.Errors) object {
	r, wt, ctx, m := c.r, c.wt, c.ctx, c.m
	name := wt.doc.Name
	if r.cfg.errorHook != nil {
		for _, e := range es {
			r.cfg.errorHook(ctx, name, m, e)
		}
	}
	var domainPreview map[string]any
	if len(es) == 0 {
		// The domain answers what the write would answer, without writing.
		dp, des, class := r.ans.domainCheck(ctx, name, m)
		if class == classInternal || class == classTransient && len(des) > 0 {
			return errorEnvelope(des)
		}
		if len(des) > 0 && r.cfg.errorHook != nil {
			for _, e := range des {
				r.cfg.errorHook(ctx, name, m, e)
			}
		}
		es, domainPreview = des, dp
	}
	valid := len(es) == 0
	suggestions := []string{}
	// success: the check itself ran (a bad payload is not a failed call);
	// valid: whether the write would be accepted.
	o := object{{"success", true}, {"valid", valid}, {"errors", entriesJSON(es)}, {"warnings", r.ans.warnings(wt, c.body)}}
	if !valid {
		return append(o, member{"suggestions", suggestions})
	}
	suggestions = append(suggestions, fmt.Sprintf("Call %s with this payload to commit the write", name))
	preview, err := r.ans.shape.validatedRequest(wt.doc, m)
	if err != nil {
		e := r.ans.internal(ctx, name, fmt.Errorf("marshal preview: %w", err))
		return errorEnvelope(impl.Errors{e})
	}
	filled := []string{}
	for _, f := range wt.doc.ServerFills {
		filled = append(filled, filledPaths(m, f)...)
	}
	po := object{{"request", preview}, {"server_filled", filled}}
	if domainPreview != nil {
		po = append(po, member{"domain", domainPreview})
	}
	return append(o, member{"suggestions", suggestions}, member{"preview", po})
}
