package domain

import (
	"context"
	"sort"
	"time"

	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	neotomav1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1"
)

// lastObservation is when the entity was last observed.
func lastObservation(e *entity) *timestamppb.Timestamp {
	var last time.Time
	for _, o := range e.observations {
		if o.at.After(last) {
			last = o.at
		}
	}
	if last.IsZero() {
		return nil
	}
	return timestamppb.New(last)
}

// entityView is an entity as reads answer it; the caller holds m.mu.
func (m *Memory) entityView(who owner, e *entity, withSnapshot bool) *neotomav1.Entity {
	out := &neotomav1.Entity{
		Id: e.id, EntityType: e.typ, CanonicalName: e.canonicalName,
		ObservationCount: int32(len(e.observations)), LastObservationAt: lastObservation(e), MergedInto: e.mergedInto,
	}
	if withSnapshot {
		vals, _ := m.reduce(who, e, time.Time{})
		out.Snapshot = &structpb.Struct{Fields: vals}
	}
	return out
}

// RetrieveEntitySnapshot answers an entity's snapshot and, per field, the
// observation its value comes from.
func (m *Memory) RetrieveEntitySnapshot(ctx context.Context, req *neotomav1.RetrieveEntitySnapshotRequest) (*neotomav1.RetrieveEntitySnapshotResponse, error) {
	who, err := requireUser(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.user(who).live(req.GetEntityId(), "entity_id")
	if err != nil {
		return nil, err
	}
	var at time.Time
	if req.GetAt() != nil {
		at = req.GetAt().AsTime()
	}
	vals, prov := m.reduce(who, e, at)
	count := 0
	for _, o := range e.observations {
		if at.IsZero() || !o.at.After(at) {
			count++
		}
	}
	return &neotomav1.RetrieveEntitySnapshotResponse{
		EntityId: e.id, EntityType: e.typ, CanonicalName: e.canonicalName, SchemaVersion: m.active(who, e.typ).version,
		Snapshot: &structpb.Struct{Fields: vals}, Provenance: prov, ComputedAt: timestamppb.New(m.now()),
		ObservationCount: int32(count), LastObservationAt: lastObservation(e),
	}, nil
}

// RetrieveEntities lists the user's entities in the order they were
// created, optionally of one registered type.
func (m *Memory) RetrieveEntities(ctx context.Context, req *neotomav1.RetrieveEntitiesRequest) (*neotomav1.RetrieveEntitiesResponse, error) {
	who, err := requireUser(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if t := req.GetEntityType(); t != "" {
		if bad := m.checkType(who, t, "entity_type"); bad != nil {
			return nil, bad
		}
	}
	u := m.user(who)
	var all []*entity
	for _, e := range u.entities {
		if (req.GetEntityType() == "" || e.typ == req.GetEntityType()) && (req.GetIncludeMerged() || e.mergedInto == "") {
			all = append(all, e)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].order < all[j].order })
	out := &neotomav1.RetrieveEntitiesResponse{Total: int32(len(all)), ExcludedMerged: !req.GetIncludeMerged()}
	for _, e := range page(all, req.GetOffset(), req.GetLimit()) {
		out.Entities = append(out.Entities, m.entityView(who, e, req.GetIncludeSnapshots()))
	}
	return out, nil
}

func page[T any](all []T, offset, limit int32) []T {
	if int(offset) >= len(all) {
		return nil
	}
	end := len(all)
	if limit > 0 && int(offset)+int(limit) < end {
		end = int(offset) + int(limit)
	}
	return all[offset:end]
}

// ListObservations lists an entity's observations, newest first.
func (m *Memory) ListObservations(ctx context.Context, req *neotomav1.ListObservationsRequest) (*neotomav1.ListObservationsResponse, error) {
	who, err := requireUser(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.user(who).live(req.GetEntityId(), "entity_id")
	if err != nil {
		return nil, err
	}
	obs := append([]*observation(nil), e.observations...)
	sort.SliceStable(obs, func(i, j int) bool {
		if !obs[i].at.Equal(obs[j].at) {
			return obs[i].at.After(obs[j].at)
		}
		return obs[i].order > obs[j].order
	})
	out := &neotomav1.ListObservationsResponse{Total: int32(len(obs)), Limit: req.GetLimit(), Offset: req.GetOffset()}
	for _, o := range page(obs, req.GetOffset(), req.GetLimit()) {
		out.Observations = append(out.Observations, &neotomav1.Observation{
			Id: o.id, EntityId: e.id, EntityType: e.typ, SchemaVersion: o.version, SourceId: o.sourceID,
			ObservedAt: timestamppb.New(o.at), SpecificityScore: 1, SourcePriority: o.priority,
			Fields: &structpb.Struct{Fields: o.fields}, CreatedAt: timestamppb.New(o.at),
		})
	}
	return out, nil
}

// ListRelationships lists an entity's relationships, newest first.
func (m *Memory) ListRelationships(ctx context.Context, req *neotomav1.ListRelationshipsRequest) (*neotomav1.ListRelationshipsResponse, error) {
	who, err := requireUser(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	u := m.user(who)
	if _, err := u.live(req.GetEntityId(), "entity_id"); err != nil {
		return nil, err
	}
	in := req.GetDirection() != neotomav1.Direction_DIRECTION_OUTBOUND
	outb := req.GetDirection() != neotomav1.Direction_DIRECTION_INBOUND
	var rels []*neotomav1.Relationship
	for _, r := range sortedRelationships(u) {
		if t := req.GetRelationshipType(); t != neotomav1.RelationshipType_RELATIONSHIP_TYPE_UNSPECIFIED && u.relTypes[r.GetId()] != t {
			continue
		}
		if (in && r.GetTargetEntityId() == req.GetEntityId()) || (outb && r.GetSourceEntityId() == req.GetEntityId()) {
			rels = append(rels, r)
		}
	}
	return &neotomav1.ListRelationshipsResponse{Relationships: page(rels, req.GetOffset(), req.GetLimit()), Total: int32(len(rels)), Limit: req.GetLimit(), Offset: req.GetOffset()}, nil
}

// sortedRelationships are the user's relationships, newest first (the one
// created later on equal times).
func sortedRelationships(u *userMemory) []*neotomav1.Relationship {
	out := make([]*neotomav1.Relationship, 0, len(u.relationships))
	for _, r := range u.relationships {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].GetCreatedAt().AsTime(), out[j].GetCreatedAt().AsTime()
		if !a.Equal(b) {
			return a.After(b)
		}
		return u.relOrder[out[i].GetId()] > u.relOrder[out[j].GetId()]
	})
	return out
}
