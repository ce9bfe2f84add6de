package runtime

import (
	"context"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
)

// Outcome lets a handler record its call's idempotency outcome inside its
// own database transaction, so that the domain write and the key commit
// together: a crash after the commit replays the committed answer, a crash
// before it leaves nothing to replay and the retry executes once. The
// runtime puts it in the handler's context of every keyed write it claimed;
// OutcomeFrom finds it.
//
// In the transaction, after the write: body, err := o.Render(resp); then
// store.WithTx(tx).Complete(ctx, o.Key, o.Fingerprint, body, false, o.Now,
// o.TTL) (pgstore); commit; then o.Recorded(). The runtime then answers with
// exactly body and does not record the outcome again.
//
// With IdempotencyOptions.ClaimInHandler the runtime does not claim the key
// of a write that needs no confirmation: ClaimInTx is then true and the
// handler claims it first, in its transaction (store.WithTx(tx).Claim(ctx,
// o.Key, o.Fingerprint, o.Now, o.Lease)); when the key is held it rolls
// back and returns &idempotency.HeldError{Record: res.Existing}, which the
// runtime answers (a replay, a reused key). Claim, write, outcome and
// commit are then one transaction.
//
// apply_proposal runs the handler with an Outcome whose ProposalID is set
// (and no Key): the handler applies the proposal exactly once by checking,
// under the lock its write takes, that the entity still has StateDigest
// (else it returns an error wrapping proposal.ErrStale, and the runtime
// answers PROPOSAL_STALE), and recording the rendered result on the
// proposal in its transaction (proposal pgstore's
// WithTx(tx).FinishApply(ctx, o.ProposalID, o.ApplyToken, body, false)).
// An apply that another apply took over has a stale ApplyToken: its
// FinishApply answers proposal.ErrNotApplying and it rolls back, returning
// that error; so two applies of one proposal never both commit.
type Outcome struct {
	Key         idempotency.Key
	Fingerprint string
	Now         time.Time
	TTL         time.Duration
	// ClaimInTx: the handler claims Key in its transaction, for Lease.
	ClaimInTx bool
	Lease     time.Duration
	// ProposalID, ApplyToken (when this apply began: its fencing token)
	// and StateDigest (the state the user confirmed; empty without state
	// previews) are set for a proposal's apply.
	ProposalID  string
	ApplyToken  time.Time
	StateDigest string

	render   func(resp proto.Message) ([]byte, error)
	body     []byte
	recorded bool
}

type outcomeKey struct{}

// OutcomeFrom returns the outcome of the keyed write or the proposal apply
// ctx belongs to; false when the call has no client_request_id and applies
// no proposal (nothing to record) or runs outside the runtime. An apply's
// Outcome has a ProposalID and no Key: its outcome is recorded on the
// proposal, never under a key.
func OutcomeFrom(ctx context.Context) (*Outcome, bool) {
	o, ok := ctx.Value(outcomeKey{}).(*Outcome)
	return o, ok && o != nil
}

// Render returns the result the call answers with resp: what to record.
func (o *Outcome) Render(resp proto.Message) ([]byte, error) {
	b, err := o.render(resp)
	if err != nil {
		return nil, err
	}
	o.body = b
	return b, nil
}

// Recorded tells the runtime the rendered result was committed with the
// write, so it answers with it and records nothing itself.
func (o *Outcome) Recorded() { o.recorded = o.body != nil }
