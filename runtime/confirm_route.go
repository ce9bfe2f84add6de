package runtime

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
)

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
//     be lost (WithPreviews Loss). How depends on the session's protocol (elicitation.go):
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

// elicitMode is how a call can ask its user.
type elicitMode uint8

// elicitationMode is how the call's client can be asked (the adapter
// reads the session's protocol version and the client's capabilities).
func elicitationMode(req *toolcall.Request) elicitMode {
	if req == nil || req.Elicitor == nil {
		return elicitNone
	}
	switch req.Elicitor.Mode() {
	case toolcall.ElicitRoundTrip:
		return elicitRoundTrip
	case toolcall.ElicitInCall:
		return elicitInCall
	}
	return elicitNone
}

// isRoundTripAnswer reports whether the call is the retry of an input
// request: it carries request state or input responses.
func isRoundTripAnswer(req *toolcall.Request) bool {
	return req != nil && (req.RequestState != "" || len(req.InputResponses) > 0)
}

// elicitOutcome is what asking the user produced.
type elicitOutcome uint8

// accepted is true only for an explicit yes: accept with confirm=true.
func accepted(res *toolcall.ElicitResult) bool {
	return res != nil && res.Action == "accept" && res.Content[confirmField] == true
}

// elicit asks the call's user inside the call.
func elicit(ctx context.Context, req *toolcall.Request, msg string) (*toolcall.ElicitResult, error) {
	if req.Elicitor == nil {
		return nil, errors.New("the call has no session to elicit through")
	}
	return req.Elicitor.Elicit(ctx, msg, confirmSchema)
}

// confirmInputID is the id of the confirmation input request; the client's
// retried call answers under the same id in inputResponses.
const confirmInputID = "mcpwrite_confirm"

// confirmSchema is the flat form shown to the user.
var confirmSchema = json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean","title":"Confirm","description":"Perform this change"}},"required":["confirm"]}`)

const (
	elicitNone      elicitMode = iota // no elicitation capability: propose instead
	elicitInCall                      // elicitation/create inside the call
	elicitRoundTrip                   // input request, answered in a retried call
)

const (
	elicitConfirmed elicitOutcome = iota
	elicitDeclined
	elicitCancelled
	elicitTimedOut
	elicitUnavailable
)
