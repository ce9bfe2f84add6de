package runtime

// Entry point: the apply_proposal tool, as named steps. beginApply takes the
// proposal (the tool's front half: arguments, request context, the store's
// BeginApply), which the call then holds (applying, a hold); current checks
// it still holds; apply runs the handler and conclude turns its outcome
// into the call's answer, which the write's back half settles (call.record:
// the result saved on the proposal, or the proposal given back).

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
	"google.golang.org/protobuf/proto"
)

// applyHandler commits a proposal by id: once, for its owner, after checking
// that re-running enrichment on the original arguments still yields the same
// request (otherwise the user confirmed something that no longer holds).
func (st serviceTools) applyHandler(ctx context.Context, req *toolcall.Request) (*toolcall.Result, error) {
	a, c, res := st.beginApply(ctx, req)
	if res != nil {
		return res, nil
	}
	defer func() {
		if x := recover(); x != nil {
			c.release()
			panic(x)
		}
	}()
	return c.record(a.apply(c)), nil
}

// applying is one apply of a proposal in progress: the store holds the
// proposal for it (BeginApply) until the call's back half saves its result
// (FinishApply) or gives it back (AbortApply). It is the hold of the
// call of the proposal's tool.
type applying struct {
	r    *registry
	ctx  context.Context
	name string // the apply tool
	p    *proposal.Proposal
}

// beginApply reads the proposal id, resolves who calls and takes the
// proposal from the store; the call of the proposal's tool holds it. A
// result is the answer instead: bad arguments, a proposal the caller cannot
// apply, one another registration made, or the saved result of one
// already applied.
func (st serviceTools) beginApply(ctx context.Context, req *toolcall.Request) (*applying, *call, *toolcall.Result) {
	name := st.r.svc.ApplyTool
	vals, es := st.r.readArgs(arguments(req), st.r.ans.proposalIDArg())
	if len(es) > 0 {
		return nil, nil, st.r.ans.errorResult(ctx, name, nil, es)
	}
	id := vals[st.r.ans.control().proposalID].Str
	ctx, rc, hasRC := st.r.caller(ctx, req)
	p, err := st.r.cfg.proposals.BeginApply(ctx, id, rc.TenantID, rc.PrincipalID, st.r.ans.now())
	if err != nil {
		return nil, nil, st.r.ans.errorResult(ctx, name, nil, impl.Errors{st.r.ans.proposalError(ctx, name, id, err)})
	}
	a := &applying{r: st.r, ctx: ctx, name: name, p: p}
	wt, ok := st.r.tools[p.Tool]
	if !ok {
		// Made by another registration sharing the store (another service,
		// or this one under other names): left for its own apply tool.
		if p.State != proposal.StateApplied {
			a.release(ctx)
		}
		return nil, nil, st.r.ans.errorResult(ctx, name, nil, impl.Errors{{
			Code: impl.CodeProposalNotFound, Field: "proposal_id", Details: map[string]any{"proposal_id": id, "tool": p.Tool},
			Message:     fmt.Sprintf("proposal %q was made by %s, which %s does not serve", id, p.Tool, name),
			Suggestions: &impl.Suggestions{Hint: fmt.Sprintf("Apply it with the apply tool registered beside %s.", p.Tool)},
		}})
	}
	if p.State == proposal.StateApplied {
		return nil, nil, st.r.ans.replay(ctx, name, p.Result, p.ResultIsError, time.Time{})
	}
	c := st.r.newCall(ctx, wt, rc, hasRC)
	c.held = a
	return a, c, nil
}

// attempt saves the result on the proposal. A proposal another apply took
// over (ErrNotApplying) ends the retries.
func (a *applying) attempt(ctx context.Context, body []byte, isError bool) func() recordTry {
	return func() recordTry {
		err := a.r.cfg.proposals.FinishApply(context.WithoutCancel(ctx), a.p.ID, body, isError)
		return recordTry{err: err, final: errors.Is(err, proposal.ErrNotApplying)}
	}
}

// release gives the proposal back for another apply.
func (a *applying) release(ctx context.Context) {
	if err := a.r.cfg.proposals.AbortApply(context.WithoutCancel(ctx), a.p.ID); err != nil {
		a.r.cfg.logger.WarnContext(ctx, "mcpwrite: proposal abort failed", "proposal_id", a.p.ID, "error", err)
	}
}

// unsaved words an applied proposal whose result could not be saved: the
// caller is told the write was applied and must not be applied again
// (never plain success), and the proposal stays applying until its apply
// lease ends.
func (a *applying) unsaved(*call, bool) unsaved {
	r, p := a.r, a.p
	return unsaved{entry: &impl.ErrorEntry{
		Field:       r.ans.control().proposalID,
		Message:     fmt.Sprintf("proposal %q was applied, but its result could not be saved: do not apply it again", p.ID),
		Details:     map[string]any{"proposal_id": p.ID, "applied": true},
		Suggestions: &impl.Suggestions{Hint: "The write happened; details.result is its result. Read the current state instead of applying again."},
	}, tool: a.name, hooked: true, log: "mcpwrite: proposal result not saved", attrs: []any{"proposal_id", p.ID, "tool", p.Tool}}
}

// apply decodes the stored request, checks it still holds and runs the
// handler on it; c is the call of the proposal's tool, which holds the
// proposal. The answer is the call's, for call.record to settle.
func (a *applying) apply(c *call) answer {
	r, ctx, name, p, wt := a.r, a.ctx, a.name, a.p, c.wt
	stored := wt.bind.NewRequest()
	if err := proto.Unmarshal(p.Request, stored); err != nil {
		return a.failure(nil, impl.Errors{r.ans.internal(ctx, name, fmt.Errorf("proposal %s request: %w", p.ID, err))}, false)
	}
	if es := a.current(c, stored); es != nil {
		return a.failure(stored, es, false)
	}
	// The handler may check the state and record the outcome under its own
	// lock, in its transaction (Outcome with a ProposalID).
	var ws []impl.Warning
	if g := (&call{r: r, wt: wt, raw: p.Arguments}); len(g.begin(nil, nil)) == 0 {
		ws = r.ans.warnings(wt, g.body)
	}
	ap := &Outcome{ProposalID: p.ID, ApplyToken: p.ApplyStartedAt, StateDigest: p.StateDigest, Now: r.ans.now(), render: func(resp proto.Message) ([]byte, error) {
		o, err := successEnvelope(resp, wt.doc.Result, wt.steps, ws, r.ans.shape.enums, r.ans.shape)
		if err != nil {
			return nil, err
		}
		return r.ans.render(ctx, name, o), nil
	}}
	resp, err := wt.bind.Invoke(context.WithValue(ctx, outcomeKey{}, ap), stored)
	return a.conclude(c, stored, ap, ws, resp, err)
}

// current checks the proposal still holds: the entity's state is as shown
// and the arguments still yield the stored request. It then takes the
// server's "current time" fills afresh; ids and everything else stay
// exactly as the user confirmed them. Errors are the answer instead, the
// proposal given back first (so that a fresh one can take its place).
func (a *applying) current(c *call, stored proto.Message) impl.Errors {
	r, ctx, p, wt := a.r, a.ctx, a.p, c.wt
	// The state check comes first: when the entity changed, what changed
	// about it tells the user more than which request fields differ.
	if p.StateDigest != "" && r.cfg.statePreview != nil {
		now, ok, es := r.ans.entityState(ctx, wt.doc.Name, stored)
		if len(es) > 0 && isInternal(es) {
			c.release()
			return es
		}
		if len(es) > 0 || !ok || now.Digest != p.StateDigest {
			c.release()
			return a.stale(c, now, ok && len(es) == 0)
		}
	}
	fresh, stale := c.staleness(p, stored)
	if stale != nil {
		c.release()
		if len(stale) == 1 {
			// Only a changed fill (not a refusal) can be proposed afresh.
			c.offerFreshProposal(p, stale[0])
		}
		return stale
	}
	for _, f := range wt.doc.ServerFills {
		if f.Source == "generated" && f.How == nowFill {
			copyPath(stored.ProtoReflect(), fresh.ProtoReflect(), f.ProtoPath())
		}
	}
	return nil
}

// stale is the PROPOSAL_STALE answer of a proposal whose entity changed
// since the user saw it (now, ok: what it is now, whether it exists), with
// the same change proposed afresh against the current state when it can
// be.
func (a *applying) stale(c *call, now EntityState, ok bool) impl.Errors {
	p := a.p
	e := staleState(a.r.ans.control().proposalID, fmt.Sprintf("Proposal %q", p.ID), EntityState{Target: p.Target, Summary: p.StateSummary}, now, ok)
	e.Details["proposal_id"] = p.ID
	c.offerFreshProposal(p, e)
	return impl.Errors{e}
}

// conclude turns the handler's outcome into the call's answer: the result
// it recorded itself, a business error or success kept as the proposal's
// result, or an answer that gives the proposal back (state changed under
// the write, transient or internal error).
func (a *applying) conclude(c *call, stored proto.Message, ap *Outcome, ws []impl.Warning, resp proto.Message, err error) answer {
	r, ctx, name, p, wt := a.r, a.ctx, a.name, a.p, c.wt
	switch {
	case errors.Is(err, proposal.ErrStale):
		// The state changed after the check above, before the write locked it.
		c.release()
		now, ok, es := r.ans.entityState(ctx, wt.doc.Name, stored)
		return a.failure(stored, a.stale(c, now, ok && len(es) == 0), false)
	case errors.Is(err, proposal.ErrNotApplying):
		// Another apply took this one over; its outcome is the proposal's.
		c.held = nil
		return answer{res: serviceTools{r}.supersededApply(ctx, name, p)}
	case err == nil && ap.recorded:
		c.held = nil // saved with the write, in the handler's transaction
		return answer{body: ap.body}
	case err != nil:
		// A business error is an outcome; a transient or internal one is not.
		es, class := r.ans.handlerError(ctx, wt, stored, err)
		return a.failure(stored, es, class == classBusiness)
	}
	o, err := successEnvelope(resp, wt.doc.Result, wt.steps, ws, r.ans.shape.enums, r.ans.shape)
	if err != nil {
		return a.failure(stored, impl.Errors{r.ans.internal(ctx, name, fmt.Errorf("marshal response: %w", err))}, false)
	}
	return answer{body: r.ans.render(ctx, name, o), keep: true}
}

// failure is the apply tool's answer es for the stored request (nil before
// it is decoded); keep says whether it is the proposal's result.
func (a *applying) failure(stored proto.Message, es impl.Errors, keep bool) answer {
	return answer{body: a.r.ans.errorBody(a.ctx, a.name, stored, es), isError: true, keep: keep}
}
