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
func (r *registry) parseArgsInto(raw []byte, s *scratch) (*mcpwriteimpl.Object, Errors) {
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
					Details: map[string]any{"expected": "string", "got": jsonKind(v.Kind)},
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
					Details: map[string]any{"expected": "boolean", "got": jsonKind(v.Kind)},
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
			Code: mcpwriteimpl.CodeInvalidType, Field: k, Message: "expected string, got " + jsonKind(v.Kind),
			Details: map[string]any{"expected": "string", "got": jsonKind(v.Kind)},
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

// initCall sets c, a zero Call, to the per-call state generated enrichment
// reads.
func (r *registry) initCall(ctx context.Context, c *mcpwriteimpl.Call, tool string, rc RequestContext, hasRC bool, key string, dryRun bool) {
	*c = mcpwriteimpl.Call{
		Ctx: ctx, Tool: tool, RC: mcpwriteimpl.RequestMetadata(rc), HasRC: hasRC,
		ClientRequestID: key, DryRun: dryRun,
		Clock: r.cfg.clock, Rand: r.cfg.rand, IDSecret: r.cfg.idSecret,
	}
}

// prepare runs decode -> validate -> enrich and returns the complete request.
// A failure returns the entries and their class.
func (r *registry) prepare(ctx context.Context, wt *writeTool, body *mcpwriteimpl.Object, rc RequestContext, hasRC bool, key string, dryRun bool) (proto.Message, Errors, errClass) {
	return r.prepareWith(ctx, nil, wt, body, rc, hasRC, key, dryRun)
}

// prepareWith is prepare with the Decoder and the Call taken from s (nil:
// allocated), which must not be released before the request is complete.
func (r *registry) prepareWith(ctx context.Context, s *scratch, wt *writeTool, body *mcpwriteimpl.Object, rc RequestContext, hasRC bool, key string, dryRun bool) (proto.Message, Errors, errClass) {
	m := wt.bind.NewRequest()
	var d *mcpwriteimpl.Decoder
	var c *mcpwriteimpl.Call
	if s != nil {
		d, c = s.Decoder(), s.Call()
	} else {
		d, c = mcpwriteimpl.NewDecoder(r.cfg.limits), new(mcpwriteimpl.Call)
	}
	vocabs := r.newCallVocabularies(ctx, rc)
	d.Vocabularies = vocabs.lookup()
	wt.bind.Decode(d, body, m)
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
	r.initCall(ctx, c, wt.doc.Name, rc, hasRC, key, dryRun)
	if s != nil {
		s.LendRandom()
	}
	if err := wt.bind.Enrich(c, m); err != nil {
		es, class := r.classify(ctx, wt.doc.Name, err)
		return m, es, class
	}
	if es, class := r.requestCheck(ctx, wt, body, m); len(es) > 0 {
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

// writeCall is the state of one write tool call that must be cleaned up
// whatever happens: the idempotency claim.
type writeCall struct {
	r         *registry
	wt        *writeTool
	claimed   bool
	key       idempotency.Key
	clientKey string // the client_request_id as the agent sent it
	fp        string
	// args are the parsed arguments, whose fingerprint the claim takes
	// (nil: the raw bytes are fingerprinted).
	args *mcpwriteimpl.Object
	// failed: the outcome being recorded is a business error, not a write.
	failed bool
}

// writeHandler runs the write pipeline (docs/architecture.md, "The write
// pipeline") for one write tool.
func (r *registry) writeHandler(wt *writeTool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		wc := &writeCall{r: r, wt: wt}
		defer func() {
			if p := recover(); p != nil {
				wc.release(ctx)
				panic(p) // guard answers INTERNAL
			}
		}()
		return wc.run(ctx, req), nil
	}
}

func (wc *writeCall) run(ctx context.Context, req *mcp.CallToolRequest) *mcp.CallToolResult {
	r, wt, name := wc.r, wc.wt, wc.wt.doc.Name
	rc, hasRC := r.requestContext(ctx, req)
	if hasRC {
		ctx = WithRequestContext(ctx, rc)
	}
	raw := arguments(req)
	// The parsed arguments live until the answer is rendered, which is
	// before run returns.
	s := getScratch()
	defer s.Release()
	obj, es := r.parseArgsInto(raw, s)
	if len(es) > 0 {
		return r.errorResult(ctx, name, nil, es)
	}
	wc.args = obj
	ctl, body := wt.splitControl(obj)
	m, es, class := r.prepareWith(ctx, s, wt, body, rc, hasRC, ctl.key, ctl.dryRun)
	if ctl.dryRun && class != classInternal {
		// The validate_write answer; it leads with success, so it also
		// conforms to the write tool's own output schema.
		return toolResult(r.render(ctx, name, r.validateResult(ctx, wt, m, append(ctl.errs, es...), body)), false)
	}
	if es = append(ctl.errs, es...); len(es) > 0 {
		return r.errorResult(ctx, name, m, es)
	}
	if pu := wt.doc.PreviewUnless; pu != nil && !boolField(m, pu.Field) {
		return r.previewAnswer(ctx, wt, m, body)
	}

	conf := r.confirmation(ctx, wt, rc)
	if conf != ConfirmDirect && (rc.TenantID == "" || rc.PrincipalID == "") {
		return r.errorResult(ctx, name, m, Errors{anonymousConfirmation(name)})
	}
	if conf == ConfirmElicit {
		if isRoundTripAnswer(req) {
			return wc.confirmRoundTrip(ctx, req, m, body, raw, rc, hasRC, ctl.key)
		}
		switch elicitationMode(req) {
		case elicitRoundTrip:
			return wc.askRoundTrip(ctx, m, body, raw, rc, ctl.key)
		case elicitInCall:
			return wc.confirmInCall(ctx, req, m, body, raw, rc, hasRC, ctl.key)
		}
		if refusesWithoutElicitation(wt.doc) {
			return r.errorResult(ctx, name, m, Errors{confirmationRequired(wt, body)})
		}
		conf = ConfirmProposal // no way to ask: a proposal waits for the user instead
	}

	if ctl.key != "" && r.cfg.idem != nil {
		if res := wc.claim(ctx, rc, ctl.key, raw, m, r.cfg.idemLease); res != nil {
			return res
		}
	}
	if conf == ConfirmProposal {
		loss, res := wc.previewLoss(ctx, m)
		if res != nil {
			return res
		}
		b, es := r.propose(ctx, wt, m, body, raw, rc, loss)
		return wc.finishGoverned(ctx, m, b, es)
	}
	return wc.execute(ctx, m, body, rc, hasRC, ctl.key)
}

// execute runs the handler on a write that needs no (more) confirmation and
// renders its outcome, recording it under the idempotency claim.
func (wc *writeCall) execute(ctx context.Context, m proto.Message, body *mcpwriteimpl.Object, rc RequestContext, hasRC bool, key string) *mcp.CallToolResult {
	r, wt, name := wc.r, wc.wt, wc.wt.doc.Name
	var out *Outcome
	if wc.claimed {
		// The handler may record the outcome in its own transaction.
		out = &Outcome{Key: wc.key, Fingerprint: wc.fp, Now: r.now(), TTL: r.cfg.idemTTL, render: func(resp proto.Message) ([]byte, error) {
			o, err := successEnvelope(resp, wt.doc.Result, r.nextSteps(wt), r.warnings(wt, body), r.enums, r.jsonNames())
			if err != nil {
				return nil, err
			}
			return r.render(ctx, name, o), nil
		}}
		ctx = context.WithValue(ctx, outcomeKey{}, out)
	}
	resp, es, class := wc.invoke(ctx, m, body, rc, hasRC, key)
	if len(es) > 0 {
		b := r.errorBody(ctx, name, m, es)
		if class == classBusiness {
			if err := wc.complete(ctx, b, true); err != nil {
				return wc.unrecorded(ctx, b, err)
			}
		} else {
			wc.release(ctx)
		}
		return toolResult(b, true)
	}
	if out != nil && out.recorded {
		wc.claimed = false // committed with the write
		return toolResult(out.body, false)
	}
	o, err := successEnvelope(resp, wt.doc.Result, r.nextSteps(wt), r.warnings(wt, body), r.enums, r.jsonNames())
	if err != nil {
		wc.release(ctx)
		return r.errorResult(ctx, name, m, Errors{r.internal(ctx, name, fmt.Errorf("marshal response: %w", err))})
	}
	b := r.render(ctx, name, o)
	if err := wc.complete(ctx, b, false); err != nil {
		return wc.unrecorded(ctx, b, err)
	}
	return toolResult(b, false)
}

// finishGoverned records a proposal (or the failure to make one) under the
// idempotency key, so a retried call returns the same proposal.
func (wc *writeCall) finishGoverned(ctx context.Context, m proto.Message, b []byte, es Errors) *mcp.CallToolResult {
	if len(es) > 0 {
		wc.release(ctx)
		return wc.r.errorResult(ctx, wc.wt.doc.Name, m, es)
	}
	if err := wc.complete(ctx, b, false); err != nil {
		return wc.unrecorded(ctx, b, err)
	}
	return toolResult(b, false)
}

// claim takes the idempotency key, or answers the call from the record that
// holds it: a replay, a reused key or a call still in flight.
func (wc *writeCall) claim(ctx context.Context, rc RequestContext, key string, raw []byte, m proto.Message, lease time.Duration) *mcp.CallToolResult {
	r, name := wc.r, wc.wt.doc.Name
	fp, err := wc.fingerprint(raw)
	if err != nil {
		return r.errorResult(ctx, name, m, Errors{r.internal(ctx, name, fmt.Errorf("fingerprint: %w", err))})
	}
	k := idempotency.ScopedKey(rc.TenantID, rc.PrincipalID, name, key)
	cr, err := r.cfg.idem.Claim(ctx, k, fp, r.now(), lease)
	if err != nil {
		return r.errorResult(ctx, name, m, Errors{r.storeUnavailable(ctx, name, "claim", k, key, err)})
	}
	if cr.Claimed {
		wc.claimed, wc.key, wc.clientKey, wc.fp = true, k, key, fp
		return nil
	}
	return wc.answerExisting(ctx, m, key, fp, cr.Existing)
}

// fingerprint is the idempotency fingerprint of the call's arguments: from
// the parsed arguments when the call has them, else from raw.
func (wc *writeCall) fingerprint(raw []byte) (string, error) {
	if wc.args != nil {
		return argumentsFingerprint(wc.args), nil
	}
	return idempotency.Fingerprint(raw)
}

// peek answers a call from the record its idempotency key already holds
// (replay, reused key, in flight) without claiming the key; nil means the
// key is free.
func (wc *writeCall) peek(ctx context.Context, rc RequestContext, key string, raw []byte, m proto.Message) *mcp.CallToolResult {
	r, name := wc.r, wc.wt.doc.Name
	fp, err := wc.fingerprint(raw)
	if err != nil {
		return r.errorResult(ctx, name, m, Errors{r.internal(ctx, name, fmt.Errorf("fingerprint: %w", err))})
	}
	k := idempotency.ScopedKey(rc.TenantID, rc.PrincipalID, name, key)
	rec, err := r.cfg.idem.Get(ctx, k, r.now())
	switch {
	case errors.Is(err, idempotency.ErrNotFound):
		return nil
	case err != nil:
		return r.errorResult(ctx, name, m, Errors{r.storeUnavailable(ctx, name, "lookup", k, key, err)})
	}
	return wc.answerExisting(ctx, m, key, fp, rec)
}

// answerExisting is the answer to a call whose key is held by ex.
func (wc *writeCall) answerExisting(ctx context.Context, m proto.Message, key, fp string, ex *idempotency.Record) *mcp.CallToolResult {
	r, name := wc.r, wc.wt.doc.Name
	switch {
	case ex == nil:
		return r.errorResult(ctx, name, m, Errors{r.internal(ctx, name, errors.New("idempotency claim refused without a record"))})
	case ex.Fingerprint != fp:
		return r.errorResult(ctx, name, m, Errors{{
			Code: mcpwriteimpl.CodeIdempotencyKeyReused, Field: argClientRequestID,
			Message:     fmt.Sprintf("client_request_id %q was already used for a different request", key),
			Details:     map[string]any{"client_request_id": key},
			Suggestions: &Suggestions{Hint: "Use a new client_request_id for a new request; resend the original arguments unchanged to get the original result."},
		}})
	case ex.State == idempotency.StateCompleted:
		return r.replay(ctx, name, ex.Response, ex.IsError, ex.CreatedAt)
	default:
		return r.errorResult(ctx, name, m, Errors{{
			Code: mcpwriteimpl.CodeIdempotencyInProgress, Field: argClientRequestID,
			Message:     fmt.Sprintf("a request with client_request_id %q is still being processed", key),
			Details:     map[string]any{"client_request_id": key},
			Suggestions: &Suggestions{Hint: "Wait a few seconds and retry with the same client_request_id and arguments; it will return the result."},
		}})
	}
}

// replay returns a stored result verbatim, marked as a replay.
func (r *registry) replay(ctx context.Context, tool string, stored []byte, isError bool, created time.Time) *mcp.CallToolResult {
	o, err := parseObject(stored)
	if err != nil {
		return r.errorResult(ctx, tool, nil, Errors{r.internal(ctx, tool, fmt.Errorf("stored result: %w", err))})
	}
	o.set("idempotent_replay", true)
	if !created.IsZero() {
		o.set("original_request_time", created.UTC().Format(time.RFC3339))
	}
	return toolResult(r.render(ctx, tool, o), isError)
}

// recordAttempts is how many times the outcome of a keyed call is written
// before the call answers that it could not be recorded; recordBackoff is
// the pause before each retry.
var (
	recordAttempts = 3
	recordBackoff  = []time.Duration{20 * time.Millisecond, 100 * time.Millisecond}
)

// complete stores the outcome under the claimed key, retrying a failed
// write. When it cannot be stored the failure is logged and returned: the
// caller answers UNAVAILABLE rather than success, since a retry of the key
// would execute the call again once the claim's lease ends.
func (wc *writeCall) complete(ctx context.Context, body []byte, isError bool) error {
	if !wc.claimed {
		return nil
	}
	wc.claimed, wc.failed = false, isError
	r := wc.r
	if max := r.cfg.maxStoredResponse; len(body) > max {
		body = tooLargeToReplay(wc.key.Tool, len(body), max)
		isError = true
	}
	size := len(body)
	var err error
	for attempt := 0; attempt < recordAttempts; attempt++ {
		if attempt > 0 {
			time.Sleep(recordBackoff[min(attempt-1, len(recordBackoff)-1)])
		}
		if err = r.cfg.idem.Complete(context.WithoutCancel(ctx), wc.key, wc.fp, body, isError, r.now(), r.cfg.idemTTL); err == nil {
			return nil
		}
		// A store bounded below the result keeps the marker instead.
		var tl *idempotency.RecordTooLargeError
		if errors.As(err, &tl) && !isError {
			body, isError = tooLargeToReplay(wc.key.Tool, size, tl.Limit), true
			attempt-- // refusing a size is an answer, not a failed write
		}
	}
	return err
}

// tooLargeToReplay is what a key whose result exceeded max bytes replays:
// an error saying the original call ran, so the retry never executes it again.
func tooLargeToReplay(tool string, size, max int) []byte {
	b, _ := marshalJSON(errorEnvelope(Errors{{
		Code: mcpwriteimpl.CodeResourceExhausted,
		Message: fmt.Sprintf("the original %s call with this client_request_id completed, but its result (%d bytes) was larger than the %d bytes kept for replays, so it cannot be shown again",
			tool, size, max),
		Details:     map[string]any{"result_bytes": size, "limit_bytes": max, "completed": true},
		Suggestions: &Suggestions{Hint: "Do not retry: the write was applied. Read the current state to see its result."},
	}}))
	return b
}

// unrecorded is the answer to a call that ran but whose outcome could not
// be stored under its key (result is what it would have answered); the
// failure is logged with the entry's trace_id. A write that was applied is
// said to be applied; a business error (nothing written) is said to be
// one, and its claim is released so that a retry runs the call again.
func (wc *writeCall) unrecorded(ctx context.Context, result []byte, err error) *mcp.CallToolResult {
	r, name := wc.r, wc.wt.doc.Name
	e := &ErrorEntry{
		Code:  mcpwriteimpl.CodeUnavailable,
		Field: argClientRequestID,
		Message: fmt.Sprintf("%s ran, but its outcome could not be recorded under client_request_id %q: a retry with this key after %s may run it again",
			name, wc.clientKey, r.cfg.idemLease),
		Details:     map[string]any{"applied": true},
		Suggestions: &Suggestions{Hint: "The write was applied; details.result is its result. Check the current state before retrying."},
		TraceID:     r.traceID(),
	}
	if wc.failed {
		e.Message = fmt.Sprintf("%s answered an error and wrote nothing, but that outcome could not be recorded under client_request_id %q, so a retry with this key runs the call again",
			name, wc.clientKey)
		e.Details["applied"] = false
		e.Suggestions.Hint = "Nothing was written; details.result is the error the call answered. Fix the request, or retry with the same client_request_id and arguments."
	}
	if o, perr := parseObject(result); perr == nil {
		e.Details["result"] = o
	}
	r.cfg.logger.ErrorContext(ctx, "mcpwrite: idempotency outcome not recorded; a retry with this key may execute the call again",
		"tool", name, "tenant", wc.key.Tenant, "client_request_id", wc.clientKey, "applied", !wc.failed, "attempts", recordAttempts,
		"lease", r.cfg.idemLease.String(), "trace_id", e.TraceID, "error", err)
	if wc.failed {
		wc.claimed = true
		wc.release(ctx)
	}
	return toolResult(r.render(ctx, name, errorEnvelope(Errors{e})), true)
}

// release gives up the claim so that a retry executes.
func (wc *writeCall) release(ctx context.Context) {
	if !wc.claimed {
		return
	}
	wc.claimed = false
	if err := wc.r.cfg.idem.Release(context.WithoutCancel(ctx), wc.key, wc.fp); err != nil {
		wc.r.cfg.logger.WarnContext(ctx, "mcpwrite: idempotency release failed; a retry with this key waits for the lease to end",
			"tool", wc.key.Tool, "tenant", wc.key.Tenant, "client_request_id", wc.clientKey, "lease", wc.r.cfg.idemLease.String(), "error", err)
	}
}

// invoke calls the handler. When the tool allows it, an Aborted answer (an
// optimistic-lock conflict) re-runs decode and enrich, so resolvers read the
// new state (version, etag), and tries again. A failure comes back as
// envelope entries with their class: a resolver that fails during the retry
// keeps its own class (a transient lookup failure is not stored as an
// outcome; an internal one is logged with its cause and trace_id).
func (wc *writeCall) invoke(ctx context.Context, m proto.Message, body *mcpwriteimpl.Object, rc RequestContext, hasRC bool, key string) (proto.Message, Errors, errClass) {
	r, wt := wc.r, wc.wt
	for attempt := uint32(0); ; attempt++ {
		resp, err := wt.bind.Invoke(ctx, m)
		if err == nil {
			return resp, nil, classBusiness
		}
		if status.Code(err) != codes.Aborted || attempt >= wt.doc.RetryOnConflict {
			es, class := r.handlerError(ctx, wt, m, err)
			return nil, es, class
		}
		fresh, es, class := r.prepare(ctx, wt, body, rc, hasRC, key, false)
		if len(es) > 0 {
			return nil, es, class
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
