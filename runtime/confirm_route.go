package runtime

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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

// elicitationMode reads the session's protocol version (as the SDK does to
// decide whether input requests are allowed) and the client's capabilities,
// preferring those sent with this very request.
func elicitationMode(ctx context.Context, req *mcp.CallToolRequest) elicitMode {
	if req != nil && req.Session == nil {
		// Served by an adapter for another MCP library (impl.Asker).
		if a := impl.AskerFrom(ctx); a != nil && a.CanAsk() {
			return elicitInCall
		}
	}
	if req == nil || req.Session == nil {
		return elicitNone
	}
	ip := req.Session.InitializeParams()
	if ip == nil {
		return elicitNone
	}
	caps := ip.Capabilities
	if pc := requestCapabilities(req); pc != nil {
		caps = pc
	}
	if caps == nil || caps.Elicitation == nil {
		return elicitNone
	}
	if e := caps.Elicitation; e.Form == nil && e.URL != nil {
		return elicitNone // URL-only clients cannot show the form
	}
	if ip.ProtocolVersion >= roundTripProtocol {
		return elicitRoundTrip
	}
	return elicitInCall
}

// requestCapabilities decodes the capabilities a 2026-07-28 client sends in
// the _meta of every request; nil when absent or unreadable.
func requestCapabilities(req *mcp.CallToolRequest) *mcp.ClientCapabilities {
	if req.Params == nil {
		return nil
	}
	raw, ok := req.Params.GetMeta()[mcp.MetaKeyClientCapabilities]
	if !ok || raw == nil {
		return nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil
	}
	var caps mcp.ClientCapabilities
	if err := json.Unmarshal(b, &caps); err != nil {
		return nil
	}
	return &caps
}

// isRoundTripAnswer reports whether the call is the retry of an input
// request: it carries request state or input responses.
func isRoundTripAnswer(req *mcp.CallToolRequest) bool {
	return req != nil && req.Params != nil && (req.Params.RequestState != "" || len(req.Params.InputResponses) > 0)
}

// elicitOutcome is what asking the user produced.
type elicitOutcome uint8

// accepted is true only for an explicit yes: accept with confirm=true.
func accepted(res *mcp.ElicitResult) bool {
	return res != nil && res.Action == "accept" && res.Content[confirmField] == true
}

// elicit asks through the call's go-sdk session, else through the
// adapter's Asker.
func elicit(ctx context.Context, req *mcp.CallToolRequest, msg string) (*mcp.ElicitResult, error) {
	if req.Session != nil {
		return req.Session.Elicit(ctx, &mcp.ElicitParams{Message: msg, RequestedSchema: confirmSchema})
	}
	a := impl.AskerFrom(ctx)
	if a == nil {
		return nil, errors.New("the call has no session to elicit through")
	}
	action, content, err := a.Ask(ctx, msg, confirmSchema)
	if err != nil {
		return nil, err
	}
	return &mcp.ElicitResult{Action: action, Content: content}, nil
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
