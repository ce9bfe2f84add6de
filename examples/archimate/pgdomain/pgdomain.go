// Package pgdomain keeps the reference example's architecture repository in
// PostgreSQL, as rows: elements, their properties and relationships
// (migrations/). A write runs in one transaction that claims its
// idempotency key (when the runtime leaves the claim to it), reads and
// locks only the rows the domain's rules look at (the write's footprint),
// applies those rules (package domain) to them, writes the rows that
// changed, appends an outbox row (the fact other systems consume) and
// records the idempotency outcome (runtime.OutcomeFrom with pgstore's
// TxStore) or, for a proposal's apply, the proposal's outcome (checked
// against the state the user confirmed under the write's locks, fenced by
// the apply's token: the proposal store's TxStore): claim, write, fact
// and outcome commit together or not at all. Writes to different elements
// of one tenant do not wait for each other.
package pgdomain

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
)

var _ archimatev1mcpwrite.ArchitectureServiceHandler = (*Repository)(nil)

type metaRequest interface {
	proto.Message
	GetMeta() *archimatev1.MessageMeta
}

// write applies one write in one transaction. A keyed create whose rows
// cannot exist unless it fails (footprint.fresh) first runs without
// reading them; when the domain or the store refuses it (its id or its
// name taken: a unique index; refusesFresh), that transaction is rolled
// back and the write runs again reading its footprint, so that it is
// answered as every other write is.
func write[Resp proto.Message](ctx context.Context, r *Repository, tool string, req metaRequest, apply func(*domain.Repository) (Resp, error)) (Resp, error) {
	resp, err := writeOnce(ctx, r, tool, req, apply, true)
	if errors.Is(err, errNotFresh) {
		return writeOnce(ctx, r, tool, req, apply, false)
	}
	return resp, err
}

// errNotFresh is a keyed create that ran without reading its footprint
// (fresh) and was refused: it runs again, reading it.
var errNotFresh = errors.New("pgdomain: the create's rows exist")

// writeOnce is write in one transaction; fresh lets a keyed create whose
// footprint is fresh skip its read (errNotFresh when it is refused).
func writeOnce[Resp proto.Message](ctx context.Context, r *Repository, tool string, req metaRequest, apply func(*domain.Repository) (Resp, error), fresh bool) (Resp, error) {
	var zero Resp
	tenant := req.GetMeta().GetTenantId()
	out, keyed := runtime.OutcomeFrom(ctx)
	applying := keyed && out.ProposalID != "" && r.proposals != nil
	keyed = keyed && out.ProposalID == ""
	tx, err := r.begin(ctx)
	if err != nil {
		return zero, unavailable(err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	fp := footprintOf(req, applying && out.StateDigest != "")
	claim := keyed && out.ClaimInTx
	fresh = fresh && claim && fp.fresh && r.sql.reserveLock != ""
	before, err := r.claimAndLoad(ctx, tx, tenant, fp, claim, fresh, out)
	if err != nil {
		var held *idempotency.HeldError
		if errors.As(err, &held) {
			return zero, err
		}
		return zero, r.storeError(ctx, req, err)
	}
	mem := domain.NewWorkingCopy()
	mem.Load(tenant, before)
	if applying && out.StateDigest != "" {
		// The state the user confirmed, checked under the lock this write
		// holds until it commits.
		now, ok, err := mem.StatePreview(ctx, tool, req)
		if err != nil {
			return zero, err
		}
		if !ok || now.Digest != out.StateDigest {
			return zero, proposal.ErrStale
		}
	}
	resp, err := apply(mem)
	if err != nil {
		if fresh {
			return zero, errNotFresh
		}
		return zero, explain(ctx, r, tx, tenant, before, apply, err)
	}
	b := &pgx.Batch{}
	unread := fresh && !fp.reads()
	if unread {
		b.Queue(r.sql.reserveLock, r.idem.ReserveLockArgs(out.Key)...)
	}
	// mem is dropped after this: its own rows, not copies.
	r.queueChanges(b, tenant, before, mem.TakeRows(tenant))
	reqJSON, err := runtime.MarshalRecordJSON(req)
	if err != nil {
		return zero, notText(req, err)
	}
	respJSON, err := runtime.MarshalRecordJSON(resp)
	if err != nil {
		return zero, notText(req, err)
	}
	spare := 0
	if keyed {
		spare = completeArgs
	}
	stmt, outbox := r.withLastChange(b, tenant, tool, reqJSON, respJSON, spare)
	if keyed {
		// The outcome, written once and completed, is one statement with
		// the outbox row, in the same round trip as the rows.
		body, err := out.Render(resp)
		if err != nil {
			return zero, err
		}
		complete := r.idem.WithTx(tx).QueueCompleteWith
		if unread {
			// The key's record was not read: the outcome is written only
			// where no live record holds the key (else ErrClaimLost, and
			// the write runs again reading it).
			complete = r.idem.WithTx(tx).QueueCompleteUnread
		}
		if err := complete(b, stmt, outbox, out.Key, out.Fingerprint, body, false, out.Now, out.TTL); err != nil {
			return zero, err
		}
	} else {
		b.Queue(stmt, outbox...)
	}
	if err := r.finish(ctx, tx, b, req, resp, out, applying, fresh, unread); err != nil {
		return zero, err
	}
	r.fault("after-commit")
	if applying || keyed {
		out.Recorded()
	}
	return resp, nil
}

// completeArgs is how many arguments QueueCompleteWith adds to a keyed
// write's last statement (the key, fingerprint, outcome and times): the
// statement's arguments are made with room for them, so that they are
// one slice, made once.
const completeArgs = 8

// withLastChange takes the last statement queued on b, when it changes rows
// (sqlText.withOutbox), off b, and answers the statement that makes it
// with the outbox row of a write (tenant, tool, request, response) and its
// arguments: a write's rows and its outbox row take one statement fewer.
// With nothing to take, it answers insertOutbox and the row's arguments.
// The arguments have room for spare more.
func (r *Repository) withLastChange(b *pgx.Batch, tenant, tool string, req, resp []byte, spare int) (string, []any) {
	const outboxArgs = 4
	n := len(b.QueuedQueries)
	var last *pgx.QueuedQuery
	stmt := r.sql.insertOutbox
	if n > 0 {
		q := b.QueuedQueries[n-1]
		if s, ok := r.sql.withOutbox[q.SQL]; ok && q.Fn == nil {
			last, stmt = q, s
			b.QueuedQueries = b.QueuedQueries[:n-1]
		}
	}
	size := outboxArgs + spare
	if last != nil {
		size += len(last.Arguments)
	}
	args := append(make([]any, 0, size), tenant, tool, req, resp)
	if last != nil {
		args = append(args, last.Arguments...)
	}
	return stmt, args
}

// finish sends the write's rows b and commits: in one round trip, or, for
// a proposal's apply, with the apply's outcome recorded before the commit.
// A fresh create refused by the store (its id or its name taken: a unique
// index of its element; refusesFresh; or, unread, its key held by a live
// record) is errNotFresh, or, unread, the record that holds its key
// (heldOr).
func (r *Repository) finish(ctx context.Context, tx *pipeTx, b *pgx.Batch, req, resp proto.Message, out *runtime.Outcome, applying, fresh, unread bool) error {
	if !applying {
		r.fault("inside-tx")
		if err := tx.sendAndCommit(ctx, b); err != nil {
			if fresh && (refusesFresh(err) || errors.Is(err, idempotency.ErrClaimLost)) {
				if unread {
					// Refused by its key's live record, or by a unique
					// index of its element, which a replay of the create
					// meets too: the record that holds the key is answered
					// as the reservation would have answered it; with none,
					// the write runs again reading its footprint.
					return r.heldOr(ctx, tx, out, errNotFresh)
				}
				return errNotFresh
			}
			return r.storeError(ctx, req, err)
		}
		return nil
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return r.storeError(ctx, req, err)
	}
	if err := r.recordApply(ctx, tx, req, resp, out); err != nil {
		return err
	}
	r.fault("inside-tx")
	if err := tx.Commit(ctx); err != nil {
		return r.storeError(ctx, req, err)
	}
	return nil
}

// claimAndLoad claims the call's key in tx when claim is set, then reads
// and locks the footprint's rows. The claim is a reservation (the key's
// lock, then its live record; the outcome is written once, completed, with
// the rows): BEGIN, the elements' read, which takes the key's lock before
// it reads a row (idempg.Store.ReserveLock), and the read of the key's
// record (idempg.TxStore.QueueReserved, a statement after the lock was
// granted, so it sees what a concurrent call of the key committed) go in
// one round trip. With fresh set (a keyed create whose own id and name
// are not looked up: footprint.fresh) only its other ids are read (its
// parent, by id alone), or, with none, nothing is sent: the key's lock
// goes out with the write (writeOnce, unread) and the rows answered are
// none. A claim that needs more (a per-tenant quota) is made on its own
// first, and the rows read after it. A key held by another call is an
// *idempotency.HeldError.
func (r *Repository) claimAndLoad(ctx context.Context, tx pgx.Tx, tenant string, fp footprint, claim, fresh bool, out *runtime.Outcome) (domain.Rows, error) {
	if !claim {
		r.fault("before-read")
		before, err := r.load(ctx, tx, tenant, fp)
		r.fault("locked")
		return before, err
	}
	r.fault("before-claim")
	if fresh && !fp.reads() {
		// The key's lock goes out with the write (unread): nothing is
		// read, so the points up to the lock come before anything is sent.
		r.fault("before-read")
		r.fault("after-claim")
		r.fault("locked")
		return domain.Rows{Born: map[string]uint64{}}, nil
	}
	var query string
	var args []any
	if fresh {
		query, args = r.sql.readsReserving[readKey{0, fp.lock}], elementsArgsOf(tenant, footprint{ids: fp.ids[1:]}, 0)
	} else {
		var ok bool
		if query, ok = r.sql.readsReserving[readKey{shapeOf(fp), fp.lock}]; !ok {
			return r.claimThenLoad(ctx, tx, tenant, fp, out, true)
		}
		_, args = r.shapedRead(tenant, fp)
	}
	b := &pgx.Batch{}
	b.Queue(query, append(args, r.idem.ReserveLockArgs(out.Key)...)...)
	pending := r.idem.WithTx(tx).QueueReserved(b, out.Key, out.Now)
	r.fault("before-read")
	br := tx.SendBatch(ctx, b)
	var before domain.Rows
	rows, err := br.Query()
	if err == nil {
		before, err = scanElements(rows)
	}
	if err != nil {
		_ = br.Close()
		return domain.Rows{}, r.heldOr(ctx, tx, out, err)
	}
	res, _, err := pending.Read(br)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return domain.Rows{}, err
	}
	if !res.Claimed {
		return domain.Rows{}, &idempotency.HeldError{Record: res.Existing}
	}
	r.fault("after-claim")
	before, err = r.loadRelationships(ctx, tx, tenant, fp, before)
	r.fault("locked")
	return before, err
}

// heldOr answers err, the failure of a keyed write's statement sent before
// the key's record was read: its first read (which takes the key's lock;
// a request the store refuses, a NUL in a name, fails there every time) or
// the refused write of a create that reads nothing (unread). When a live
// record holds the key it is answered, as the reservation would have
// answered it (a replay, a reused key, a call in flight), else err. The
// transaction is rolled back first, its connection released, and the
// record read on the pool.
func (r *Repository) heldOr(ctx context.Context, tx pgx.Tx, out *runtime.Outcome, err error) error {
	_ = tx.Rollback(context.WithoutCancel(ctx))
	if rec, gerr := r.idem.Get(ctx, out.Key, out.Now); gerr == nil {
		return &idempotency.HeldError{Record: rec}
	}
	return err
}

// claimThenLoad claims the call's key in tx with a statement of its own,
// then reads and locks the footprint's rows (faultRead: calling Fault at
// "before-read" first, unless it was called already).
func (r *Repository) claimThenLoad(ctx context.Context, tx pgx.Tx, tenant string, fp footprint, out *runtime.Outcome, faultRead bool) (domain.Rows, error) {
	res, err := r.idem.WithTx(tx).Claim(ctx, out.Key, out.Fingerprint, out.Now, out.Lease)
	if err != nil {
		return domain.Rows{}, err
	}
	if !res.Claimed {
		return domain.Rows{}, &idempotency.HeldError{Record: res.Existing}
	}
	r.fault("after-claim")
	if faultRead {
		r.fault("before-read")
	}
	before, err := r.load(ctx, tx, tenant, fp)
	r.fault("locked")
	return before, err
}

// recordApply records the apply's outcome on the proposal, fenced by its
// token.
func (r *Repository) recordApply(ctx context.Context, tx pgx.Tx, req, resp proto.Message, out *runtime.Outcome) error {
	body, err := out.Render(resp)
	if err != nil {
		return err
	}
	if err := r.proposals.WithTx(tx).FinishApply(ctx, out.ProposalID, out.ApplyToken, body, false); err != nil {
		if errors.Is(err, proposal.ErrNotApplying) {
			return err // another apply took this one over: roll back
		}
		return r.storeError(ctx, req, err)
	}
	return nil
}

// explain is the domain's answer err to a write, as the in-memory domain
// gives it: a missing element is answered with the elements of the whole
// tenant whose name or id is like what was sent, so that answer is
// recomputed with every element's id, name and type (only then is the
// tenant read beyond the write's footprint).
func explain[Resp any](ctx context.Context, r *Repository, q querier, tenant string, before domain.Rows, apply func(*domain.Repository) (Resp, error), err error) error {
	var e *runtime.ErrorEntry
	if !errors.As(err, &e) || e.Code != "ELEMENT_NOT_FOUND" {
		return err
	}
	all, lerr := r.withAllElements(ctx, q, tenant, before)
	if lerr != nil {
		return unavailable(lerr)
	}
	mem := domain.NewWorkingCopy()
	mem.Load(tenant, all)
	if _, err2 := apply(mem); err2 != nil {
		return err2
	}
	return err
}

func (r *Repository) fault(point string) {
	if r.Fault != nil {
		r.Fault(point)
	}
}

// read runs a read-only domain call on the committed rows req reads.
func read[T any](ctx context.Context, r *Repository, tenant string, req proto.Message, f func(*domain.Repository) (T, error)) (T, error) {
	return readRows(ctx, r, tenant, req, footprintOf(req, true), f)
}

// readRows runs f on the committed rows of footprint fp, without locks.
func readRows[T any](ctx context.Context, r *Repository, tenant string, req proto.Message, fp footprint, f func(*domain.Repository) (T, error)) (T, error) {
	var zero T
	fp.lock = ""
	rows, err := r.load(ctx, r.pool, tenant, fp)
	if err != nil {
		return zero, r.storeError(ctx, req, err)
	}
	mem := domain.NewWorkingCopy()
	mem.Load(tenant, rows)
	v, err := f(mem)
	if err != nil {
		return zero, explain(ctx, r, r.pool, tenant, rows, func(m *domain.Repository) (T, error) { return f(m) }, err)
	}
	return v, nil
}

func tenantOf(m proto.Message) string {
	if mr, ok := m.(metaRequest); ok {
		return mr.GetMeta().GetTenantId()
	}
	return ""
}

func collectStrings(rows pgx.Rows) ([]string, error) { return pgx.CollectRows(rows, pgx.RowTo[string]) }
