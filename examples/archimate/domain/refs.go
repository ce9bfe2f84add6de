package domain

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// ResolveElementRef answers the elements an agent's source_id or target_id
// names: the tenant's element with that id, else the elements of the
// request's model (the active model when it names none) with that name,
// ignoring case, else those whose name differs only in case and separators
// ("billing-service" names "Billing Service" and "BillingService", which
// is ambiguous). A reference that names nothing is ELEMENT_NOT_FOUND with
// the elements named like it.
func (r *Repository) ResolveElementRef(_ context.Context, in proto.Message, ref string) (runtime.Reference, error) {
	req, ok := in.(*archimatev1.CreateRelationshipRequest)
	if !ok {
		return runtime.Reference{}, status.Error(codes.Internal, "element_ref resolves for createRelationship only")
	}
	tenant := req.GetMeta().GetTenantId()
	model := req.GetModelId()
	if model == "" {
		model = ActiveModel(tenant)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	sp := r.read(tenant)
	if e, ok := sp.elements[ref]; ok {
		return runtime.Reference{Matches: []runtime.Referent{referent(e)}}, nil
	}
	exact, alike := sp.named(model, ref)
	found := exact
	if len(found) == 0 {
		found = alike
	}
	if len(found) == 0 {
		// The runtime names the field the reference came from.
		return runtime.Reference{}, sp.notFound("", ref)
	}
	matches := make([]runtime.Referent, len(found))
	for i, e := range found {
		matches[i] = referent(e)
	}
	return runtime.Reference{Matches: matches}, nil
}

func referent(e *archimatev1.Element) runtime.Referent {
	return runtime.Referent{ID: e.GetId(), Name: e.GetName(), Type: aliasOf(e.GetType())}
}
