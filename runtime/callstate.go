package runtime

// Bottom layer: the state of one call as it moves through the stages (call,
// control, answer, claim, lossInfo, confirmState), and how a call fails
// (call.fail, with the service's answers). Stages read and update it; nothing
// here calls a stage.

import (
	"context"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
// who calls, what was sent, the request built from it, and the idempotency
// claim that must be settled whatever happens. Every stage reads and
// updates it instead of taking these values one by one.
type call struct {
	r   *registry
	wt  *boundTool
	ctx context.Context
	// req is the MCP request (nil outside a tool call: apply, Preparer).
	req *mcp.CallToolRequest
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
	claim    claim
	// decodeOnly stops prepare after the decode (Preparer.Decode): no
	// caller, so no vocabulary, early check or enrichment.
	decodeOnly bool
	// txClaim is the key the handler claims in its transaction
	// (IdempotencyOptions.ClaimInHandler); held says there is one.
	txClaim claim
}

// answer is what a call answers, before it is recorded.
type answer struct {
	body    []byte
	isError bool
	// res, when set, is the whole answer (the record holding the key); the
	// call holds no claim.
	res *mcp.CallToolResult
	// keep: the answer is the call's outcome (a success, a business error,
	// a proposal), recorded under the claim so that a retry replays it;
	// otherwise the claim is released so that a retry runs the call again.
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

// claim is a call's hold on its idempotency key.
type claim struct {
	held bool
	key  idempotency.Key
	fp   string
	// failed: the outcome being recorded is a business error, not a write.
	failed bool
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
func (c *call) fail(es impl.Errors) *mcp.CallToolResult {
	return c.r.ans.errorResult(c.ctx, c.name(), c.m, es)
}

// failure is the answer es for the call's request; keep says whether it is
// an outcome to record.
func (c *call) failure(es impl.Errors, keep bool) answer {
	return answer{body: c.r.ans.errorBody(c.ctx, c.name(), c.m, es), isError: true, keep: keep}
}
