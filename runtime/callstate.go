package runtime

// Bottom layer: the state of one call as it moves through the stages (call,
// control, answer, what the call holds: hold, claim, recordTry, unsaved;
// lossInfo, confirmState), and how a call fails (call.fail, with the
// service's answers). Stages read and update it; nothing here calls a
// stage.

import (
	"context"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
	"google.golang.org/protobuf/proto"
)

// control is what the pipeline itself reads from the arguments.
type control struct {
	key    string
	dryRun bool
	// summary is the agent's own summary of the change, shown with a
	// proposal ("" when not sent).
	summary string
	errs    impl.Errors
}

// call is the state of one tool call as it moves through the pipeline:
// who calls, what was sent, the request built from it, and what the call
// holds that must be settled whatever happens (held). Every stage reads and
// updates it instead of taking these values one by one.
type call struct {
	r   *registry
	wt  *boundTool
	ctx context.Context
	// req is the MCP request (nil outside a tool call: apply, Preparer).
	req *toolcall.Request
	// rc is who calls; hasRC says whether a request context was found.
	rc    RequestContext
	hasRC bool
	// raw are the arguments as sent; args the parsed arguments, whose
	// fingerprint the claim takes (nil: the raw bytes are fingerprinted).
	raw  []byte
	args *impl.Object
	// ctl are the control arguments (client_request_id, dry_run, summary),
	// body the rest: the arguments of the request.
	ctl  control
	body *impl.Object
	// m is the request: decoded, validated and enriched.
	m proto.Message
	// loss is what the user is shown of what the write changes and loses
	// (previewLoss), for a confirmation or a proposal.
	loss lossInfo
	// answered is the verified state a 2026-07-28 retry brought back with
	// the user's answer (nil otherwise).
	answered *confirmState
	// held is what the call must settle (nil: nothing): the idempotency
	// claim of a keyed write, or the proposal an apply took.
	held hold
	// decodeOnly stops prepare after the decode (Preparer.Decode): no
	// caller, so no vocabulary, early check or enrichment.
	decodeOnly bool
	// txClaim is the key the handler claims in its transaction
	// (IdempotencyOptions.ClaimInHandler); nil when there is none.
	txClaim *claim
	// key backs held or txClaim when the call claims its idempotency key
	// (no allocation per keyed write).
	key claim
}

// answer is what a call answers, before it is recorded.
type answer struct {
	body    []byte
	isError bool
	// res, when set, is the whole answer (the record holding the key, or
	// an apply's answer once its proposal is settled); the call holds
	// nothing.
	res *toolcall.Result
	// keep: the answer is the call's outcome (a success, a business error,
	// a proposal), recorded on what the call holds so that a retry replays
	// it; otherwise the hold is released so that a retry runs the call
	// again.
	keep bool
}

// lossInfo is what a loss preview produced for one call.
type lossInfo struct {
	text    string        // what will be lost; "" when nothing or unknown
	warning *impl.Warning // set when the preview failed
	// state is what the write acts on as the user is shown it (hasState
	// false: no state preview, or the write changes no existing entity).
	state    EntityState
	hasState bool
	// domain is the domain check's preview (WithPreviews), or nil.
	domain map[string]any
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

// hold is what a call took that it must settle whatever happens: the
// idempotency claim of a keyed write (claim, claim.go) or the proposal
// apply_proposal took from the store with BeginApply (applying,
// proposal_apply.go). The call settles it once, through its back half:
// call.record writes the outcome with retries (recordRetrying) and
// answers one that could not be written with call.unrecorded; call.release
// gives the hold back on a refusal, a transient or internal error or a
// panic.
type hold interface {
	// attempt is one attempt at writing the outcome body (an error answer
	// when isError) to the hold.
	attempt(ctx context.Context, body []byte, isError bool) func() recordTry
	// release gives the hold back, so that a retry runs the call again.
	release(ctx context.Context)
	// unsaved words the answer to an outcome c could not write to the
	// hold (isError: the outcome is an error answer).
	unsaved(c *call, isError bool) unsaved
}

// recordTry is one attempt of recordRetrying: its error (nil once the
// outcome is written); final when the error ends the retries (an answer,
// not a failed write); free when the attempt does not count (what is
// written changed in answer to the error).
type recordTry struct {
	err         error
	final, free bool
}

// unsaved is how a hold answers an outcome that could not be written:
// the entry's field, message, hint and details (call.unrecorded adds the
// code UNAVAILABLE, the trace_id and details.result), the tool that
// answers, and the log line the failure is logged with.
type unsaved struct {
	entry *impl.ErrorEntry
	tool  string
	// hooked: the error hook (WithErrorHook) sees the entry.
	hooked bool
	// release: the hold is given back, so that a retry runs the call
	// again (nothing was written).
	release bool
	log     string
	attrs   []any
}

// claim is a call's hold on its idempotency key: the scoped key, the
// fingerprint of the arguments and the client_request_id as sent.
type claim struct {
	r   *registry
	key idempotency.Key
	fp  string
	id  string
}

// resolvedKey carries, under an observer, the request context observe
// resolved for the call (resolvedContext), so requestContext answers it
// instead of resolving it a second time.
type resolvedKey struct{}

type resolvedContext struct {
	rc RequestContext
	ok bool
}

// name is the tool's name.
func (c *call) name() string { return c.wt.doc.Name }

// fail answers es for the call's request (nil before it is decoded).
func (c *call) fail(es impl.Errors) *toolcall.Result {
	return c.r.ans.errorResult(c.ctx, c.name(), c.m, es)
}

// failure is the answer es for the call's request; keep says whether it is
// an outcome to record.
func (c *call) failure(es impl.Errors, keep bool) answer {
	return answer{body: c.r.ans.errorBody(c.ctx, c.name(), c.m, es), isError: true, keep: keep}
}
