package domain

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"

	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	neotomav1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/suggest"
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

// AnalyzeSchemaCandidates counts, per entity type, the live entities that
// carry each raw fragment and how consistent its type is: a field carried
// by at least min_frequency entities whose confidence (its type
// consistency) reaches min_confidence is a candidate.
func (m *Memory) AnalyzeSchemaCandidates(ctx context.Context, req *neotomav1.AnalyzeSchemaCandidatesRequest) (*neotomav1.AnalyzeSchemaCandidatesResponse, error) {
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
	type stats struct {
		kinds   map[string]int
		formats map[string]map[string]int // by kind
		samples []string
	}
	byType := map[string]map[string]*stats{}
	for _, e := range m.user(who).entities {
		if e.mergedInto != "" || (req.GetEntityType() != "" && e.typ != req.GetEntityType()) {
			continue
		}
		for k, v := range e.rawFragments {
			kind := jsonKind(v)
			if kind == "" {
				continue
			}
			if byType[e.typ] == nil {
				byType[e.typ] = map[string]*stats{}
			}
			st := byType[e.typ][k]
			if st == nil {
				st = &stats{kinds: map[string]int{}, formats: map[string]map[string]int{}}
				byType[e.typ][k] = st
			}
			st.kinds[kind]++
			if st.formats[kind] == nil {
				st.formats[kind] = map[string]int{}
			}
			st.formats[kind][valueFormat(v)]++
			if sample := string(canonicalJSON(v)); len(st.samples) < 10 && !contains(st.samples, sample) {
				st.samples = append(st.samples, sample)
			}
		}
	}
	out := &neotomav1.AnalyzeSchemaCandidatesResponse{MinFrequency: req.GetMinFrequency(), MinConfidence: req.GetMinConfidence()}
	for _, typ := range sortedKeys(byType) {
		rec := &neotomav1.SchemaRecommendation{EntityType: typ, Source: "raw_fragments"}
		var sum float64
		for _, k := range sortedKeys(byType[typ]) {
			st := byType[typ][k]
			total, best, bestKind := 0, 0, ""
			for _, kind := range sortedKeys(st.kinds) {
				total += st.kinds[kind]
				if st.kinds[kind] > best {
					best, bestKind = st.kinds[kind], kind
				}
			}
			consistency := float64(best) / float64(total)
			if int32(total) < req.GetMinFrequency() || consistency < req.GetMinConfidence() {
				continue
			}
			sort.Strings(st.samples)
			common := 0
			for _, n := range st.formats[bestKind] {
				common = max(common, n)
			}
			rec.Fields = append(rec.Fields, &neotomav1.FieldCandidate{
				FieldName: k, FieldType: bestKind, Frequency: int32(total), Confidence: consistency, TypeConsistency: consistency, SampleValues: st.samples,
				NamingPatternMatch: fieldName.MatchString(k), FormatConsistency: float64(common) / float64(best),
			})
			sum += consistency
		}
		if len(rec.Fields) == 0 {
			continue
		}
		rec.ConfidenceScore = sum / float64(len(rec.Fields))
		rec.Reasoning = fmt.Sprintf("%d raw-fragment field(s) carried by at least %d %s entities with consistent types", len(rec.Fields), req.GetMinFrequency(), typ)
		out.Recommendations = append(out.Recommendations, rec)
		out.TotalFields += int32(len(rec.Fields))
	}
	out.TotalEntityTypes = int32(len(out.Recommendations))
	return out, nil
}

// valueFormat is the shape of a raw value: for strings and numbers its text
// with letters as a and digits as 9, each run collapsed to one ("PO-12" is
// a-9, 12.5 is 9.9); booleans, arrays and objects have one format each.
func valueFormat(v *structpb.Value) string {
	var text string
	switch x := v.GetKind().(type) {
	case *structpb.Value_StringValue:
		text = x.StringValue
	case *structpb.Value_NumberValue:
		text = string(canonicalJSON(v))
	default:
		return jsonKind(v)
	}
	var b strings.Builder
	last := rune(-1)
	for _, r := range text {
		switch {
		case unicode.IsLetter(r):
			r = 'a'
		case unicode.IsDigit(r):
			r = '9'
		}
		if r != last || (r != 'a' && r != '9') {
			b.WriteRune(r)
		}
		last = r
	}
	return b.String()
}

// jsonKind is the schema field type a raw value would take ("" for null).
func jsonKind(v *structpb.Value) string {
	switch x := v.GetKind().(type) {
	case *structpb.Value_StringValue:
		if isDate(x.StringValue) {
			return "date"
		}
		return "string"
	case *structpb.Value_NumberValue:
		return "number"
	case *structpb.Value_BoolValue:
		return "boolean"
	case *structpb.Value_ListValue:
		return "array"
	case *structpb.Value_StructValue:
		return "object"
	}
	return ""
}
