package pgdomain

import (
	"context"

	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

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

// ResolveCurrentVersion reads the one element an update names.
func (r *Repository) ResolveCurrentVersion(ctx context.Context, in proto.Message) (int32, error) {
	return readRows(ctx, r, tenantOf(in), in, footprintOf(in, false), func(m *domain.Repository) (int32, error) { return m.ResolveCurrentVersion(ctx, in) })
}

// ResolveSourceElementType reads the relationship's ends only.
func (r *Repository) ResolveSourceElementType(ctx context.Context, in proto.Message) (archimatev1.ElementType, error) {
	return readRows(ctx, r, tenantOf(in), in, endsOf(in), func(m *domain.Repository) (archimatev1.ElementType, error) {
		return m.ResolveSourceElementType(ctx, in)
	})
}

// ResolveTargetElementType reads the relationship's ends only.
func (r *Repository) ResolveTargetElementType(ctx context.Context, in proto.Message) (archimatev1.ElementType, error) {
	return readRows(ctx, r, tenantOf(in), in, endsOf(in), func(m *domain.Repository) (archimatev1.ElementType, error) {
		return m.ResolveTargetElementType(ctx, in)
	})
}

// endsOf is the footprint of a relationship's ends, without the
// relationships.
func endsOf(in proto.Message) footprint {
	f := footprintOf(in, false)
	f.relIDs, f.attached = nil, nil
	return f
}

// ResolveElementRef reads the elements with the id ref, or a name like it
// in the request's model (indexed by name_key and name_norm).
func (r *Repository) ResolveElementRef(ctx context.Context, in proto.Message, ref string) (runtime.Reference, error) {
	tenant := tenantOf(in)
	f := refFootprint(modelOf(in, tenant), ref)
	return readRows(ctx, r, tenant, in, f, func(m *domain.Repository) (runtime.Reference, error) {
		return m.ResolveElementRef(ctx, in, ref)
	})
}

// modelOf is the model a createRelationship's references are resolved in.
func modelOf(in proto.Message, tenant string) string {
	if req, ok := in.(*archimatev1.CreateRelationshipRequest); ok && req.GetModelId() != "" {
		return req.GetModelId()
	}
	return domain.ActiveModel(tenant)
}

// PreviewLoss is domain.Repository.PreviewLoss on the committed rows.
func (r *Repository) PreviewLoss(ctx context.Context, tool string, req proto.Message) (string, error) {
	return read(ctx, r, tenantOf(req), req, func(m *domain.Repository) (string, error) { return m.PreviewLoss(ctx, tool, req) })
}

// StatePreview is domain.Repository.StatePreview on the committed rows.
func (r *Repository) StatePreview(ctx context.Context, tool string, req proto.Message) (runtime.EntityState, bool, error) {
	type result struct {
		st runtime.EntityState
		ok bool
	}
	res, err := read(ctx, r, tenantOf(req), req, func(m *domain.Repository) (result, error) {
		st, ok, err := m.StatePreview(ctx, tool, req)
		return result{st, ok}, err
	})
	return res.st, res.ok, err
}

// Check is domain.Repository.Check on the committed rows: what the write
// would answer, without writing.
func (r *Repository) Check(ctx context.Context, _ string, req proto.Message) (map[string]any, error) {
	_, err := read(ctx, r, tenantOf(req), req, func(m *domain.Repository) (struct{}, error) {
		if batch, ok := req.(*archimatev1.CreateElementsRequest); ok {
			if err := r.rememberItems(ctx, m, batch); err != nil {
				return struct{}{}, r.storeError(ctx, req, err)
			}
		}
		return struct{}{}, domain.Apply(ctx, m, req)
	})
	return nil, err
}

// EnrichError is domain.Repository.EnrichError on the committed rows, read
// only for the answers that need the tenant's elements; when the database
// fails the error goes out without the context.
func (r *Repository) EnrichError(ctx context.Context, tool string, req proto.Message, e *runtime.ErrorEntry) {
	if !domain.ErrorNeedsState(tool, e) {
		domain.New().EnrichError(ctx, tool, req, e)
		return
	}
	tenant := ""
	if rc, ok := runtime.RequestContextFrom(ctx); ok {
		tenant = rc.TenantID
	}
	rel, _ := req.(*archimatev1.CreateRelationshipRequest)
	f := refFootprint(modelOf(req, tenant), rel.GetSourceId(), rel.GetTargetId())
	_, err := readRows(ctx, r, tenant, req, f, func(m *domain.Repository) (struct{}, error) {
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
	return collectStrings(rows)
}
