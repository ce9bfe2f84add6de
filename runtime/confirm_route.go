package runtime

import "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"

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
