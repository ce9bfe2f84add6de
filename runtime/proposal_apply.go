package runtime

// Entry point: the apply_proposal tool, as named steps. beginApply takes the
// proposal (the tool's front half: arguments, request context, the store's
// BeginApply); current checks it still holds; apply runs the handler and
// conclude answers, saving the result through finish or giving the
// proposal back through abort.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"
)

// applyHandler commits a proposal by id: once, for its owner, after checking
// that re-running enrichment on the original arguments still yields the same
// request (otherwise the user confirmed something that no longer holds).
func (st serviceTools) applyHandler(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, c, res := st.beginApply(ctx, req)
	if res != nil {
		return res, nil
	}
	defer func() {
		if x := recover(); x != nil {
			a.abort()
			panic(x)
		}
	}()
	return a.apply(c), nil
}

// applying is one apply of a proposal in progress: the store holds the
// proposal for it (BeginApply) until finish saves its result or abort
// gives it back.
type applying struct {
	r        *registry
	ctx      context.Context
	name     string // the apply tool
	p        *proposal.Proposal
	finished bool
}

// beginApply reads the proposal id, resolves who calls and takes the
// proposal from the store. A result is the answer instead: bad arguments,
// a proposal the caller cannot apply, one another registration made, or
// the saved result of one already applied.
func (st serviceTools) beginApply(ctx context.Context, req *mcp.CallToolRequest) (*applying, *call, *mcp.CallToolResult) {
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
	wt, ok := st.r.tools[p.Tool]
	if !ok {
		// Made by another registration sharing the store (another service,
		// or this one under other names): left for its own apply tool.
		if p.State != proposal.StateApplied {
			if err := st.r.cfg.proposals.AbortApply(context.WithoutCancel(ctx), p.ID); err != nil {
				st.r.cfg.logger.WarnContext(ctx, "mcpwrite: proposal abort failed", "proposal_id", p.ID, "error", err)
			}
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
	return &applying{r: st.r, ctx: ctx, name: name, p: p}, st.r.newCall(ctx, wt, rc, hasRC), nil
}

// abort gives the proposal back for another apply, unless it is settled.
func (a *applying) abort() {
	if a.finished {
		return
	}
	a.finished = true
	if err := a.r.cfg.proposals.AbortApply(context.WithoutCancel(a.ctx), a.p.ID); err != nil {
		a.r.cfg.logger.WarnContext(a.ctx, "mcpwrite: proposal abort failed", "proposal_id", a.p.ID, "error", err)
	}
}

// finish saves the result; when it cannot be saved after retries the
// caller is told the write was applied but not recorded (never plain
// success), and the proposal stays applying until its apply lease ends.
func (a *applying) finish(body []byte, isError bool) *mcp.CallToolResult {
	a.finished = true
	r, p := a.r, a.p
	err := recordRetrying(func() recordTry {
		err := r.cfg.proposals.FinishApply(context.WithoutCancel(a.ctx), p.ID, body, isError)
		return recordTry{err: err, final: errors.Is(err, proposal.ErrNotApplying)}
	})
	if err == nil {
		return toolResult(body, isError)
	}
	e := &impl.ErrorEntry{
		Code: impl.CodeUnavailable, Field: r.ans.control().proposalID, TraceID: r.ans.traceID(),
		Message:     fmt.Sprintf("proposal %q was applied, but its result could not be saved: do not apply it again", p.ID),
		Details:     map[string]any{"proposal_id": p.ID, "applied": true},
		Suggestions: &impl.Suggestions{Hint: "The write happened; details.result is its result. Read the current state instead of applying again."},
	}
	if o, perr := parseObject(body); perr == nil {
		e.Details["result"] = o
	}
	r.cfg.logger.ErrorContext(a.ctx, "mcpwrite: proposal result not saved", "proposal_id", p.ID, "tool", p.Tool, "trace_id", e.TraceID, "error", err)
	return r.ans.errorResult(a.ctx, a.name, nil, impl.Errors{e})
}

// apply decodes the stored request, checks it still holds and runs the
// handler on it; c is the call of the proposal's tool.
func (a *applying) apply(c *call) *mcp.CallToolResult {
	r, ctx, name, p, wt := a.r, a.ctx, a.name, a.p, c.wt
	stored := wt.bind.NewRequest()
	if err := proto.Unmarshal(p.Request, stored); err != nil {
		a.abort()
		return r.ans.errorResult(ctx, name, nil, impl.Errors{r.ans.internal(ctx, name, fmt.Errorf("proposal %s request: %w", p.ID, err))})
	}
	if res := a.current(c, stored); res != nil {
		return res
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
// exactly as the user confirmed them. A result is the answer instead.
func (a *applying) current(c *call, stored proto.Message) *mcp.CallToolResult {
	r, ctx, name, p, wt := a.r, a.ctx, a.name, a.p, c.wt
	// The state check comes first: when the entity changed, what changed
	// about it tells the user more than which request fields differ.
	if p.StateDigest != "" && r.cfg.statePreview != nil {
		now, ok, es := r.ans.entityState(ctx, wt.doc.Name, stored)
		if len(es) > 0 && isInternal(es) {
			a.abort()
			return r.ans.errorResult(ctx, name, stored, es)
		}
		if len(es) > 0 || !ok || now.Digest != p.StateDigest {
			a.abort()
			e := staleState(r.ans.control().proposalID, fmt.Sprintf("Proposal %q", p.ID), EntityState{Target: p.Target, Summary: p.StateSummary}, now, ok && len(es) == 0)
			e.Details["proposal_id"] = p.ID
			c.offerFreshProposal(p, e)
			return r.ans.errorResult(ctx, name, stored, impl.Errors{e})
		}
	}
	fresh, stale := c.staleness(p, stored)
	if stale != nil {
		a.abort()
		if len(stale) == 1 {
			// Only a changed fill (not a refusal) can be proposed afresh.
			c.offerFreshProposal(p, stale[0])
		}
		return r.ans.errorResult(ctx, name, stored, stale)
	}
	for _, f := range wt.doc.ServerFills {
		if f.Source == "generated" && f.How == nowFill {
			copyPath(stored.ProtoReflect(), fresh.ProtoReflect(), f.ProtoPath())
		}
	}
	return nil
}

// conclude answers the handler's outcome: the result it recorded itself,
// a business error or success saved as the proposal's result, or the
// proposal given back (state changed under the write, internal error).
func (a *applying) conclude(c *call, stored proto.Message, ap *Outcome, ws []impl.Warning, resp proto.Message, err error) *mcp.CallToolResult {
	r, ctx, name, p, wt := a.r, a.ctx, a.name, a.p, c.wt
	if errors.Is(err, proposal.ErrStale) {
		// The state changed after the check above, before the write locked it.
		a.abort()
		now, ok, es := r.ans.entityState(ctx, wt.doc.Name, stored)
		e := staleState("proposal_id", fmt.Sprintf("Proposal %q", p.ID), EntityState{Target: p.Target, Summary: p.StateSummary}, now, ok && len(es) == 0)
		e.Details["proposal_id"] = p.ID
		c.offerFreshProposal(p, e)
		return r.ans.errorResult(ctx, name, stored, impl.Errors{e})
	}
	if errors.Is(err, proposal.ErrNotApplying) {
		// Another apply took this one over; its outcome is the proposal's.
		a.finished = true
		return serviceTools{r}.supersededApply(ctx, name, p)
	}
	if err == nil && ap.recorded {
		a.finished = true
		return toolResult(ap.body, false)
	}
	if err != nil {
		es, class := r.ans.handlerError(ctx, wt, stored, err)
		body := r.ans.errorBody(ctx, name, stored, es)
		if class == classBusiness {
			return a.finish(body, true)
		}
		a.abort()
		return toolResult(body, true)
	}
	o, err := successEnvelope(resp, wt.doc.Result, wt.steps, ws, r.ans.shape.enums, r.ans.shape)
	if err != nil {
		a.abort()
		return r.ans.errorResult(ctx, name, stored, impl.Errors{r.ans.internal(ctx, name, fmt.Errorf("marshal response: %w", err))})
	}
	return a.finish(r.ans.render(ctx, name, o), false)
}
