package domain

import (
	"context"
	"fmt"

	neotomav1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// CreateRelationship relates two live entities. The ID is a content hash,
// so creating the same relationship again returns the existing one.
func (m *Memory) CreateRelationship(ctx context.Context, req *neotomav1.CreateRelationshipRequest) (*neotomav1.CreateRelationshipResponse, error) {
	who, err := requireUser(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	u := m.user(who)
	var es runtime.Errors
	for _, ref := range []struct{ id, field string }{{req.GetSourceEntityId(), "source_entity_id"}, {req.GetTargetEntityId(), "target_entity_id"}} {
		if _, err := u.live(ref.id, ref.field); err != nil {
			es = append(es, err.(*runtime.ErrorEntry))
		}
	}
	if len(es) > 0 {
		return nil, es
	}
	if req.GetSourceEntityId() == req.GetTargetEntityId() {
		return nil, &runtime.ErrorEntry{Code: runtime.CodeValidation, Field: "target_entity_id", Message: "an entity cannot be related to itself"}
	}
	if r, ok := u.relationships[req.GetId()]; ok {
		return relationshipAnswer(r), nil
	}
	t := req.GetRelationshipType()
	if acyclic[t] && u.reaches(t, req.GetTargetEntityId(), req.GetSourceEntityId()) {
		return nil, &runtime.ErrorEntry{
			Code: CodeCycleDetected, Field: "target_entity_id",
			Message:     fmt.Sprintf("%s from %s to %s would create a cycle", RelationshipTypeName(t), req.GetSourceEntityId(), req.GetTargetEntityId()),
			Details:     map[string]any{"relationship_type": RelationshipTypeName(t)},
			Suggestions: &runtime.Suggestions{Hint: "The target already reaches the source through " + RelationshipTypeName(t) + " relationships; check the direction (source " + RelationshipTypeName(t) + " target)."},
		}
	}
	r := &neotomav1.Relationship{
		Id: req.GetId(), RelationshipType: RelationshipTypeName(t),
		SourceEntityId: req.GetSourceEntityId(), TargetEntityId: req.GetTargetEntityId(),
		Metadata: req.GetMetadata(), CreatedAt: req.GetCreatedAt(),
	}
	u.relationships[r.Id] = r
	u.relTypes[r.Id] = t
	u.relOrder[r.Id] = m.next()
	return relationshipAnswer(r), nil
}

func relationshipAnswer(r *neotomav1.Relationship) *neotomav1.CreateRelationshipResponse {
	return &neotomav1.CreateRelationshipResponse{
		Id: r.GetId(), RelationshipType: r.GetRelationshipType(), SourceEntityId: r.GetSourceEntityId(),
		TargetEntityId: r.GetTargetEntityId(), Metadata: r.GetMetadata(), CreatedAt: r.GetCreatedAt(),
	}
}
