package runtime

// Entry points: the apply_proposal and discard_proposal tools, which load a
// stored proposal, check it is the caller's and still current, and apply or
// discard it.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"
)

// supersededApply answers an apply that rolled back because another apply
// of the proposal took it over: the proposal's result once that apply
// finished, else that it is still being applied.
func (st serviceTools) supersededApply(ctx context.Context, name string, p *proposal.Proposal) *mcp.CallToolResult {
	cur, err := st.r.cfg.proposals.Get(ctx, p.ID, p.Tenant, p.Principal, st.r.ans.now())
	if err == nil && cur.State == proposal.StateApplied {
		return st.r.ans.replay(ctx, name, cur.Result, cur.ResultIsError, time.Time{})
	}
	if err == nil || errors.Is(err, proposal.ErrExpired) {
		err = proposal.ErrBusy
	}
	return st.r.ans.errorResult(ctx, name, nil, impl.Errors{st.r.ans.proposalError(ctx, name, p.ID, err)})
}

// staleness re-derives the request from the proposal's arguments and compares
// it with the stored one, ignoring fields that legitimately differ per call:
// generated values (IDs, timestamps) and request-context metadata
// (correlation, causation, trace), which belong to the call, not to the world.
// c is the apply call, for the proposal's tool.
func (c *call) staleness(p *proposal.Proposal, stored proto.Message) (proto.Message, impl.Errors) {
	r, wt := c.r, c.wt
	f := r.newCall(c.ctx, wt, c.rc, c.hasRC)
	f.raw = p.Arguments
	es := f.begin(nil, nil)
	var fresh proto.Message
	if len(es) == 0 {
		fresh, es, _ = f.prepare(nil) // the request the write gets
	}
	if len(es) > 0 {
		stale := &impl.ErrorEntry{
			Code: impl.CodeProposalStale, Field: r.ans.control().proposalID,
			Message:     fmt.Sprintf("proposal %q no longer validates against the current state", p.ID),
			Details:     map[string]any{"proposal_id": p.ID},
			Suggestions: &impl.Suggestions{Hint: "Nothing was written. Call the write tool again to make a fresh proposal."},
		}
		return nil, append(impl.Errors{stale}, es...)
	}
	a, b := comparableRequest(wt, stored), comparableRequest(wt, fresh)
	if proto.Equal(a, b) {
		return fresh, nil
	}
	return nil, impl.Errors{{
		Code: impl.CodeProposalStale, Field: r.ans.control().proposalID,
		Message:     fmt.Sprintf("proposal %q is stale: the server would now fill it differently", p.ID),
		Details:     map[string]any{"proposal_id": p.ID, "changed_fields": changedFields(a.ProtoReflect(), b.ProtoReflect())},
		Suggestions: &impl.Suggestions{Hint: "Nothing was written. Call the write tool again to make a fresh proposal and show it to the user."},
	}}
}

// discardHandler drops a proposal the user rejected; discarding twice succeeds.
func (st serviceTools) discardHandler(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
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

// offerFreshProposal makes a new proposal of a stale one's arguments
// against the current state and puts it in e (details.fresh_proposal), so
// the user can confirm what would happen now instead. When the arguments no
// longer make a proposal (the entity is gone, the domain refuses), e is left
// as it is and tells the agent to call the write tool again.
// c is the apply call, for the proposal's tool; the fresh proposal is made
// as a call without control arguments.
func (c *call) offerFreshProposal(p *proposal.Proposal, e *impl.ErrorEntry) {
	r, wt, ctx, name := c.r, c.wt, c.ctx, c.name()
	f := r.newCall(ctx, wt, c.rc, c.hasRC)
	f.raw = p.Arguments
	if es := f.begin(nil, nil); len(es) > 0 {
		return
	}
	f.ctl = control{} // made afresh: no key, no dry_run
	m, es, _ := f.prepare(nil)
	if len(es) > 0 {
		return
	}
	f.m = m
	dp, des, _ := r.ans.domainCheck(ctx, name, m)
	if len(des) > 0 {
		return
	}
	info := lossInfo{domain: dp}
	st, ok, es := r.ans.entityState(ctx, name, m)
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
	e.Suggestions = &impl.Suggestions{Hint: "Nothing was written. details.fresh_proposal is the same change against the current state: show it to the user and, if they confirm, call " + r.svc.ApplyTool + " with its proposal_id."}
}
