package runtime

// The proposal stage: the previews a proposal shows, the record stored, its
// id and expiry, and the proposal answer. Nothing here applies a proposal.

import (
	"encoding/base32"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"
	"unicode"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

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
func (c *call) storeProposal() ([]byte, impl.Errors) {
	r, wt, ctx, m, loss := c.r, c.wt, c.ctx, c.m, c.loss
	name := wt.doc.Name
	if r.svc.ApplyTool == "" {
		return nil, impl.Errors{r.ans.internal(ctx, name, fmt.Errorf("policy asked for confirmation of %s but the service has no apply tool", name))}
	}
	reqBin, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return nil, impl.Errors{r.ans.internal(ctx, name, fmt.Errorf("marshal proposal request: %w", err))}
	}
	preview, err := r.ans.shape.personRequest(wt.doc, m, c.body)
	if err != nil {
		return nil, impl.Errors{r.ans.internal(ctx, name, fmt.Errorf("marshal proposal preview: %w", err))}
	}
	args := json.RawMessage(c.raw)
	if len(strings.TrimSpace(string(c.raw))) == 0 || !json.Valid(c.raw) {
		args = json.RawMessage("{}")
	}
	now := r.ans.now()
	p := &proposal.Proposal{
		ID:             r.cfg.proposalID(),
		Tenant:         c.rc.TenantID,
		Principal:      c.rc.PrincipalID,
		Tool:           name,
		Classification: r.ans.shape.classification(wt.doc.Classification),
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
		if e := r.ans.proposalQuotaError(name, err); e != nil {
			r.cfg.logger.WarnContext(ctx, "mcpwrite: proposal refused: quota reached", "tool", name, "tenant", c.rc.TenantID, "principal", c.rc.PrincipalID, "error", err)
			return nil, impl.Errors{e}
		}
		return nil, impl.Errors{r.ans.internal(ctx, name, fmt.Errorf("store proposal: %w", err))}
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
	if text := c.proposalConfirmation(); text != "" {
		po = append(po, member{"confirmation_message", text})
	}
	if s := c.agentSummaryOf(args); s != "" {
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
	ws := r.ans.warnings(wt, c.body)
	if loss.warning != nil {
		ws = append(ws, *loss.warning)
	}
	o := object{
		{"success", true},
		{"proposal", po},
		{"suggestions", []string{fmt.Sprintf(
			"Nothing was written yet. Show the summary and preview to the user; if they confirm, call %s with %s %q before it expires.",
			r.svc.ApplyTool, r.ans.control().proposalID, p.ID)}},
		{"warnings", warningsJSON(ws)},
	}
	return r.ans.render(ctx, name, o), nil
}

// proposalConfirmation is the tool's confirmation_message filled from the
// call, as an elicitation of the same call shows it (confirmMessage): what
// the user is asked to agree to; "" without a template or when it cannot
// be filled (logged; the proposal still carries its summary and preview).
func (c *call) proposalConfirmation() string {
	r, wt := c.r, c.wt
	tpl := wt.doc.ConfirmationMessage
	if tpl == "" {
		return ""
	}
	text, err := r.ans.shape.renderConfirmation(tpl, c.m, c.loss.domain)
	if err != nil {
		r.cfg.logger.WarnContext(c.ctx, "mcpwrite: confirmation message template not filled; proposing without it", "tool", wt.doc.Name, "error", err)
		return ""
	}
	return text
}

// agentSummaryOf is the agent's own summary of the change in the call's
// arguments, made safe to show ("" when the tool takes none or it was not
// sent). The arguments were checked before anything was proposed.
func (c *call) agentSummaryOf(args []byte) string {
	if c.wt.doc.AgentSummary == "" {
		return ""
	}
	g := &call{r: c.r, wt: c.wt, raw: args}
	if es := g.begin(nil, nil); len(es) > 0 {
		return ""
	}
	return neutralize(g.ctl.summary)
}

// timeFormat is how every time is written for agents.
const timeFormat = "2006-01-02T15:04:05Z07:00"

// proposalID mints an id of the same form as proposal.NewID from the
// configured random source, so tests can pin it.
func (cfg *config) proposalID() string {
	var b [16]byte
	if _, err := io.ReadFull(cfg.rand, b[:]); err != nil {
		return proposal.NewID()
	}
	return proposal.IDPrefix + base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:])
}

// proposalEntity names what a proposal changes: the domain's type and id
// from its state preview or, for a create, the tool's result entity and the
// id the server filled in the request. nil when neither is known.
func proposalEntity(wt *boundTool, loss lossInfo, preview json.RawMessage) object {
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
