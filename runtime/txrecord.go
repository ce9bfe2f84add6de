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
type Outcome struct {
	Key         idempotency.Key
	Fingerprint string
	Now         time.Time
	TTL         time.Duration

	render   func(resp proto.Message) ([]byte, error)
	body     []byte
	recorded bool
}

type outcomeKey struct{}

// OutcomeFrom returns the outcome of the keyed write ctx belongs to; false
// when the call has no client_request_id (nothing to record) or runs
// outside the runtime.
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
