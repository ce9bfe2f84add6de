package domain

import (
	"context"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	neotomav1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// ResolveObservationsToMove checks a merge before it is proposed or
// confirmed and counts the observations that will move, so the user sees
// what changes and a merge confirmed against an older state is stale.
func (m *Memory) ResolveObservationsToMove(ctx context.Context, in proto.Message) (int32, error) {
	req, ok := in.(*neotomav1.MergeEntitiesRequest)
	if !ok {
		return 0, status.Errorf(codes.Internal, "observations_to_move resolves merges, not %T", in)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	from, _, err := m.checkMerge(ctx, req)
	if err != nil {
		return 0, err
	}
	return int32(len(from.observations)), nil
}

// checkMerge reports every reason the merge cannot happen.
func (m *Memory) checkMerge(ctx context.Context, req *neotomav1.MergeEntitiesRequest) (from, to *entity, err error) {
	who, err := requireUser(ctx, req.GetUserId())
	if err != nil {
		return nil, nil, err
	}
	if req.GetFromEntityId() == req.GetToEntityId() {
		return nil, nil, &runtime.ErrorEntry{
			Code: runtime.CodeValidation, Field: "to_entity_id",
			Message:     "an entity cannot be merged into itself",
			Suggestions: &runtime.Suggestions{Hint: "from_entity_id is the duplicate that disappears; to_entity_id is a different entity that is kept."},
		}
	}
	u := m.user(who)
	var es runtime.Errors
	from, nf := u.lookup(req.GetFromEntityId(), "from_entity_id")
	if nf != nil {
		es = append(es, nf)
	}
	to, nt := u.lookup(req.GetToEntityId(), "to_entity_id")
	if nt != nil {
		es = append(es, nt)
	}
	if len(es) > 0 {
		return nil, nil, es
	}
	if from.mergedInto != "" {
		es = append(es, alreadyMerged(from, "from_entity_id"))
	}
	if to.mergedInto != "" {
		es = append(es, alreadyMerged(to, "to_entity_id"))
	}
	if len(es) > 0 {
		return nil, nil, es
	}
	if from.typ != to.typ {
		return nil, nil, &runtime.ErrorEntry{
			Code: runtime.CodeValidation, Field: "to_entity_id",
			Message: fmt.Sprintf("cannot merge %s into %s: only entities of one type are duplicates", withArticle(from.typ), withArticle(to.typ)),
			Details: map[string]any{"from_entity_type": from.typ, "to_entity_type": to.typ},
		}
	}
	return from, to, nil
}

// MergeEntities moves every observation and raw fragment of the duplicate
// to the kept entity and marks the duplicate merged.
func (m *Memory) MergeEntities(ctx context.Context, req *neotomav1.MergeEntitiesRequest) (*neotomav1.MergeEntitiesResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	from, to, err := m.checkMerge(ctx, req)
	if err != nil {
		return nil, err
	}
	if n := int32(len(from.observations)); n != req.GetObservationsToMove() {
		return nil, status.Errorf(codes.FailedPrecondition, "entity %s now has %d observations, not the %d that were confirmed", from.id, n, req.GetObservationsToMove())
	}
	moved := int32(len(from.observations))
	to.observations = append(to.observations, from.observations...)
	for k, v := range from.rawFragments {
		if _, ok := to.rawFragments[k]; !ok {
			to.rawFragments[k] = v
		}
	}
	from.observations, from.rawFragments, from.mergedInto = nil, map[string]*structpb.Value{}, to.id
	return &neotomav1.MergeEntitiesResponse{
		FromEntityId: from.id, ToEntityId: to.id, ObservationsMoved: moved,
		MergedAt: timestamppb.New(m.now()), MergeReason: req.GetMergeReason(),
	}, nil
}
