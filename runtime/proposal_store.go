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
