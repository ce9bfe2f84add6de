package runtime

// Entry points: the apply_proposal and discard_proposal tools, which load a
// stored proposal, check it is the caller's and still current, and apply or
// discard it.

import (
	"context"
	"errors"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
)

// supersededApply answers an apply that rolled back because another apply
// of the proposal took it over: the proposal's result once that apply
// finished, else that it is still being applied.
func (st serviceTools) supersededApply(ctx context.Context, name string, p *proposal.Proposal) *toolcall.Result {
	cur, err := st.r.cfg.proposals.Get(ctx, p.ID, p.Tenant, p.Principal, st.r.ans.now())
	if err == nil && cur.State == proposal.StateApplied {
		return st.r.ans.replay(ctx, name, cur.Result, cur.ResultIsError, time.Time{})
	}
	if err == nil || errors.Is(err, proposal.ErrExpired) {
		err = proposal.ErrBusy
	}
	return st.r.ans.errorResult(ctx, name, nil, impl.Errors{st.r.ans.proposalError(ctx, name, p.ID, err)})
}

// discardHandler drops a proposal the user rejected; discarding twice succeeds.
func (st serviceTools) discardHandler(ctx context.Context, req *toolcall.Request) (*toolcall.Result, error) {
	name := st.r.svc.DiscardTool
	vals, es := st.r.readArgs(arguments(req), st.r.ans.proposalIDArg())
	if len(es) > 0 {
		return st.r.ans.errorResult(ctx, name, nil, es), nil
	}
	id := vals[st.r.ans.control().proposalID].Str
	rc, _ := st.r.requestContext(ctx, req)
	if err := st.r.cfg.proposals.Discard(ctx, id, rc.TenantID, rc.PrincipalID, st.r.ans.now()); err != nil && !errors.Is(err, proposal.ErrDiscarded) {
		return st.r.ans.errorResult(ctx, name, nil, impl.Errors{st.r.ans.proposalError(ctx, name, id, err)}), nil
	}
	return toolResult(st.r.ans.render(ctx, name, object{{"success", true}, {"proposal_id", id}, {"discarded", true}}), false), nil
}
