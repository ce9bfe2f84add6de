package domain

import (
	"context"

	"google.golang.org/protobuf/proto"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
)

// Check answers what a write would answer without writing it (pass it as
// runtime.WithPreviews(runtime.Previews{Check: repo.Check})): the write runs against a scratch copy
// of the tenant's state, so validate_write and dry_run refuse a duplicate
// name, a taken id or a missing element with the very error the write gives.
func (r *Repository) Check(ctx context.Context, _ string, req proto.Message) (map[string]any, error) {
	tenant := ""
	if m, ok := req.(interface {
		GetMeta() *archimatev1.MessageMeta
	}); ok {
		tenant = m.GetMeta().GetTenantId()
	}
	snap, err := r.Snapshot(tenant)
	if err != nil {
		return nil, err
	}
	scratch := New()
	if err := scratch.Restore(tenant, snap); err != nil {
		return nil, err
	}
	r.copyItemsTo(scratch, tenant)
	return nil, Apply(ctx, scratch, req)
}

// Apply runs req, whichever write it is, on repo; an unknown request type
// is not a write of this service and passes.
func Apply(ctx context.Context, repo *Repository, req proto.Message) error {
	var err error
	switch req := req.(type) {
	case *archimatev1.CreateElementRequest:
		_, err = repo.CreateElement(ctx, req)
	case *archimatev1.CreateRelationshipRequest:
		_, err = repo.CreateRelationship(ctx, req)
	case *archimatev1.UpdateElementRequest:
		_, err = repo.UpdateElement(ctx, req)
	case *archimatev1.DeleteElementRequest:
		_, err = repo.DeleteElement(ctx, req)
	case *archimatev1.CreateCapabilityRequest:
		_, err = repo.CreateCapability(ctx, req)
	case *archimatev1.CreateCapabilityStructureRequest:
		_, err = repo.CreateCapabilityStructure(ctx, req)
	case *archimatev1.AddComponentToCapabilityRequest:
		_, err = repo.AddComponentToCapability(ctx, req)
	case *archimatev1.CreateElementsRequest:
		// A batch that would write some items and refuse others is
		// answered with the items it would refuse.
		var resp *archimatev1.CreateElementsResponse
		if resp, err = repo.CreateElements(ctx, req); err == nil {
			err = BatchErrors(resp)
		}
	}
	return err
}
