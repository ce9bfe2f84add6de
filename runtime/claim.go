package runtime

// The back half of a call: settling what it holds (hold). A keyed write's
// idempotency claim is taken at one place in the pipeline (call.run); the
// claim and the proposal an apply took are both settled here, the outcome
// written with retries (recordRetrying, from call.record), an outcome that
// could not be written answered as such (call.unrecorded), the hold given
// back (call.release).

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// claimKey takes the idempotency key for lease, or answers the call from
// the record that holds it: a replay, a reused key or a call still in
// flight. Without a client_request_id or a store there is nothing to claim.
func (c *call) claimKey(lease time.Duration) *toolcall.Result {
	r, name, key := c.r, c.name(), c.ctl.key
	k, fp, res, ok := c.scopedKey()
	if !ok {
		return res
	}
	cr, err := r.cfg.idem.Claim(c.ctx, k, fp, r.ans.now(), lease)
	if e := idempotencyQuotaError(name, err); e != nil {
		r.cfg.logger.WarnContext(c.ctx, "mcpwrite: claim refused: quota of idempotency records reached", "tool", name, "tenant", c.rc.TenantID, "error", err)
		return c.fail(impl.Errors{e})
	}
	if err != nil {
		return c.fail(impl.Errors{r.ans.storeUnavailable(c.ctx, name, "claim", k, key, err)})
	}
	if cr.Claimed {
		c.key = claim{r: r, key: k, fp: fp, id: key}
		c.held = &c.key
		return nil
	}
	return c.answerExisting(fp, cr.Existing)
}

// deferClaim leaves the call's key to the handler, which claims it in its
// own transaction (IdempotencyOptions.ClaimInHandler).
func (c *call) deferClaim() *toolcall.Result {
	k, fp, res, ok := c.scopedKey()
	if ok {
		c.key = claim{r: c.r, key: k, fp: fp, id: c.ctl.key}
		c.txClaim = &c.key
	}
	return res
}

// adoptTxClaim claims the key the handler was to claim in its transaction
// and did not record under (its business error rolled back with the
// claim, or it does not claim keys), so the runtime records the outcome.
// When another call holds the key by now the outcome is answered without
// being recorded, and logged.
func (c *call) adoptTxClaim() {
	k := c.txClaim
	c.txClaim = nil
	cr, err := c.r.cfg.idem.Claim(c.ctx, k.key, k.fp, c.r.ans.now(), c.r.cfg.idemLease)
	if err == nil && cr.Claimed {
		c.held = k
		return
	}
	c.r.cfg.logger.WarnContext(c.ctx, "mcpwrite: the outcome of a call whose handler did not record it could not be recorded; a retry with this key may run it again",
		"tool", k.key.Tool, "tenant", k.key.Tenant, "client_request_id", c.ctl.key, "error", err)
}

// scopedKey is the call's idempotency key, scoped to its caller and tool,
// and the fingerprint of its arguments. ok is false when there is nothing
// to claim (no client_request_id or no store; res nil) or the fingerprint
// failed (res answers it).
func (c *call) scopedKey() (k idempotency.Key, fp string, res *toolcall.Result, ok bool) {
	r, name, key := c.r, c.name(), c.ctl.key
	if key == "" || r.cfg.idem == nil {
		return k, "", nil, false
	}
	fp, err := c.fingerprint()
	if err != nil {
		return k, "", c.fail(impl.Errors{r.ans.internal(c.ctx, name, fmt.Errorf("fingerprint: %w", err))}), false
	}
	return idempotency.ScopedKey(c.rc.TenantID, c.rc.PrincipalID, name, key), fp, nil, true
}

// fingerprint is the idempotency fingerprint of the call's arguments: from
// the parsed arguments when the call has them, else from the raw bytes.
func (c *call) fingerprint() (string, error) {
	if c.args != nil {
		return argumentsFingerprint(c.args), nil
	}
	return idempotency.Fingerprint(c.raw)
}

// peek answers a call from the record its idempotency key already holds
// (replay, reused key, in flight) without claiming the key; nil means the
// key is free (or the call has none).
func (c *call) peek() *toolcall.Result {
	r, name, key := c.r, c.name(), c.ctl.key
	k, fp, res, ok := c.scopedKey()
	if !ok {
		return res
	}
	rec, err := r.cfg.idem.Get(c.ctx, k, r.ans.now())
	switch {
	case errors.Is(err, idempotency.ErrNotFound):
		return nil
	case err != nil:
		return c.fail(impl.Errors{r.ans.storeUnavailable(c.ctx, name, "lookup", k, key, err)})
	}
	return c.answerExisting(fp, rec)
}

// answerExisting is the answer to a call whose key is held by ex.
func (c *call) answerExisting(fp string, ex *idempotency.Record) *toolcall.Result {
	r, name, key, kn := c.r, c.name(), c.ctl.key, c.wt.names.clientRequestID
	switch {
	case ex == nil:
		return c.fail(impl.Errors{r.ans.internal(c.ctx, name, errors.New("idempotency claim refused without a record"))})
	case ex.Fingerprint != fp:
		return c.fail(impl.Errors{{
			Code: impl.CodeIdempotencyKeyReused, Field: kn,
			Message:     fmt.Sprintf("%s %q was already used for a different request", kn, key),
			Details:     map[string]any{kn: key},
			Suggestions: &impl.Suggestions{Hint: fmt.Sprintf("Use a new %s for a new request; resend the original arguments unchanged to get the original result.", kn)},
		}})
	case ex.State == idempotency.StateCompleted:
		return r.ans.replay(c.ctx, name, ex.Response, ex.IsError, ex.CreatedAt)
	default:
		return c.fail(impl.Errors{{
			Code: impl.CodeIdempotencyInProgress, Field: kn,
			Message:     fmt.Sprintf("a request with %s %q is still being processed", kn, key),
			Details:     map[string]any{kn: key},
			Suggestions: &impl.Suggestions{Hint: fmt.Sprintf("Wait a few seconds and retry with the same %s and arguments; it will return the result.", kn)},
		}})
	}
}

// recordAttempts is how many times the outcome of a call is written to its
// hold before the call answers that it could not be recorded;
// recordBackoff is the pause before each retry.
var (
	recordAttempts = 3
	recordBackoff  = []time.Duration{20 * time.Millisecond, 100 * time.Millisecond}
)

// recordRetrying writes an outcome, retrying a failed write up to
// recordAttempts attempts with recordBackoff before each retry. It returns
// the last attempt's error. call.record writes every hold's outcome
// through it.
func recordRetrying(write func() recordTry) error {
	var err error
	for attempt := 0; attempt < recordAttempts; attempt++ {
		if attempt > 0 {
			time.Sleep(recordBackoff[min(attempt-1, len(recordBackoff)-1)])
		}
		t := write()
		if err = t.err; err == nil || t.final {
			return err
		}
		if t.free {
			attempt--
		}
	}
	return err
}

// tooLargeToReplay is what a key whose result exceeded max bytes replays:
// an error saying the original call ran, so the retry never executes it again.
func tooLargeToReplay(tool string, size, max int) []byte {
	b, _ := marshalJSON(errorEnvelope(impl.Errors{{
		Code: impl.CodeResourceExhausted,
		Message: fmt.Sprintf("the original %s call with this client_request_id completed, but its result (%d bytes) was larger than the %d bytes kept for replays, so it cannot be shown again",
			tool, size, max),
		Details:     map[string]any{"result_bytes": size, "limit_bytes": max, "completed": true},
		Suggestions: &impl.Suggestions{Hint: "Do not retry: the write was applied. Read the current state to see its result."},
	}}))
	return b
}

// unrecorded is the answer to a call that ran but whose outcome (result,
// isError: an error answer) could not be written to its hold h: UNAVAILABLE
// with the result, never what the outcome was; h words it (unsaved). The
// failure is logged with the entry's trace_id.
func (c *call) unrecorded(h hold, result []byte, isError bool, err error) *toolcall.Result {
	r, u := c.r, h.unsaved(c, isError)
	e := u.entry
	e.Code, e.TraceID = impl.CodeUnavailable, r.ans.traceID()
	if o, perr := parseObject(result); perr == nil {
		e.Details["result"] = o
	}
	r.cfg.logger.ErrorContext(c.ctx, u.log, append(u.attrs, "trace_id", e.TraceID, "error", err)...)
	if u.release {
		h.release(c.ctx)
	}
	if u.hooked {
		return r.ans.errorResult(c.ctx, u.tool, nil, impl.Errors{e})
	}
	return toolResult(r.ans.render(c.ctx, u.tool, errorEnvelope(impl.Errors{e})), true)
}

// release gives back what the call holds, if anything, so that a retry
// runs the call again.
func (c *call) release() {
	if h := c.held; h != nil {
		c.held = nil
		h.release(c.ctx)
	}
}

// attempt stores the outcome under the claimed key. A result larger than
// the store keeps (WithIdempotency's maximum, or the store's own bound) is
// stored as the marker saying the call completed (tooLargeToReplay).
func (k *claim) attempt(ctx context.Context, body []byte, isError bool) func() recordTry {
	r := k.r
	if max := r.cfg.maxStoredResponse; len(body) > max {
		body = tooLargeToReplay(k.key.Tool, len(body), max)
		isError = true
	}
	size := len(body)
	return func() recordTry {
		err := r.cfg.idem.Complete(context.WithoutCancel(ctx), k.key, k.fp, body, isError, r.ans.now(), r.cfg.idemTTL)
		// A store bounded below the result keeps the marker instead.
		var tl *idempotency.RecordTooLargeError
		if err != nil && errors.As(err, &tl) && !isError {
			body, isError = tooLargeToReplay(k.key.Tool, size, tl.Limit), true
			return recordTry{err: err, free: true} // refusing a size is an answer, not a failed write
		}
		return recordTry{err: err}
	}
}

// release gives up the claim so that a retry executes.
func (k *claim) release(ctx context.Context) {
	r := k.r
	if err := r.cfg.idem.Release(context.WithoutCancel(ctx), k.key, k.fp); err != nil {
		r.cfg.logger.WarnContext(ctx, "mcpwrite: idempotency release failed; a retry with this key waits for the lease to end",
			"tool", k.key.Tool, "tenant", k.key.Tenant, "client_request_id", k.id, "lease", r.cfg.idemLease.String(), "error", err)
	}
}

// unsaved words a keyed call whose outcome could not be stored under its
// key: a retry with the key may run it again once the claim's lease ends.
// A write that was applied is said to be applied; a business error
// (isError: nothing written) is said to be one, and its claim is released
// so that a retry runs the call again.
func (k *claim) unsaved(c *call, isError bool) unsaved {
	name, kn, lease := c.name(), c.wt.names.clientRequestID, k.r.cfg.idemLease
	e := &impl.ErrorEntry{
		Field:       kn,
		Message:     fmt.Sprintf("%s ran, but its outcome could not be recorded under %s %q: a retry with this key after %s may run it again", name, kn, k.id, lease),
		Details:     map[string]any{"applied": true},
		Suggestions: &impl.Suggestions{Hint: "The write was applied; details.result is its result. Check the current state before retrying."},
	}
	if isError {
		e.Message = fmt.Sprintf("%s answered an error and wrote nothing, but that outcome could not be recorded under client_request_id %q, so a retry with this key runs the call again",
			name, k.id)
		e.Details["applied"] = false
		e.Suggestions.Hint = "Nothing was written; details.result is the error the call answered. Fix the request, or retry with the same client_request_id and arguments."
	}
	return unsaved{entry: e, tool: name, release: isError,
		log:   "mcpwrite: idempotency outcome not recorded; a retry with this key may execute the call again",
		attrs: []any{"tool", name, "tenant", k.key.Tenant, "client_request_id", k.id, "applied", !isError, "attempts", recordAttempts, "lease", lease.String()}}
}
