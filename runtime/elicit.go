package runtime

// Confirmation through MCP elicitation, on both protocol generations.
//
// Up to 2025-11-25 the server may send elicitation/create while it handles
// the call, so the call asks and waits (confirmInCall); the idempotency claim
// is leased for the wait. From 2026-07-28 a server must not send requests of
// its own: the call answers with an input request (the confirmation form) and
// a request state, the client asks the user and retries the call with the
// answer and the state (askRoundTrip, confirmRoundTrip). The state crosses the
// client, so it is signed with HMAC-SHA256 and bound to the tool, the
// arguments, the tenant, the principal, the client_request_id, the enriched
// request and an expiry, and it is single use: a client can neither forge an
// acceptance, nor reuse one for other arguments, another caller or a second
// write.

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// CodeConfirmationInvalid means the answer to a confirmation cannot be
// trusted: its request state is missing, altered, expired, issued for another
// call, or already used. Nothing was written.
const codeConfirmationInvalid = "CONFIRMATION_INVALID"

// ConfirmInputID is the id of the confirmation input request; the client's
// retried call answers under the same id in inputResponses.
const confirmInputID = "mcpwrite_confirm"

const (
	// roundTripProtocol is the first protocol version that asks the user
	// through input requests instead of server requests inside the call.
	roundTripProtocol = "2026-07-28"
	// statePrefix versions the request state format.
	statePrefix = "mcpw1."
	// maxStateLen bounds what is parsed from the client; real states are
	// about 200 bytes.
	maxStateLen = 2048
	// confirmField is the boolean the confirmation form asks for.
	confirmField = "confirm"
)

// confirmSchema is the flat form shown to the user.
var confirmSchema = json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean","title":"Confirm","description":"Perform this change"}},"required":["confirm"]}`)

// elicitMode is how a call can ask its user.
type elicitMode uint8

const (
	elicitNone      elicitMode = iota // no elicitation capability: propose instead
	elicitInCall                      // elicitation/create inside the call
	elicitRoundTrip                   // input request, answered in a retried call
)

// elicitationMode reads the session's protocol version (as the SDK does to
// decide whether input requests are allowed) and the client's capabilities,
// preferring those sent with this very request.
func elicitationMode(req *mcp.CallToolRequest) elicitMode {
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

const (
	elicitConfirmed elicitOutcome = iota
	elicitDeclined
	elicitCancelled
	elicitTimedOut
	elicitUnavailable
)

// accepted is true only for an explicit yes: accept with confirm=true.
func accepted(res *mcp.ElicitResult) bool {
	return res != nil && res.Action == "accept" && res.Content[confirmField] == true
}

// lossInfo is what a loss preview produced for one call.
type lossInfo struct {
	text    string                // what will be lost; "" when nothing or unknown
	warning *mcpwriteimpl.Warning // set when the preview failed
	// state is what the write acts on as the user is shown it (hasState
	// false: no state preview, or the write changes no existing entity).
	state    EntityState
	hasState bool
	// domain is the domain check's preview (WithDomainCheck), or nil.
	domain map[string]any
}

// losesData: updates, deletes and anything classified destructive can lose
// what exists, so the user is told what.
func losesData(d *schemadoc.Tool) bool {
	return d.Kind == "UPDATE" || d.Kind == "DELETE" || strings.HasPrefix(d.Classification, "DESTRUCTIVE")
}

// previewLoss asks the loss preview hook what the write would lose. An error
// the domain wrote for agents answers the call (recorded like a handler's
// business error); any other failure is logged and the confirmation goes on
// without the text, with a warning in proposals.
func (wc *writeCall) previewLoss(ctx context.Context, m proto.Message) (lossInfo, *mcp.CallToolResult) {
	r, wt, name := wc.r, wc.wt, wc.wt.doc.Name
	answer := func(es Errors) (lossInfo, *mcp.CallToolResult) {
		b := r.errorBody(ctx, name, m, es)
		if err := wc.complete(ctx, b, true); err != nil {
			return lossInfo{}, wc.unrecorded(ctx, b, err)
		}
		return lossInfo{}, toolResult(b, true)
	}
	// The domain refuses now what the write would refuse, before anyone is
	// asked or a proposal is stored.
	dp, des, class := r.domainCheck(ctx, name, m)
	if len(des) > 0 {
		if class != classBusiness {
			wc.release(ctx)
			return lossInfo{}, r.errorResult(ctx, name, m, des)
		}
		return answer(des)
	}
	st, hasState, es := r.entityState(ctx, name, m)
	if len(es) > 0 {
		if isInternal(es) {
			wc.release(ctx)
			return lossInfo{}, r.errorResult(ctx, name, m, es)
		}
		return answer(es)
	}
	info := lossInfo{state: st, hasState: hasState, domain: dp}
	if r.cfg.lossPreview == nil || !losesData(wt.doc) {
		return info, nil
	}
	text, err := r.cfg.lossPreview(ctx, name, m)
	if err == nil {
		info.text = neutralize(strings.TrimSpace(text))
		return info, nil
	}
	es, class = r.classify(ctx, name, err)
	if class == classBusiness {
		return answer(es)
	}
	if class == classTransient { // internal failures were logged by classify
		r.cfg.logger.WarnContext(ctx, "mcpwrite: loss preview failed", "tool", name, "error", err)
	}
	info.warning = &mcpwriteimpl.Warning{
		Code:       "LOSS_PREVIEW_UNAVAILABLE",
		Message:    "What this change would remove could not be determined",
		Suggestion: "Review the preview with the user before applying",
	}
	return info, nil
}

// stateDigest is the digest the confirmation binds ("" without a state).
func (l lossInfo) stateDigest() string {
	if !l.hasState {
		return ""
	}
	return l.state.Digest
}

// isInternal reports an answer that is a server failure, not an outcome.
func isInternal(es Errors) bool {
	for _, e := range es {
		if e.Code == mcpwriteimpl.CodeInternal || e.Code == mcpwriteimpl.CodeUnavailable || e.Code == mcpwriteimpl.CodeDeadlineExceeded {
			return true
		}
	}
	return false
}

// stillAsShown re-reads the state a confirmation was given for; nil means
// it is unchanged, otherwise the answer to the call.
func (wc *writeCall) stillAsShown(ctx context.Context, m proto.Message, was EntityState, digest string) *mcp.CallToolResult {
	r, name := wc.r, wc.wt.doc.Name
	if r.cfg.statePreview == nil || digest == "" {
		return nil
	}
	now, ok, es := r.entityState(ctx, name, m)
	if len(es) > 0 && !isInternal(es) {
		es, ok = nil, false // the entity is gone: stale, not the domain's error
	}
	if len(es) > 0 {
		wc.release(ctx)
		return r.errorResult(ctx, name, m, es)
	}
	if ok && now.Digest == digest {
		return nil
	}
	wc.release(ctx)
	return r.errorResult(ctx, name, m, Errors{staleState("", "The confirmation", was, now, ok)})
}

// confirmMessage is what the user reads: what will be written (the tool's
// confirmation_message template when it has one), what that risks and, when
// known, what will be lost.
func (r *registry) confirmMessage(ctx context.Context, wt *writeTool, m proto.Message, body *mcpwriteimpl.Object, loss string, domain map[string]any) (string, error) {
	preview, err := r.agentJSON(m)
	if err != nil {
		return "", err
	}
	head := "Confirm " + summarize(wt, body) + "."
	if tpl := wt.doc.ConfirmationMessage; tpl != "" {
		if text, err := r.renderConfirmation(tpl, m, domain); err == nil {
			head = text
		} else {
			r.cfg.logger.WarnContext(ctx, "mcpwrite: confirmation message template not filled; asking with the default text", "tool", wt.doc.Name, "error", err)
		}
	}
	msg := head + " " + consequence(wt.doc.Classification)
	if loss = strings.TrimRight(neutralize(loss), ". "); loss != "" {
		msg += " What will be lost: " + loss + "."
	}
	return msg + "\nRequest: " + truncateText(neutralize(string(preview)), 2000), nil
}

// confirmInCall asks through elicitation/create while the call waits. The
// idempotency claim is leased for the whole wait, so a retry meanwhile gets
// IDEMPOTENCY_IN_PROGRESS instead of a second write.
func (wc *writeCall) confirmInCall(ctx context.Context, req *mcp.CallToolRequest, m proto.Message, body *mcpwriteimpl.Object, raw []byte, rc RequestContext, hasRC bool, key string) *mcp.CallToolResult {
	r, wt, name := wc.r, wc.wt, wc.wt.doc.Name
	if key != "" && r.cfg.idem != nil {
		if res := wc.claim(ctx, rc, key, raw, m, r.cfg.elicitTimeout+r.cfg.idemLease); res != nil {
			return res
		}
	}
	loss, res := wc.previewLoss(ctx, m)
	if res != nil {
		return res
	}
	msg, err := r.confirmMessage(ctx, wt, m, body, loss.text, loss.domain)
	if err != nil {
		wc.release(ctx)
		return r.errorResult(ctx, name, m, Errors{r.internal(ctx, name, fmt.Errorf("confirmation message: %w", err))})
	}
	switch r.askInCall(ctx, req, name, msg) {
	case elicitConfirmed:
		if res := wc.stillAsShown(ctx, m, loss.state, loss.stateDigest()); res != nil {
			return res
		}
		return wc.execute(ctx, m, body, rc, hasRC, key)
	case elicitDeclined:
		wc.release(ctx)
		return r.errorResult(ctx, name, m, Errors{declined(wt, body)})
	case elicitCancelled:
		wc.release(ctx)
		return r.errorResult(ctx, name, m, Errors{cancelled(wt, body)})
	case elicitTimedOut:
		wc.release(ctx)
		return r.errorResult(ctx, name, m, Errors{r.unanswered(wt, body)})
	}
	if refusesWithoutElicitation(wt.doc) {
		wc.release(ctx)
		return r.errorResult(ctx, name, m, Errors{confirmationRequired(wt, body)})
	}
	b, es := r.propose(ctx, wt, m, body, raw, rc, loss)
	return wc.finishGoverned(ctx, m, b, es)
}

// askInCall sends elicitation/create, bounded by the elicitation timeout.
func (r *registry) askInCall(ctx context.Context, req *mcp.CallToolRequest, tool, msg string) elicitOutcome {
	ectx, cancel := context.WithTimeout(ctx, r.cfg.elicitTimeout)
	defer cancel()
	res, err := req.Session.Elicit(ectx, &mcp.ElicitParams{Message: msg, RequestedSchema: confirmSchema})
	if err != nil {
		if ectx.Err() != nil {
			r.cfg.logger.InfoContext(ctx, "mcpwrite: confirmation unanswered", "tool", tool, "error", err)
			return elicitTimedOut
		}
		r.cfg.logger.DebugContext(ctx, "mcpwrite: elicitation unavailable, proposing instead", "tool", tool, "error", err)
		return elicitUnavailable
	}
	if accepted(res) {
		return elicitConfirmed
	}
	if res != nil && res.Action == "cancel" {
		return elicitCancelled
	}
	return elicitDeclined
}

// askRoundTrip answers the first round of a 2026-07-28 call: the
// confirmation form as an input request and the signed state the retried
// call must bring back. Nothing is claimed or written; a key that already
// holds a result answers from it instead of asking again.
func (wc *writeCall) askRoundTrip(ctx context.Context, m proto.Message, body *mcpwriteimpl.Object, raw []byte, rc RequestContext, key string) *mcp.CallToolResult {
	r, wt, name := wc.r, wc.wt, wc.wt.doc.Name
	if key != "" && r.cfg.idem != nil {
		if res := wc.peek(ctx, rc, key, raw, m); res != nil {
			return res
		}
	}
	loss, res := wc.previewLoss(ctx, m)
	if res != nil {
		return res
	}
	msg, err := r.confirmMessage(ctx, wt, m, body, loss.text, loss.domain)
	if err != nil {
		return r.errorResult(ctx, name, m, Errors{r.internal(ctx, name, fmt.Errorf("confirmation message: %w", err))})
	}
	args, err := idempotency.Fingerprint(raw)
	if err != nil {
		return r.errorResult(ctx, name, m, Errors{r.internal(ctx, name, fmt.Errorf("fingerprint: %w", err))})
	}
	digest, err := requestDigest(wt, m)
	if err != nil {
		return r.errorResult(ctx, name, m, Errors{r.internal(ctx, name, err)})
	}
	st := confirmState{
		Expires: r.now().Add(r.cfg.elicitTimeout).Unix(), Nonce: r.nonce(), Args: args, Request: digest,
		State: loss.stateDigest(), Target: loss.state.Target, Summary: loss.state.Summary,
	}
	token, err := r.signState(st, stateBinding(name, rc, key))
	if err != nil {
		return r.errorResult(ctx, name, m, Errors{r.internal(ctx, name, fmt.Errorf("sign confirmation state: %w", err))})
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{confirmInputID: &mcp.ElicitParams{Message: msg, RequestedSchema: confirmSchema}},
		RequestState:  token,
	}
}

// confirmRoundTrip handles the retried call: it verifies the state against
// this call, reads the user's answer and, on an explicit yes, writes once.
func (wc *writeCall) confirmRoundTrip(ctx context.Context, req *mcp.CallToolRequest, m proto.Message, body *mcpwriteimpl.Object, raw []byte, rc RequestContext, hasRC bool, key string) *mcp.CallToolResult {
	r, wt, name := wc.r, wc.wt, wc.wt.doc.Name
	p := req.Params
	fail := func(e *ErrorEntry) *mcp.CallToolResult { return r.errorResult(ctx, name, m, Errors{e}) }
	if p.RequestState == "" {
		return fail(invalidConfirmation("missing_state", "The call carries a confirmation answer but no requestState from this server. Nothing was written."))
	}
	st, err := r.openState(p.RequestState, stateBinding(name, rc, key))
	switch {
	case errors.Is(err, errStateAltered):
		return fail(invalidConfirmation("altered", "The confirmation state does not verify: it was altered, or issued for another tool, caller or client_request_id. Nothing was written."))
	case err != nil:
		return fail(r.internal(ctx, name, fmt.Errorf("verify confirmation state: %w", err)))
	}
	if !r.now().Before(time.Unix(st.Expires, 0)) {
		return fail(invalidConfirmation("expired", fmt.Sprintf("The confirmation expired: answers are accepted for %s. Nothing was written.", r.cfg.elicitTimeout)))
	}
	args, err := idempotency.Fingerprint(raw)
	if err != nil {
		return fail(r.internal(ctx, name, fmt.Errorf("fingerprint: %w", err)))
	}
	if !hmac.Equal([]byte(args), []byte(st.Args)) {
		return fail(invalidConfirmation("other_arguments", "The confirmation was given for different arguments. Nothing was written."))
	}
	digest, err := requestDigest(wt, m)
	if err != nil {
		return fail(r.internal(ctx, name, err))
	}
	if digest != st.Request {
		// When the entity itself changed, say what changed about it.
		if res := wc.stillAsShown(ctx, m, EntityState{Target: st.Target, Summary: st.Summary}, st.State); res != nil {
			return res
		}
		return fail(&ErrorEntry{
			Code:        mcpwriteimpl.CodeProposalStale,
			Message:     "The confirmation is stale: the server would now fill the request differently from what the user confirmed. Nothing was written.",
			Suggestions: &Suggestions{Hint: "Call the tool again without inputResponses or requestState so the user confirms the current state."},
		})
	}
	er, ok := p.InputResponses[confirmInputID].(*mcp.ElicitResult)
	if !ok || er == nil {
		return fail(invalidConfirmation("missing_answer", fmt.Sprintf("The call carries no answer to the confirmation input request %q. Nothing was written.", confirmInputID)))
	}
	if !accepted(er) {
		return fail(refusal(wt, body, er))
	}
	if key != "" && r.cfg.idem != nil {
		if res := wc.claim(ctx, rc, key, raw, m, r.cfg.idemLease); res != nil {
			return res
		}
	}
	if res := wc.stillAsShown(ctx, m, EntityState{Target: st.Target, Summary: st.Summary}, st.State); res != nil {
		return res
	}
	used, err := wc.consumeConfirmation(ctx, rc, st)
	if err != nil {
		wc.release(ctx)
		return fail(r.storeUnavailable(ctx, name, "confirmation", idempotency.Key{Tenant: rc.TenantID, Tool: name}, key, err))
	}
	if used {
		wc.release(ctx)
		e := invalidConfirmation("used", "This confirmation was already used for a write. Nothing was written again.")
		e.Suggestions.Hint = "To get the first result, retry with its client_request_id; to write again, call the tool without inputResponses or requestState so the user confirms again."
		return fail(e)
	}
	return wc.execute(ctx, m, body, rc, hasRC, key)
}

// consumeConfirmation marks the state's nonce used in the idempotency store
// (shared by every instance), so one confirmation authorises one write.
// Without an idempotency store a state can be replayed until it expires.
func (wc *writeCall) consumeConfirmation(ctx context.Context, rc RequestContext, st confirmState) (used bool, err error) {
	store := wc.r.cfg.idem
	if store == nil {
		return false, nil
	}
	now := wc.r.now()
	ttl := time.Unix(st.Expires, 0).Sub(now) + time.Minute
	k := idempotency.Key{Tenant: rc.TenantID, Tool: wc.wt.doc.Name + "#confirmation", Key: st.Nonce}
	cr, err := store.Claim(ctx, k, st.Args, now, ttl)
	if err != nil {
		return false, err
	}
	if !cr.Claimed {
		return true, nil
	}
	if err := store.Complete(context.WithoutCancel(ctx), k, st.Args, []byte(`{"confirmation":"used"}`), false, now, ttl); err != nil {
		// The claim itself already blocks reuse until ttl.
		wc.r.cfg.logger.WarnContext(ctx, "mcpwrite: confirmation use not recorded", "tool", wc.wt.doc.Name, "error", err)
	}
	return false, nil
}

// invalidConfirmation is a CONFIRMATION_INVALID entry; reason is stable for
// programs, the message for people.
func invalidConfirmation(reason, msg string) *ErrorEntry {
	return &ErrorEntry{
		Code: codeConfirmationInvalid, Message: msg,
		Details:     map[string]any{"reason": reason},
		Suggestions: &Suggestions{Hint: "Call the tool again without inputResponses or requestState to ask the user again."},
	}
}

// unanswered is the answer when the user did not confirm in time.
func (r *registry) unanswered(wt *writeTool, body *mcpwriteimpl.Object) *ErrorEntry {
	return &ErrorEntry{
		Code:        mcpwriteimpl.CodeConfirmationDeclined,
		Message:     fmt.Sprintf("The user did not answer within %s: %s. Nothing was written.", r.cfg.elicitTimeout, summarize(wt, body)),
		Suggestions: &Suggestions{Hint: "Ask the user whether to make this change, then call again."},
	}
}

// anonymousConfirmation refuses to confirm or propose for a caller without
// tenant and principal: the confirmation would belong to nobody (or anybody).
func anonymousConfirmation(tool string) *ErrorEntry {
	return &ErrorEntry{
		Code:    mcpwriteimpl.CodePermissionDenied,
		Message: tool + " needs the user's confirmation, which is bound to an authenticated tenant and principal; this call carries none. Nothing was written.",
		Suggestions: &Suggestions{
			Hint: "Reconnect with credentials that identify the tenant and the user; the identity comes from the connection, never from tool arguments.",
		},
	}
}

// confirmState is the signed part of the request state. Tool, tenant,
// principal and client_request_id are bound by the signature only, so the
// state does not show identities to whoever handles it.
type confirmState struct {
	Expires int64  `json:"exp"`   // Unix seconds
	Nonce   string `json:"nonce"` // single use
	Args    string `json:"args"`  // fingerprint of the arguments
	Request string `json:"req"`   // digest of the enriched request
	// State is the digest of the entity state the user was shown, with
	// the target and summary for the answer when it changed.
	State   string `json:"state,omitempty"`
	Target  string `json:"target,omitempty"`
	Summary string `json:"summary,omitempty"`
}

// errStateAltered: the state is malformed or its signature does not match
// this call.
var errStateAltered = errors.New("confirmation state altered")

// stateBinding is what the signature binds besides the payload.
func stateBinding(tool string, rc RequestContext, key string) []string {
	return []string{"confirm", tool, rc.TenantID, rc.PrincipalID, key}
}

// signState returns "mcpw1.<payload>.<mac>", both base64url.
func (r *registry) signState(st confirmState, binding []string) (string, error) {
	b, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	payload := statePrefix + base64.RawURLEncoding.EncodeToString(b)
	mac, err := r.stateMAC(payload, binding)
	if err != nil {
		return "", err
	}
	return payload + "." + base64.RawURLEncoding.EncodeToString(mac), nil
}

// openState verifies token for binding and returns its payload.
func (r *registry) openState(token string, binding []string) (confirmState, error) {
	var st confirmState
	if len(token) > maxStateLen || !strings.HasPrefix(token, statePrefix) {
		return st, errStateAltered
	}
	i := strings.LastIndexByte(token, '.')
	if i < len(statePrefix) {
		return st, errStateAltered
	}
	payload := token[:i]
	got, err := base64.RawURLEncoding.DecodeString(token[i+1:])
	if err != nil {
		return st, errStateAltered
	}
	want, err := r.stateMAC(payload, binding)
	if err != nil {
		return st, err
	}
	if !hmac.Equal(got, want) {
		return st, errStateAltered
	}
	b, err := base64.RawURLEncoding.DecodeString(payload[len(statePrefix):])
	if err != nil || json.Unmarshal(b, &st) != nil || st.Nonce == "" {
		return confirmState{}, errStateAltered
	}
	return st, nil
}

// stateMAC is HMAC-SHA256 over the payload and the JSON-encoded binding (JSON
// keeps the fields unambiguous whatever they contain).
func (r *registry) stateMAC(payload string, binding []string) ([]byte, error) {
	if r.cfg.signingKeyErr != nil {
		return nil, r.cfg.signingKeyErr
	}
	bind, err := json.Marshal(binding)
	if err != nil {
		return nil, err
	}
	mac := hmac.New(sha256.New, r.cfg.signingKey)
	mac.Write([]byte(payload))
	mac.Write([]byte{'\n'})
	mac.Write(bind)
	return mac.Sum(nil), nil
}

// requestDigest identifies what the user confirms: the enriched request
// without per-call values, so a resolver answering differently on the retry
// (a new version, another model) is noticed.
func requestDigest(wt *writeTool, m proto.Message) (string, error) {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(comparableRequest(wt, m))
	if err != nil {
		return "", fmt.Errorf("digest request: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16]), nil
}

// nonce is 16 random bytes in hex, from the configured source (tests pin it)
// or crypto/rand when that fails.
func (r *registry) nonce() string {
	var b [16]byte
	if _, err := io.ReadFull(r.cfg.rand, b[:]); err != nil {
		_, _ = rand.Read(b[:])
	}
	return hex.EncodeToString(b[:])
}
