package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// Names of the arguments every write tool accepts besides its own fields.
const (
	argClientRequestID = "client_request_id"
	argDryRun          = "dry_run"
)

// control is what the pipeline itself reads from the arguments.
type control struct {
	key    string
	dryRun bool
	// summary is the agent's own summary of the change, shown with a
	// proposal ("" when not sent).
	summary string
	errs    Errors
}

// now is the configured clock.
func (r *registry) now() time.Time { return r.cfg.clock() }

// requestContext establishes who is calling: the option hook when set, else
// the context the embedding server attached.
func (r *registry) requestContext(ctx context.Context, req *mcp.CallToolRequest) (RequestContext, bool) {
	if r.cfg.observer != nil { // observe resolved it for this call already
		if v, ok := ctx.Value(resolvedKey{}).(resolvedContext); ok {
			return v.rc, v.ok
		}
	}
	if r.cfg.rcFunc != nil {
		return r.cfg.rcFunc(ctx, req)
	}
	return RequestContextFrom(ctx)
}

// arguments returns the raw arguments of a call; absent means {}.
func arguments(req *mcp.CallToolRequest) []byte {
	if req == nil || req.Params == nil {
		return nil
	}
	return req.Params.Arguments
}

// parseArgs parses tool arguments strictly; empty and null mean {}.
func (r *registry) parseArgs(raw []byte) (*mcpwriteimpl.Object, Errors) {
	return r.parseArgsInto(raw, nil)
}

// parseArgsInto is parseArgs with the tree carved from s (nil: allocated);
// the tree is valid until s is released.
func (r *registry) parseArgsInto(raw []byte, s *mcpwriteimpl.Scratch) (*mcpwriteimpl.Object, Errors) {
	if len(raw) == 0 || raw[0] != '{' { // arguments are almost always an object
		if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
			return &mcpwriteimpl.Object{}, nil
		}
	}
	obj, es := mcpwriteimpl.ParseObjectInto(raw, r.cfg.limits, s)
	if len(es) > 0 {
		return nil, es
	}
	if obj == nil {
		return &mcpwriteimpl.Object{}, nil
	}
	return obj, nil
}

// splitControl removes client_request_id, dry_run and, when the tool takes
// one, the agent's summary argument (summaryArg) from the arguments (they
// steer the pipeline, not the request) and checks them.
func splitControl(obj *mcpwriteimpl.Object, summaryArg string) (control, *mcpwriteimpl.Object) {
	var c control
	hasControl := false
	for _, k := range obj.Keys {
		hasControl = hasControl || k == argClientRequestID || k == argDryRun || summaryArg != "" && k == summaryArg
	}
	if !hasControl {
		return c, obj // the common call: nothing to split, nothing to copy
	}
	body := &mcpwriteimpl.Object{Keys: make([]string, 0, len(obj.Keys)), Vals: make([]*mcpwriteimpl.Value, 0, len(obj.Keys))}
	for i, k := range obj.Keys {
		v := obj.Vals[i]
		switch k {
		case argClientRequestID:
			switch {
			case v == nil || v.Kind == mcpwriteimpl.KindNull:
			case v.Kind != mcpwriteimpl.KindString:
				c.errs = append(c.errs, &ErrorEntry{
					Code: mcpwriteimpl.CodeInvalidType, Field: k,
					Message: "client_request_id must be a string",
					Details: map[string]any{"expected": "string", "got": mcpwriteimpl.JSONKind(v.Kind)},
				})
			default:
				if err := idempotency.ValidateKey(v.Str); err != nil {
					c.errs = append(c.errs, &ErrorEntry{
						Code: mcpwriteimpl.CodeInvalidIdempotencyKey, Field: k, Message: err.Error(),
						Suggestions: &Suggestions{Hint: "Use 1-255 characters of A-Z, a-z, 0-9, '_' and '-', e.g. create_element-7f3a9c."},
					})
				} else {
					c.key = v.Str
				}
			}
		case argDryRun:
			switch {
			case v == nil || v.Kind == mcpwriteimpl.KindNull:
			case v.Kind != mcpwriteimpl.KindBool:
				c.errs = append(c.errs, &ErrorEntry{
					Code: mcpwriteimpl.CodeInvalidType, Field: k, Message: "dry_run must be a boolean",
					Details: map[string]any{"expected": "boolean", "got": mcpwriteimpl.JSONKind(v.Kind)},
				})
			default:
				c.dryRun = v.Bool
			}
		case summaryArg:
			c.summary, c.errs = agentSummary(k, v, c.errs)
		default:
			body.Keys = append(body.Keys, k)
			body.Vals = append(body.Vals, v)
		}
	}
	return c, body
}

// agentSummary checks the agent's summary of a change: a string of 1 to
// schemadoc.AgentSummaryMaxLength characters; null is as if not sent.
func agentSummary(k string, v *mcpwriteimpl.Value, errs Errors) (string, Errors) {
	switch {
	case v == nil || v.Kind == mcpwriteimpl.KindNull:
		return "", errs
	case v.Kind != mcpwriteimpl.KindString:
		return "", append(errs, &ErrorEntry{
			Code: mcpwriteimpl.CodeInvalidType, Field: k, Message: "expected string, got " + mcpwriteimpl.JSONKind(v.Kind),
			Details: map[string]any{"expected": "string", "got": mcpwriteimpl.JSONKind(v.Kind)},
		})
	}
	s := strings.TrimSpace(v.Str)
	if n := utf8.RuneCountInString(s); n == 0 || n > schemadoc.AgentSummaryMaxLength {
		return "", append(errs, &ErrorEntry{
			Code: mcpwriteimpl.CodeConstraintViolation, Field: k,
			Message:     fmt.Sprintf("must be 1 to %d characters, got %d", schemadoc.AgentSummaryMaxLength, n),
			Suggestions: &Suggestions{Hint: "Describe the change in one short line, or leave summary out."},
		})
	}
	return s, errs
}

// call is the state of one tool call as it moves through the pipeline:
// who calls, what was sent, the request built from it, and the idempotency
// claim that must be settled whatever happens. Every stage reads and
// updates it instead of taking these values one by one.
type call struct {
	r   *registry
	wt  *writeTool
	ctx context.Context
	// req is the MCP request (nil outside a tool call: apply, Preparer).
	req *mcp.CallToolRequest
	// rc is who calls; hasRC says whether a request context was found.
	rc    RequestContext
	hasRC bool
	// raw are the arguments as sent; args the parsed arguments, whose
	// fingerprint the claim takes (nil: the raw bytes are fingerprinted).
	raw  []byte
	args *mcpwriteimpl.Object
	// ctl are the control arguments (client_request_id, dry_run, summary),
	// body the rest: the arguments of the request.
	ctl  control
	body *mcpwriteimpl.Object
	// m is the request: decoded, validated and enriched.
	m proto.Message
	// loss is what the user is shown of what the write changes and loses
	// (previewLoss), for a confirmation or a proposal.
	loss lossInfo
	// answered is the verified state a 2026-07-28 retry brought back with
	// the user's answer (nil otherwise).
	answered *confirmState
	claim    claim
	// txClaim is the key the handler claims in its transaction
	// (IdempotencyOptions.ClaimInHandler); held says there is one.
	txClaim claim
}

// newCall starts the state of a call of wt by rc; ctx carries rc when
// hasRC.
func (r *registry) newCall(ctx context.Context, wt *writeTool, rc RequestContext, hasRC bool) *call {
	return &call{r: r, wt: wt, ctx: ctx, rc: rc, hasRC: hasRC}
}

// name is the tool's name.
func (c *call) name() string { return c.wt.doc.Name }

// prepare runs decode -> validate -> enrich -> request check on c.body and
// returns the complete request (with the Decoder and the Call taken from s,
// which must not be released before the request is complete; nil:
// allocated). Enrichment sees c.ctl's client_request_id and dry_run. A
// failure returns the entries and their class.
func (c *call) prepare(s *mcpwriteimpl.Scratch) (proto.Message, Errors, errClass) {
	r, wt, ctx := c.r, c.wt, c.ctx
	m := wt.bind.NewRequest()
	var d *mcpwriteimpl.Decoder
	var gc *mcpwriteimpl.Call
	if s != nil {
		d, gc = s.Decoder(), s.Call()
	} else {
		d, gc = mcpwriteimpl.NewDecoder(r.cfg.limits), new(mcpwriteimpl.Call)
	}
	vocabs := r.newCallVocabularies(ctx, c.rc)
	d.Vocabularies = vocabs.lookup()
	wt.bind.Decode(d, c.body, m)
	if vocabs != nil && vocabs.failure != nil {
		err := vocabs.failure
		es, class := r.classify(ctx, wt.doc.Name, err)
		return m, es, class
	}
	if es := d.Errors(); len(es) > 0 {
		wt.hint(es)
		r.hintGroups(es)
		return m, es, classBusiness
	}
	*gc = mcpwriteimpl.Call{
		Ctx: ctx, Tool: wt.doc.Name, RC: mcpwriteimpl.RequestMetadata(c.rc), HasRC: c.hasRC,
		ClientRequestID: c.ctl.key, DryRun: c.ctl.dryRun,
		Clock: r.cfg.clock, Rand: r.cfg.rand, IDSecret: r.cfg.idSecret,
	}
	if s != nil {
		s.LendRandom()
	}
	if err := wt.bind.Enrich(gc, m); err != nil {
		es, class := r.classify(ctx, wt.doc.Name, err)
		return m, es, class
	}
	if es, class := r.requestCheck(ctx, wt, c.body, m); len(es) > 0 {
		wt.hint(es)
		return m, es, class
	}
	return m, nil, classBusiness
}

// errorBody lets the domain hook amend the entries and renders the envelope.
func (r *registry) errorBody(ctx context.Context, tool string, req proto.Message, es Errors) []byte {
	if r.cfg.errorHook != nil {
		for _, e := range es {
			if e != nil {
				r.cfg.errorHook(ctx, tool, req, e)
			}
		}
	}
	return r.render(ctx, tool, errorEnvelope(es))
}

// errorResult is errorBody as an isError tool result.
func (r *registry) errorResult(ctx context.Context, tool string, req proto.Message, es Errors) *mcp.CallToolResult {
	return toolResult(r.errorBody(ctx, tool, req, es), true)
}

// render marshals an envelope; a value that cannot be marshalled is a bug,
// answered as INTERNAL rather than a protocol error.
func (r *registry) render(ctx context.Context, tool string, o object) []byte {
	b, err := marshalJSON(o)
	if err != nil {
		e := r.internal(ctx, tool, fmt.Errorf("marshal result: %w", err))
		b, _ = marshalJSON(errorEnvelope(Errors{e}))
	}
	return b
}

// writeHandler runs the write pipeline (call.run) for one write tool.
func (r *registry) writeHandler(wt *writeTool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		c := &call{r: r, wt: wt, ctx: ctx, req: req}
		defer func() {
			if p := recover(); p != nil {
				c.release()
				panic(p) // guard answers INTERNAL
			}
		}()
		return c.run(), nil
	}
}

// run is the write pipeline (docs/architecture.md, "The write pipeline"),
// top to bottom: every stage is called from here, every answer returns from
// here, and the idempotency key is claimed here only.
func (c *call) run() *mcp.CallToolResult {
	r := c.r
	// Request context: who calls.
	c.rc, c.hasRC = r.requestContext(c.ctx, c.req)
	if c.hasRC {
		c.ctx = WithRequestContext(c.ctx, c.rc)
	}

	// Decode: the arguments are parsed strictly and the control arguments
	// taken out. The parsed arguments live until the answer is rendered,
	// which is before run returns.
	s := mcpwriteimpl.GetScratch()
	defer s.Release()
	c.raw = arguments(c.req)
	obj, es := r.parseArgsInto(c.raw, s)
	if len(es) > 0 {
		return c.fail(es)
	}
	c.args = obj
	c.ctl, c.body = c.wt.splitControl(obj)

	// Validate, enrich, request check.
	var class errClass
	c.m, es, class = c.prepare(s)

	// dry_run: the validate_write answer; it leads with success, so it also
	// conforms to the write tool's own output schema. Nothing is claimed,
	// confirmed or written.
	if c.ctl.dryRun && class != classInternal {
		return toolResult(r.render(c.ctx, c.name(), c.validateResult(append(c.ctl.errs, es...))), false)
	}
	if es = append(c.ctl.errs, es...); len(es) > 0 {
		return c.fail(es)
	}

	// preview_unless: unless the agent asked for the write, a preview
	// answers; nothing is claimed, confirmed or written.
	if c.previewOnly() {
		return c.previewAnswer()
	}

	// Confirmation decision: DIRECT, PROPOSAL or ELICIT, and how the user
	// can be asked.
	route, e := c.route()
	if e != nil {
		return c.fail(Errors{e})
	}

	// ELICIT on 2026-07-28, before the claim: the first round answers the
	// confirmation as an input request (or the answer a used key holds)
	// and claims nothing; the retry bringing the user's answer is verified
	// before anything is claimed.
	switch route {
	case routeAsk:
		if res := c.peek(); res != nil {
			return res
		}
		return c.conclude(c.askRoundTrip())
	case routeAnswer:
		if d := c.verifyAnswer(); d.kind != proceed {
			return c.conclude(d)
		}
	}

	// Idempotency claim, or the answer the key already holds (replay,
	// reused key, in flight). An in-call confirmation holds the claim while
	// the user answers, so a retry meanwhile gets IDEMPOTENCY_IN_PROGRESS
	// instead of a second write.
	lease := r.cfg.idemLease
	if route == routeInCall {
		lease += r.cfg.elicitTimeout
	}
	if route == routeDirect && r.cfg.claimInHandler && !c.wt.noTxClaim.Load() {
		if res := c.deferClaim(); res != nil {
			return res
		}
	} else if res := c.claimKey(lease); res != nil {
		return res
	}

	// Confirmation, under the claim: the previews, then asking the user
	// (up to 2025-11-25), checking the verified answer still holds
	// (2026-07-28) or preparing the proposal.
	d := confirmDecision{kind: proceed}
	switch route {
	case routePropose:
		d = c.proposeDecision()
	case routeInCall:
		d = c.confirmInCall()
	case routeAnswer:
		d = c.confirmAnswered()
	}

	// Handler or stored proposal, and the answer.
	var a answer
	switch d.kind {
	case proceed:
		a = c.execute()
	case propose:
		a = c.propose()
	default:
		return c.conclude(d)
	}

	// Record the answer under the claim, or release the claim.
	return c.record(a)
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

// record stores a kept answer under the claim (when the call holds one) or
// releases the claim, and returns the answer. An answer that cannot be
// stored is answered as UNAVAILABLE, never as what it was.
func (c *call) record(a answer) *mcp.CallToolResult {
	if a.res != nil {
		return a.res
	}
	if !a.keep {
		c.release()
		return toolResult(a.body, a.isError)
	}
	if err := c.complete(a.body, a.isError); err != nil {
		return c.unrecorded(a.body, err)
	}
	return toolResult(a.body, a.isError)
}

// fail answers es for the call's request (nil before it is decoded).
func (c *call) fail(es Errors) *mcp.CallToolResult {
	return c.r.errorResult(c.ctx, c.name(), c.m, es)
}

// failure is the answer es for the call's request; keep says whether it is
// an outcome to record.
func (c *call) failure(es Errors, keep bool) answer {
	return answer{body: c.r.errorBody(c.ctx, c.name(), c.m, es), isError: true, keep: keep}
}

// conclude answers a confirmation decision that ends the call without the
// handler: the input request, or the refusal, recorded under the claim when
// it is an outcome (a business error of a preview), else with the claim
// released.
func (c *call) conclude(d confirmDecision) *mcp.CallToolResult {
	if d.kind == answerInputRequest {
		return d.res
	}
	return c.record(c.failure(d.es, d.record))
}

// execute runs the handler on a write that needs no (more) confirmation and
// renders its outcome.
func (c *call) execute() answer {
	r, wt, name := c.r, c.wt, c.name()
	var out *Outcome
	if c.claim.held || c.txClaim.held {
		// The handler may record the outcome in its own transaction (and
		// claim the key there first).
		k := c.claim
		if c.txClaim.held {
			k = c.txClaim
		}
		out = &Outcome{Key: k.key, Fingerprint: k.fp, Now: r.now(), TTL: r.cfg.idemTTL, Lease: r.cfg.idemLease, ClaimInTx: c.txClaim.held,
			render: func(resp proto.Message) ([]byte, error) {
				o, err := successEnvelope(resp, wt.doc.Result, r.nextSteps(wt), r.warnings(wt, c.body), r.enums, r.jsonNames())
				if err != nil {
					return nil, err
				}
				return r.render(c.ctx, name, o), nil
			}}
		c.ctx = context.WithValue(c.ctx, outcomeKey{}, out)
	}
	resp, es, class, held := c.invoke()
	if held != nil {
		c.txClaim.held = false
		return answer{res: c.answerExisting(c.txClaim.fp, held)}
	}
	if c.txClaim.held && len(es) == 0 && !out.recorded && !wt.noTxClaim.Swap(true) {
		r.cfg.logger.ErrorContext(c.ctx, "mcpwrite: IdempotencyOptions.ClaimInHandler is set but the handler does not record keyed writes in its transaction; the runtime claims this tool's keys from now on",
			"tool", name)
	}
	if c.txClaim.held && (len(es) == 0 && !out.recorded || len(es) > 0 && class == classBusiness) {
		// The handler's transaction did not record this outcome (a business
		// error rolls back with the claim): the runtime records it.
		c.adoptTxClaim()
	}
	if len(es) > 0 {
		// A business error is an outcome; a transient or internal one is not.
		return c.failure(es, class == classBusiness)
	}
	if out != nil && out.recorded {
		c.claim.held = false // committed with the write
		return answer{body: out.body}
	}
	o, err := successEnvelope(resp, wt.doc.Result, r.nextSteps(wt), r.warnings(wt, c.body), r.enums, r.jsonNames())
	if err != nil {
		return c.failure(Errors{r.internal(c.ctx, name, fmt.Errorf("marshal response: %w", err))}, false)
	}
	return answer{body: r.render(c.ctx, name, o), keep: true}
}

// invoke calls the handler. When the tool allows it, an Aborted answer (an
// optimistic-lock conflict) re-runs decode and enrich, so resolvers read the
// new state (version, etag), and tries again. A failure comes back as
// envelope entries with their class: a resolver that fails during the retry
// keeps its own class (a transient lookup failure is not stored as an
// outcome; an internal one is logged with its cause and trace_id).
//
// held is the record that holds the key when the handler's own claim found
// it taken (idempotency.HeldError).
func (c *call) invoke() (resp proto.Message, es Errors, class errClass, held *idempotency.Record) {
	r, wt, m := c.r, c.wt, c.m
	for attempt := uint32(0); ; attempt++ {
		resp, err := wt.bind.Invoke(c.ctx, m)
		if err == nil {
			return resp, nil, classBusiness, nil
		}
		if held := (*idempotency.HeldError)(nil); errors.As(err, &held) && c.txClaim.held {
			return nil, nil, classBusiness, held.Record
		}
		if status.Code(err) != codes.Aborted || attempt >= wt.doc.RetryOnConflict {
			es, class := r.handlerError(c.ctx, wt, m, err)
			return nil, es, class, nil
		}
		// Only a call that is not a dry run gets here.
		fresh, es, class := c.prepare(nil)
		if len(es) > 0 {
			return nil, es, class, nil
		}
		m = fresh
	}
}

// handlerError maps a handler error; an Aborted answer gets a hint that says
// what was already tried.
func (r *registry) handlerError(ctx context.Context, wt *writeTool, m proto.Message, err error) (Errors, errClass) {
	es, class := r.classify(ctx, wt.doc.Name, err)
	if status.Code(err) == codes.Aborted && len(es) == 1 {
		hint := "The target changed while writing. Read its current state and retry."
		if n := wt.doc.RetryOnConflict; n > 0 {
			hint = fmt.Sprintf("The target changed while writing; the server retried %d time(s) with fresh values. Read its current state and retry.", n)
		}
		es[0].Suggestions = mergeHint(es[0].Suggestions, hint)
	}
	return es, class
}

// nextSteps turns the tool's next_steps into sentences an agent can act on,
// using each next tool's own description.
func (r *registry) nextSteps(wt *writeTool) []string {
	out := []string{}
	for _, name := range wt.doc.NextSteps {
		if next, ok := r.tools[name]; ok && lowerFirst(next.doc.Description) != "" {
			out = append(out, fmt.Sprintf("Call %s to %s", name, lowerFirst(next.doc.Description)))
		} else {
			out = append(out, fmt.Sprintf("Call %s next", name))
		}
	}
	return out
}

// warnings are remarks on a valid call: today an omitted optional
// description, which makes the entity hard to find later.
func (r *registry) warnings(wt *writeTool, body *mcpwriteimpl.Object) []mcpwriteimpl.Warning {
	ws := []mcpwriteimpl.Warning{}
	if wt.optionalDescription {
		if v := body.Get("description"); v == nil || v.Kind == mcpwriteimpl.KindNull || (v.Kind == mcpwriteimpl.KindString && v.Str == "") {
			entity := "The request"
			if wt.doc.Result != "" {
				entity = humanize(wt.doc.Result)
			}
			ws = append(ws, mcpwriteimpl.Warning{
				Code: "MISSING_DESCRIPTION", Field: "description",
				Message:    entity + " has no description",
				Suggestion: "Add a description for better discoverability",
			})
		}
	}
	return ws
}
