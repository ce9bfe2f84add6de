package pgdomain

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
)

// itemTTL is how long an item's key replays: the domain layer's 7 days
// (seed §7.2).
const itemTTL = 7 * 24 * time.Hour

// itemLease is how long a claimed item key stays "in progress" when its
// transaction's session dies without rolling back.
const itemLease = 30 * time.Second

// CreateElements writes a batch item by item, each in a transaction of its
// own: the item's key claimed, its rows written, its outbox row (a
// createElements fact with the item's createElement request and answer)
// and its key's outcome, committed together. An item the domain refuses
// rolls back alone (its key stays free for a corrected retry). A store
// failure stops the batch: the items committed before it replay on retry.
//
// The call's own key, when the runtime leaves its claim to the handler,
// is claimed first in a transaction of its own and completed with the
// batch's answer at the end, so a batch that crashed half-way is run again
// by its retry, which replays the items already written.
func (r *Repository) CreateElements(ctx context.Context, req *archimatev1.CreateElementsRequest) (*archimatev1.CreateElementsResponse, error) {
	out, keyed := runtime.OutcomeFrom(ctx)
	keyed = keyed && out.ProposalID == ""
	if keyed && out.ClaimInTx {
		res, err := r.idem.Claim(ctx, out.Key, out.Fingerprint, out.Now, out.Lease)
		if err != nil {
			return nil, r.storeError(ctx, req, err)
		}
		if !res.Claimed {
			return nil, &idempotency.HeldError{Record: res.Existing}
		}
	}
	results := make([]*archimatev1.ElementResult, 0, len(req.GetElements()))
	for i := range req.GetElements() {
		res, err := r.createItem(ctx, req, i)
		if err != nil {
			if keyed && out.ClaimInTx {
				_ = r.idem.Release(context.WithoutCancel(ctx), out.Key, out.Fingerprint)
			}
			return nil, err
		}
		results = append(results, res)
	}
	resp := domain.Tally(results)
	if keyed {
		body, err := out.Render(resp)
		if err != nil {
			return nil, err
		}
		if err := r.idem.Complete(ctx, out.Key, out.Fingerprint, body, false, out.Now, out.TTL); err != nil {
			return nil, r.storeError(ctx, req, err)
		}
		out.Recorded()
	}
	return resp, nil
}

// itemKey is the stored key of item i, false when the item has none.
func itemKey(req *archimatev1.CreateElementsRequest, i int) (idempotency.Key, bool) {
	key := req.GetElements()[i].GetClientRequestId()
	if key == "" {
		return idempotency.Key{}, false
	}
	return domain.ItemKey(req.GetMeta(), key), true
}

// createItem writes item i in its own transaction, or replays it. An item
// that a concurrent write beat to a unique row (its name, its key) is tried
// once more, so it is answered as the domain answers it then (the name
// taken: DUPLICATE_NAME with the existing element; the key written: a
// replay).
func (r *Repository) createItem(ctx context.Context, req *archimatev1.CreateElementsRequest, i int) (*archimatev1.ElementResult, error) {
	res, err := r.createItemTx(ctx, req, i)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" {
		res, err = r.createItemTx(ctx, req, i)
	}
	if errors.As(err, &pe) {
		err = r.storeError(ctx, domain.ItemRequest(req, i), err)
		if failed, ok := domain.Failed(req, i, err); ok {
			return failed, nil
		}
	}
	return res, err
}

// createItemTx is one attempt of createItem; a database error of the
// write comes back as it is.
func (r *Repository) createItemTx(ctx context.Context, req *archimatev1.CreateElementsRequest, i int) (*archimatev1.ElementResult, error) {
	one := domain.ItemRequest(req, i)
	tenant := req.GetMeta().GetTenantId()
	fp := domain.ItemFingerprint(req, i)
	now := domain.ItemTime(req)
	tx, err := r.pool.Begin(ctx)
	if err != nil {
		return nil, unavailable(err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	key, keyed := itemKey(req, i)
	if keyed {
		res, err := r.idem.WithTx(tx).Claim(ctx, key, fp, now, itemLease)
		if err != nil {
			return nil, r.storeError(ctx, req, err)
		}
		if !res.Claimed {
			return replayItem(req, i, fp, res.Existing)
		}
	}
	before, err := r.load(ctx, tx, tenant, footprintOf(one, false))
	if err != nil {
		return nil, r.storeError(ctx, req, err)
	}
	mem := domain.NewWorkingCopy()
	mem.Load(tenant, before)
	apply := func(m *domain.Repository) (*archimatev1.CreateElementResponse, error) {
		return m.CreateElement(ctx, one)
	}
	resp, err := apply(mem)
	if err != nil {
		if res, ok := domain.Failed(req, i, explain(ctx, r, tx, tenant, before, apply, err)); ok {
			return res, nil
		}
		return nil, err
	}
	res := domain.Written(req, i, resp.GetElement())
	b := &pgx.Batch{}
	r.queueChanges(b, tenant, before, mem.Rows(tenant))
	reqJSON, err := runtime.MarshalRecordJSON(one)
	if err != nil {
		return nil, notText(req, err)
	}
	respJSON, err := runtime.MarshalRecordJSON(resp)
	if err != nil {
		return nil, notText(req, err)
	}
	b.Queue(r.sql.insertOutbox, tenant, "createElements", reqJSON, respJSON)
	if keyed {
		body, err := runtime.MarshalRecordJSON(res)
		if err != nil {
			return nil, notText(req, err)
		}
		if err := r.idem.WithTx(tx).QueueComplete(b, key, fp, body, false, now, itemTTL); err != nil {
			return nil, err
		}
	}
	err = tx.SendBatch(ctx, b).Close()
	if err == nil {
		err = tx.Commit(ctx)
	}
	if err != nil {
		// A value the store refuses, or a row a concurrent write took
		// first: createItem answers it.
		_ = tx.Rollback(context.WithoutCancel(ctx))
		return nil, err
	}
	return res, nil
}

// replayItem answers item i from the record that holds its key.
func replayItem(req *archimatev1.CreateElementsRequest, i int, fp string, rec *idempotency.Record) (*archimatev1.ElementResult, error) {
	if rec == nil {
		return nil, errors.New("pgdomain: item key held without a record")
	}
	var first *archimatev1.ElementResult
	if rec.State == idempotency.StateCompleted {
		first = &archimatev1.ElementResult{}
		if err := protojson.Unmarshal(rec.Response, first); err != nil {
			return nil, err
		}
	}
	return domain.Replayed(req, i, fp, rec.Fingerprint, first, rec.CreatedAt), nil
}

// rememberItems gives mem the batch's item keys already written, so a
// validation of a retried batch answers as the write would: live as of
// the call's time (domain.ItemTime, the server's clock), as the write
// reads them, not the machine's.
func (r *Repository) rememberItems(ctx context.Context, mem *domain.Repository, req *archimatev1.CreateElementsRequest) error {
	for i, it := range req.GetElements() {
		key, keyed := itemKey(req, i)
		if !keyed {
			continue
		}
		rec, err := r.idem.Get(ctx, key, domain.ItemTime(req))
		if errors.Is(err, idempotency.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		var first *archimatev1.ElementResult
		if rec.State == idempotency.StateCompleted {
			first = &archimatev1.ElementResult{}
			if err := protojson.Unmarshal(rec.Response, first); err != nil {
				return err
			}
		}
		mem.RememberItem(domain.ItemScope(req.GetMeta(), it.GetClientRequestId()), rec.Fingerprint, first, rec.CreatedAt)
	}
	return nil
}
