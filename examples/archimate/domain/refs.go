package domain

import (
	"context"
	"sort"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/suggest"
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

// named returns the model's elements named ref ignoring case (exact) and
// those whose names differ from it only in case and separators (alike),
// each sorted by id.
func (sp *space) named(model, ref string) (exact, alike []*archimatev1.Element) {
	norm := suggest.Normalize(ref)
	for _, e := range sp.elements {
		if e.GetModelId() != model {
			continue
		}
		switch {
		case strings.EqualFold(e.GetName(), ref):
			exact = append(exact, e)
		case norm != "" && suggest.Normalize(e.GetName()) == norm:
			alike = append(alike, e)
		}
	}
	byID := func(es []*archimatev1.Element) {
		sort.Slice(es, func(i, j int) bool { return es[i].GetId() < es[j].GetId() })
	}
	byID(exact)
	byID(alike)
	return exact, alike
}

func referent(e *archimatev1.Element) runtime.Referent {
	return runtime.Referent{ID: e.GetId(), Name: e.GetName(), Type: aliasOf(e.GetType())}
}
