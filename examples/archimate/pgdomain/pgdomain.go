// Package pgdomain keeps the reference example's architecture repository in
// PostgreSQL. Each write runs in one transaction that locks the tenant's
// state, applies the domain's rules (package domain), stores the new state,
// appends an outbox row (the fact other systems consume) and, for a keyed
// call, records the idempotency outcome (runtime.OutcomeFrom with
// pgstore's TxStore): the write, its fact and its key commit together or
// not at all. Writes of one tenant are serialised; tenants do not block
// each other.
package pgdomain

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	idempg "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/pgstore"
)

// Repository implements archimatev1mcpwrite.ArchitectureServiceHandler on
// PostgreSQL.
type Repository struct {
	pool   *pgxpool.Pool
	idem   *idempg.Store
	prefix string
	// Fault, when set, is called at "inside-tx" (the write done, before the
	// commit) and "after-commit" (before the answer): crash tests kill the
	// process there.
	Fault func(point string)
}

var _ archimatev1mcpwrite.ArchitectureServiceHandler = (*Repository)(nil)

var prefixRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,40}$`)

// New returns a repository whose tables start with prefix ("archimate"
// gives archimate_state and archimate_outbox). idem must be the store the
// tools claim keys in, so outcomes recorded here are the ones they replay.
func New(pool *pgxpool.Pool, idem *idempg.Store, prefix string) (*Repository, error) {
	if !prefixRE.MatchString(prefix) {
		return nil, fmt.Errorf("pgdomain: invalid table prefix %q", prefix)
	}
	return &Repository{pool: pool, idem: idem, prefix: prefix}, nil
}

// Migrate creates the state and outbox tables; it is idempotent.
func (r *Repository) Migrate(ctx context.Context) error {
	_, err := r.pool.Exec(ctx, `
CREATE TABLE IF NOT EXISTS `+r.prefix+`_state (
    tenant  text   PRIMARY KEY,
    state   jsonb  NOT NULL,
    version bigint NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS `+r.prefix+`_outbox (
    id          bigserial   PRIMARY KEY,
    tenant      text        NOT NULL,
    tool        text        NOT NULL,
    request     jsonb       NOT NULL,
    response    jsonb       NOT NULL,
    occurred_at timestamptz NOT NULL DEFAULT now()
)`)
	if err != nil {
		return fmt.Errorf("pgdomain: migrate: %w", err)
	}
	return nil
}

type metaRequest interface {
	proto.Message
	GetMeta() *archimatev1.MessageMeta
}

// write applies one write in one transaction.
func write[Resp proto.Message](ctx context.Context, r *Repository, tool string, req metaRequest, apply func(*domain.Repository) (Resp, error)) (Resp, error) {
	var zero Resp
	tenant := req.GetMeta().GetTenantId()
	tx, err := r.pool.Begin(ctx)
	if err != nil {
		return zero, unavailable(err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if _, err := tx.Exec(ctx, `INSERT INTO `+r.prefix+`_state (tenant, state) VALUES ($1, '{}') ON CONFLICT DO NOTHING`, tenant); err != nil {
		return zero, unavailable(err)
	}
	var state []byte
	if err := tx.QueryRow(ctx, `SELECT state FROM `+r.prefix+`_state WHERE tenant = $1 FOR UPDATE`, tenant).Scan(&state); err != nil {
		return zero, unavailable(err)
	}
	mem := domain.New()
	if err := mem.Restore(tenant, state); err != nil {
		return zero, err
	}
	resp, err := apply(mem)
	if err != nil {
		return zero, err // the domain's answer; nothing was written
	}
	next, err := mem.Snapshot(tenant)
	if err != nil {
		return zero, err
	}
	if _, err := tx.Exec(ctx, `UPDATE `+r.prefix+`_state SET state = $2, version = version + 1 WHERE tenant = $1`, tenant, next); err != nil {
		return zero, unavailable(err)
	}
	reqJSON, _ := protojson.Marshal(req)
	respJSON, _ := protojson.Marshal(resp)
	if _, err := tx.Exec(ctx, `INSERT INTO `+r.prefix+`_outbox (tenant, tool, request, response) VALUES ($1, $2, $3, $4)`, tenant, tool, reqJSON, respJSON); err != nil {
		return zero, unavailable(err)
	}
	out, keyed := runtime.OutcomeFrom(ctx)
	if keyed {
		body, err := out.Render(resp)
		if err != nil {
			return zero, err
		}
		if err := r.idem.WithTx(tx).Complete(ctx, out.Key, out.Fingerprint, body, false, out.Now, out.TTL); err != nil {
			return zero, unavailable(err)
		}
	}
	r.fault("inside-tx")
	if err := tx.Commit(ctx); err != nil {
		return zero, unavailable(err)
	}
	r.fault("after-commit")
	if keyed {
		out.Recorded()
	}
	return resp, nil
}

func (r *Repository) fault(point string) {
	if r.Fault != nil {
		r.Fault(point)
	}
}

// read runs a read-only domain call on the tenant's committed state.
func read[T any](ctx context.Context, r *Repository, tenant string, f func(*domain.Repository) (T, error)) (T, error) {
	var zero T
	var state []byte
	err := r.pool.QueryRow(ctx, `SELECT state FROM `+r.prefix+`_state WHERE tenant = $1`, tenant).Scan(&state)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return zero, unavailable(err)
	}
	mem := domain.New()
	if err := mem.Restore(tenant, state); err != nil {
		return zero, err
	}
	return f(mem)
}

// unavailable is a database failure: logged with its cause, answered as
// UNAVAILABLE (the runtime releases the key, so a retry executes once).
func unavailable(err error) error {
	slog.Error("archimate: repository database failed", "error", err)
	return status.Error(codes.Unavailable, "the architecture repository is unavailable; retry with the same client_request_id")
}

func tenantOf(m proto.Message) string {
	if mr, ok := m.(metaRequest); ok {
		return mr.GetMeta().GetTenantId()
	}
	return ""
}

func (r *Repository) CreateElement(ctx context.Context, req *archimatev1.CreateElementRequest) (*archimatev1.CreateElementResponse, error) {
	return write(ctx, r, "createElement", req, func(m *domain.Repository) (*archimatev1.CreateElementResponse, error) {
		return m.CreateElement(ctx, req)
	})
}

func (r *Repository) CreateRelationship(ctx context.Context, req *archimatev1.CreateRelationshipRequest) (*archimatev1.CreateRelationshipResponse, error) {
	return write(ctx, r, "createRelationship", req, func(m *domain.Repository) (*archimatev1.CreateRelationshipResponse, error) {
		return m.CreateRelationship(ctx, req)
	})
}

func (r *Repository) UpdateElement(ctx context.Context, req *archimatev1.UpdateElementRequest) (*archimatev1.UpdateElementResponse, error) {
	return write(ctx, r, "updateElement", req, func(m *domain.Repository) (*archimatev1.UpdateElementResponse, error) {
		return m.UpdateElement(ctx, req)
	})
}

func (r *Repository) DeleteElement(ctx context.Context, req *archimatev1.DeleteElementRequest) (*archimatev1.DeleteElementResponse, error) {
	return write(ctx, r, "deleteElement", req, func(m *domain.Repository) (*archimatev1.DeleteElementResponse, error) {
		return m.DeleteElement(ctx, req)
	})
}

func (r *Repository) CreateCapability(ctx context.Context, req *archimatev1.CreateCapabilityRequest) (*archimatev1.CreateCapabilityResponse, error) {
	return write(ctx, r, "createCapability", req, func(m *domain.Repository) (*archimatev1.CreateCapabilityResponse, error) {
		return m.CreateCapability(ctx, req)
	})
}

func (r *Repository) CreateCapabilityStructure(ctx context.Context, req *archimatev1.CreateCapabilityStructureRequest) (*archimatev1.CreateCapabilityStructureResponse, error) {
	return write(ctx, r, "createCapabilityStructure", req, func(m *domain.Repository) (*archimatev1.CreateCapabilityStructureResponse, error) {
		return m.CreateCapabilityStructure(ctx, req)
	})
}

func (r *Repository) AddComponentToCapability(ctx context.Context, req *archimatev1.AddComponentToCapabilityRequest) (*archimatev1.AddComponentToCapabilityResponse, error) {
	return write(ctx, r, "addComponentToCapability", req, func(m *domain.Repository) (*archimatev1.AddComponentToCapabilityResponse, error) {
		return m.AddComponentToCapability(ctx, req)
	})
}

func (r *Repository) ResolveActiveModel(ctx context.Context, in proto.Message) (string, error) {
	return domain.New().ResolveActiveModel(ctx, in)
}

func (r *Repository) ResolveCurrentVersion(ctx context.Context, in proto.Message) (int32, error) {
	return read(ctx, r, tenantOf(in), func(m *domain.Repository) (int32, error) { return m.ResolveCurrentVersion(ctx, in) })
}

func (r *Repository) ResolveSourceElementType(ctx context.Context, in proto.Message) (archimatev1.ElementType, error) {
	return read(ctx, r, tenantOf(in), func(m *domain.Repository) (archimatev1.ElementType, error) {
		return m.ResolveSourceElementType(ctx, in)
	})
}

func (r *Repository) ResolveTargetElementType(ctx context.Context, in proto.Message) (archimatev1.ElementType, error) {
	return read(ctx, r, tenantOf(in), func(m *domain.Repository) (archimatev1.ElementType, error) {
		return m.ResolveTargetElementType(ctx, in)
	})
}

func (r *Repository) ResolveElementRef(ctx context.Context, in proto.Message, ref string) (runtime.Reference, error) {
	return read(ctx, r, tenantOf(in), func(m *domain.Repository) (runtime.Reference, error) {
		return m.ResolveElementRef(ctx, in, ref)
	})
}

// PreviewLoss is domain.Repository.PreviewLoss on the committed state.
func (r *Repository) PreviewLoss(ctx context.Context, tool string, req proto.Message) (string, error) {
	return read(ctx, r, tenantOf(req), func(m *domain.Repository) (string, error) { return m.PreviewLoss(ctx, tool, req) })
}

// StatePreview is domain.Repository.StatePreview on the committed state.
func (r *Repository) StatePreview(ctx context.Context, tool string, req proto.Message) (runtime.EntityState, bool, error) {
	type result struct {
		st runtime.EntityState
		ok bool
	}
	res, err := read(ctx, r, tenantOf(req), func(m *domain.Repository) (result, error) {
		st, ok, err := m.StatePreview(ctx, tool, req)
		return result{st, ok}, err
	})
	return res.st, res.ok, err
}

// Check is domain.Repository.Check on the committed state: what the write
// would answer, without writing.
func (r *Repository) Check(ctx context.Context, _ string, req proto.Message) (map[string]any, error) {
	_, err := read(ctx, r, tenantOf(req), func(m *domain.Repository) (struct{}, error) {
		return struct{}{}, domain.Apply(ctx, m, req)
	})
	return nil, err
}

// EnrichError is domain.Repository.EnrichError on the committed state,
// read only for the answers that need the tenant's elements; when the
// database fails the error goes out without the context.
func (r *Repository) EnrichError(ctx context.Context, tool string, req proto.Message, e *runtime.ErrorEntry) {
	if !domain.ErrorNeedsState(tool, e) {
		domain.New().EnrichError(ctx, tool, req, e)
		return
	}
	tenant := ""
	if rc, ok := runtime.RequestContextFrom(ctx); ok {
		tenant = rc.TenantID
	}
	_, err := read(ctx, r, tenant, func(m *domain.Repository) (struct{}, error) {
		m.EnrichError(ctx, tool, req, e)
		return struct{}{}, nil
	})
	if err != nil {
		domain.New().EnrichError(ctx, tool, req, e)
	}
}

// Outbox returns the tools of the tenant's outbox rows in order, for tests
// and operators.
func (r *Repository) Outbox(ctx context.Context, tenant string) ([]string, error) {
	rows, err := r.pool.Query(ctx, `SELECT tool FROM `+r.prefix+`_outbox WHERE tenant = $1 ORDER BY id`, tenant)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
