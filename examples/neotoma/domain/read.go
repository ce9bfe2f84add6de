package domain

import (
	"context"
	"fmt"
	"sort"
	"time"

	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	neotomav1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/suggest"
)

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
		ObservationCount: int32(count), LastObservationAt: lastObservationUpTo(e, at),
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

// CodeFieldNotFound answers a provenance request for a field the snapshot
// does not hold.
const CodeFieldNotFound = "FIELD_NOT_FOUND"

// RetrieveEntityByIdentifier finds live entities whose canonical name or
// identifying field (the schema's, or name, title, email) equals the
// identifier without case and extra spaces.
func (m *Memory) RetrieveEntityByIdentifier(ctx context.Context, req *neotomav1.RetrieveEntityByIdentifierRequest) (*neotomav1.RetrieveEntityByIdentifierResponse, error) {
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
	want := normalize(req.GetIdentifier())
	u := m.user(who)
	var found []*entity
	for _, e := range u.entities {
		if e.mergedInto != "" || (req.GetEntityType() != "" && e.typ != req.GetEntityType()) {
			continue
		}
		if m.identifiedBy(who, e, want) {
			found = append(found, e)
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].order < found[j].order })
	out := &neotomav1.RetrieveEntityByIdentifierResponse{Total: int32(len(found))}
	for _, e := range found {
		out.Entities = append(out.Entities, m.entityView(who, e, true))
	}
	return out, nil
}

func (m *Memory) identifiedBy(who owner, e *entity, want string) bool {
	if normalize(e.canonicalName) == want {
		return true
	}
	vals, _ := m.reduce(who, e, time.Time{})
	for _, k := range append(append([]string{}, identityOf(m.active(who, e.typ))...), fallbackIdentity...) {
		if v := vals[k].GetStringValue(); v != "" && normalize(v) == want {
			return true
		}
	}
	return false
}

// RetrieveRelatedEntities walks relationships from an entity, breadth
// first, up to max_hops.
func (m *Memory) RetrieveRelatedEntities(ctx context.Context, req *neotomav1.RetrieveRelatedEntitiesRequest) (*neotomav1.RetrieveRelatedEntitiesResponse, error) {
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
	types := map[neotomav1.RelationshipType]bool{}
	for _, t := range req.GetRelationshipTypes() {
		types[t] = true
	}
	in := req.GetDirection() != neotomav1.Direction_DIRECTION_OUTBOUND
	outb := req.GetDirection() != neotomav1.Direction_DIRECTION_INBOUND
	seen := map[string]bool{req.GetEntityId(): true}
	usedRel := map[string]bool{}
	frontier := []string{req.GetEntityId()}
	var order []string
	var rels []*neotomav1.Relationship
	hops := int32(0)
	for hop := int32(0); hop < req.GetMaxHops() && len(frontier) > 0; hop++ {
		var next []string
		for _, n := range frontier {
			for _, r := range sortedRelationships(u) {
				if len(types) > 0 && !types[u.relTypes[r.GetId()]] {
					continue
				}
				other := ""
				switch {
				case outb && r.GetSourceEntityId() == n:
					other = r.GetTargetEntityId()
				case in && r.GetTargetEntityId() == n:
					other = r.GetSourceEntityId()
				default:
					continue
				}
				if !usedRel[r.GetId()] {
					usedRel[r.GetId()] = true
					rels = append(rels, r)
				}
				if !seen[other] {
					seen[other] = true
					order = append(order, other)
					next = append(next, other)
				}
			}
		}
		if len(next) > 0 {
			hops = hop + 1
		}
		frontier = next
	}
	out := &neotomav1.RetrieveRelatedEntitiesResponse{Relationships: rels, TotalEntities: int32(len(order)), TotalRelationships: int32(len(rels)), HopsTraversed: hops}
	for _, id := range order {
		if e, ok := u.entities[id]; ok {
			out.Entities = append(out.Entities, m.entityView(who, e, req.GetIncludeEntities()))
		}
	}
	return out, nil
}

// RetrieveFieldProvenance answers the observation a snapshot field comes
// from and the source material it was observed in.
func (m *Memory) RetrieveFieldProvenance(ctx context.Context, req *neotomav1.RetrieveFieldProvenanceRequest) (*neotomav1.RetrieveFieldProvenanceResponse, error) {
	who, err := requireUser(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	u := m.user(who)
	e, err := u.live(req.GetEntityId(), "entity_id")
	if err != nil {
		return nil, err
	}
	vals, prov := m.reduce(who, e, time.Time{})
	v, ok := vals[req.GetField()]
	if !ok {
		names := sortedKeys(vals)
		return nil, &runtime.ErrorEntry{
			Code: CodeFieldNotFound, Field: "field",
			Message:     fmt.Sprintf("the snapshot of %s has no field %s", e.id, req.GetField()),
			Suggestions: &runtime.Suggestions{DidYouMean: suggest.Closest(req.GetField(), names, 3), ValidValues: names},
		}
	}
	var o *observation
	for _, x := range e.observations {
		if x.id == prov[req.GetField()] {
			o = x
		}
	}
	out := &neotomav1.RetrieveFieldProvenanceResponse{
		Field: req.GetField(), Value: v, ObservedAt: timestamppb.New(o.at),
		SourceObservation: &neotomav1.SourceObservation{Id: o.id, SourceId: o.sourceID, ObservedAt: timestamppb.New(o.at), SpecificityScore: 1, SourcePriority: o.priority},
	}
	for _, s := range u.sources {
		if s.id == o.sourceID && o.sourceID != "" {
			out.SourceMaterial = &neotomav1.SourceMaterial{Id: s.id, MimeType: s.mimeType, OriginalFilename: s.filename, CreatedAt: timestamppb.New(s.at), FileUrls: fileURLs(s)}
		}
	}
	return out, nil
}

// GetRelationshipSnapshot answers one relationship as a snapshot: its
// metadata, observed once when the relationship was created.
func (m *Memory) GetRelationshipSnapshot(ctx context.Context, req *neotomav1.GetRelationshipSnapshotRequest) (*neotomav1.GetRelationshipSnapshotResponse, error) {
	who, err := requireUser(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	u := m.user(who)
	var es runtime.Errors
	for _, ref := range []struct{ id, field string }{{req.GetSourceEntityId(), "source_entity_id"}, {req.GetTargetEntityId(), "target_entity_id"}} {
		if _, nf := u.lookup(ref.id, ref.field); nf != nil {
			es = append(es, nf)
		}
	}
	if len(es) > 0 {
		return nil, es
	}
	name := RelationshipTypeName(req.GetRelationshipType())
	for _, r := range sortedRelationships(u) {
		if u.relTypes[r.GetId()] != req.GetRelationshipType() || r.GetSourceEntityId() != req.GetSourceEntityId() || r.GetTargetEntityId() != req.GetTargetEntityId() {
			continue
		}
		obs := "obs_" + runtime.ContentHash(r.GetId())
		prov := map[string]string{}
		for k := range r.GetMetadata().GetFields() {
			prov[k] = obs
		}
		return &neotomav1.GetRelationshipSnapshotResponse{
			Snapshot: &neotomav1.RelationshipSnapshot{
				RelationshipKey: name + ":" + r.GetSourceEntityId() + ":" + r.GetTargetEntityId(), RelationshipType: name,
				SourceEntityId: r.GetSourceEntityId(), TargetEntityId: r.GetTargetEntityId(), SchemaVersion: "1.0",
				Snapshot: r.GetMetadata(), ComputedAt: timestamppb.New(m.now()), ObservationCount: 1,
				LastObservationAt: r.GetCreatedAt(), Provenance: prov,
			},
			Observations: []*neotomav1.RelationshipObservation{{Id: obs, ObservedAt: r.GetCreatedAt(), SpecificityScore: 1, SourcePriority: defaultPriority, Metadata: r.GetMetadata()}},
		}, nil
	}
	return nil, &runtime.ErrorEntry{
		Code:        runtime.CodeNotFound,
		Message:     fmt.Sprintf("no %s relationship from %s to %s", name, req.GetSourceEntityId(), req.GetTargetEntityId()),
		Suggestions: &runtime.Suggestions{Hint: "list_relationships shows the relationships of an entity."},
	}
}
