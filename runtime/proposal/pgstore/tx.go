package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
)

// TxStore is a Store's apply bookkeeping inside a caller's transaction, so
// that a domain write and the proposal's outcome commit together or not at
// all (runtime.Outcome with a ProposalID).
type TxStore struct {
	s  *Store
	tx pgx.Tx
}

// WithTx returns the store's operations inside tx.
func (s *Store) WithTx(tx pgx.Tx) *TxStore { return &TxStore{s: s, tx: tx} }

// FinishApply records the result of the apply whose fencing token is
// token (the ApplyStartedAt BeginApply returned) and moves the proposal to
// StateApplied, in the transaction. When another apply took the proposal
// over (a newer token), or it is no longer applying, it answers
// proposal.ErrNotApplying and the caller must roll back: two applies of
// one proposal never both commit. The row stays locked until the
// transaction ends, so a concurrent apply waits for the outcome.
func (t *TxStore) FinishApply(ctx context.Context, id string, token time.Time, result []byte, isError bool) error {
	s := t.s
	if s.err != nil {
		return s.err
	}
	if !proposal.ValidText(id) {
		return proposal.ErrNotFound
	}
	if len(result) == 0 {
		result = nil
	}
	tag, err := t.tx.Exec(ctx, `UPDATE `+s.table+` SET state = 3, result = $2::bytea, result_is_error = $3, applied_at = now()
		WHERE id = $1 AND state = 2 AND apply_started_at = $4`, id, result, isError, proposal.NormalizeTime(token))
	if err != nil {
		return fmt.Errorf("pgstore: finish apply: %w", err)
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	var state int16
	if err := t.tx.QueryRow(ctx, s.qState, id).Scan(&state); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return proposal.ErrNotFound
		}
		return fmt.Errorf("pgstore: finish apply: %w", err)
	}
	return proposal.ErrNotApplying
}
