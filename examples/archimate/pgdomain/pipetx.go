package pgdomain

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pipeTx is a write's transaction on one pooled connection whose BEGIN
// goes out in the same round trip as its first statements, and whose
// COMMIT can go out with its last ones (sendAndCommit): a write of two
// batches is two round trips instead of four. (pgx's Batch.BeginTx folds
// the BEGIN, but its transaction has no way to fold the COMMIT.) It is a
// pgx.Tx so that the stores join it like any other transaction; it has no
// large objects and no nested transactions.
type pipeTx struct {
	conn   *pgxpool.Conn
	begun  bool // BEGIN was sent
	closed bool // committed or rolled back; the connection released
}

var _ pgx.Tx = (*pipeTx)(nil)

var errNestedTx = errors.New("pgdomain: a write's transaction has no nested transactions")

// begin acquires a connection for a transaction; nothing is sent yet.
func (r *Repository) begin(ctx context.Context) (*pipeTx, error) {
	c, err := r.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	return &pipeTx{conn: c}, nil
}

// ensureBegun sends BEGIN on its own when a statement goes out alone first.
func (t *pipeTx) ensureBegun(ctx context.Context) error {
	if t.closed {
		return pgx.ErrTxClosed
	}
	if t.begun {
		return nil
	}
	t.begun = true // ROLLBACK after a failed BEGIN is harmless
	_, err := t.conn.Exec(ctx, "begin")
	return err
}

// SendBatch sends b, preceded by BEGIN when nothing was sent yet.
func (t *pipeTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if t.closed {
		return errResults{pgx.ErrTxClosed}
	}
	if t.begun {
		return t.conn.SendBatch(ctx, b)
	}
	t.begun = true
	withBegin := &pgx.Batch{QueuedQueries: make([]*pgx.QueuedQuery, 0, len(b.QueuedQueries)+1)}
	withBegin.Queue("begin")
	withBegin.QueuedQueries = append(withBegin.QueuedQueries, b.QueuedQueries...)
	br := t.conn.SendBatch(ctx, withBegin)
	if _, err := br.Exec(); err != nil {
		_ = br.Close()
		return errResults{err}
	}
	return br
}

// sendAndCommit sends b and COMMIT in one round trip. An error of b's
// statements leaves the transaction aborted (COMMIT does not run after
// it); Rollback ends it.
func (t *pipeTx) sendAndCommit(ctx context.Context, b *pgx.Batch) error {
	b.Queue("commit").Exec(func(ct pgconn.CommandTag) error {
		if ct.String() != "COMMIT" {
			return pgx.ErrTxCommitRollback
		}
		return nil
	})
	if err := t.SendBatch(ctx, b).Close(); err != nil {
		return err
	}
	t.release()
	return nil
}

func (t *pipeTx) release() {
	t.closed = true
	t.conn.Release()
}

// Commit implements pgx.Tx.
func (t *pipeTx) Commit(ctx context.Context) error {
	if t.closed {
		return pgx.ErrTxClosed
	}
	if !t.begun {
		t.release()
		return nil
	}
	ct, err := t.conn.Exec(ctx, "commit")
	t.release() // a connection left in a transaction is closed, not reused
	if err != nil {
		return err
	}
	if ct.String() != "COMMIT" {
		return pgx.ErrTxCommitRollback
	}
	return nil
}

// Rollback implements pgx.Tx.
func (t *pipeTx) Rollback(ctx context.Context) error {
	if t.closed {
		return pgx.ErrTxClosed
	}
	var err error
	if t.begun {
		_, err = t.conn.Exec(ctx, "rollback")
	}
	t.release()
	return err
}

// Begin implements pgx.Tx; a write has no nested transactions.
func (t *pipeTx) Begin(context.Context) (pgx.Tx, error) { return nil, errNestedTx }

// CopyFrom implements pgx.Tx.
func (t *pipeTx) CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error) {
	if err := t.ensureBegun(ctx); err != nil {
		return 0, err
	}
	return t.conn.CopyFrom(ctx, table, cols, src)
}

// LargeObjects implements pgx.Tx: a write uses none (the zero value).
func (t *pipeTx) LargeObjects() pgx.LargeObjects { return pgx.LargeObjects{} }

// Prepare implements pgx.Tx.
func (t *pipeTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	if t.closed {
		return nil, pgx.ErrTxClosed
	}
	return t.conn.Conn().Prepare(ctx, name, sql)
}

// Exec implements pgx.Tx.
func (t *pipeTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if err := t.ensureBegun(ctx); err != nil {
		return pgconn.CommandTag{}, err
	}
	return t.conn.Exec(ctx, sql, args...)
}

// Query implements pgx.Tx.
func (t *pipeTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if err := t.ensureBegun(ctx); err != nil {
		return nil, err
	}
	return t.conn.Query(ctx, sql, args...)
}

// QueryRow implements pgx.Tx.
func (t *pipeTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if err := t.ensureBegun(ctx); err != nil {
		return errRow{err}
	}
	return t.conn.QueryRow(ctx, sql, args...)
}

// Conn implements pgx.Tx.
func (t *pipeTx) Conn() *pgx.Conn { return t.conn.Conn() }

// errResults is a batch that failed before it was read.
type errResults struct{ err error }

func (e errResults) Exec() (pgconn.CommandTag, error) { return pgconn.CommandTag{}, e.err }
func (e errResults) Query() (pgx.Rows, error)         { return nil, e.err }
func (e errResults) QueryRow() pgx.Row                { return errRow(e) }
func (e errResults) Close() error                     { return e.err }
func (e errResults) Tx() pgx.Tx                       { return nil }

type errRow struct{ err error }

func (e errRow) Scan(...any) error { return e.err }
