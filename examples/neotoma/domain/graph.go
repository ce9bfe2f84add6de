package domain

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	neotomav1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// eventTypeName names the event a date field records: the type and the
// field without its _date/_at/_on suffix, in PascalCase (invoice
// issue_date -> InvoiceIssue).
func eventTypeName(typ, field string) string {
	for _, suf := range []string{"_date", "_at", "_on"} {
		field = strings.TrimSuffix(field, suf)
	}
	return pascal(typ) + pascal(field)
}

func pascal(s string) string {
	var b strings.Builder
	for _, w := range strings.Split(s, "_") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

// parseWhen reads a date or an RFC 3339 date-time.
func parseWhen(s string) (time.Time, bool) {
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, true
	}
	t, err := time.Parse(time.RFC3339, s)
	return t, err == nil
}

// events are the timeline events of the user's live entities: one per date
// field of each observation, newest first (by id on a tie).
func (m *Memory) events(who owner, u *userMemory, keep func(e *entity, o *observation) bool) []*neotomav1.TimelineEvent {
	var out []*neotomav1.TimelineEvent
	for _, e := range u.entities {
		if e.mergedInto != "" {
			continue
		}
		s := m.active(who, e.typ)
		for _, o := range e.observations {
			if keep != nil && !keep(e, o) {
				continue
			}
			for _, k := range sortedKeys(o.fields) {
				f, ok := s.fields[k]
				if !ok || f.typ != neotomav1.FieldType_FIELD_TYPE_DATE {
					continue
				}
				when, ok := parseWhen(o.fields[k].GetStringValue())
				if !ok {
					continue
				}
				props, _ := structpb.NewStruct(map[string]any{"field": k, "value": o.fields[k].GetStringValue()})
				out = append(out, &neotomav1.TimelineEvent{
					Id: "evt_" + runtime.ContentHash(o.id, k), EventType: eventTypeName(e.typ, k),
					EventTimestamp: timestamppb.New(when), SourceId: o.sourceID, EntityIds: []string{e.id}, Properties: props,
				})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].GetEventTimestamp().AsTime(), out[j].GetEventTimestamp().AsTime()
		if !a.Equal(b) {
			return a.After(b)
		}
		return out[i].GetId() < out[j].GetId()
	})
	return out
}

// ListTimelineEvents lists the user's timeline events, newest first.
func (m *Memory) ListTimelineEvents(ctx context.Context, req *neotomav1.ListTimelineEventsRequest) (*neotomav1.ListTimelineEventsResponse, error) {
	who, err := requireUser(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	var es runtime.Errors
	var after, before time.Time
	for _, b := range []struct {
		field, value string
		into         *time.Time
	}{{"after_date", req.GetAfterDate(), &after}, {"before_date", req.GetBeforeDate(), &before}} {
		if b.value == "" {
			continue
		}
		t, ok := parseWhen(b.value)
		if !ok {
			es = append(es, &runtime.ErrorEntry{Code: runtime.CodeValidation, Field: b.field, Message: b.field + " must be an ISO 8601 date (2024-01-31) or date-time (2024-01-31T09:00:00Z)"})
		}
		*b.into = t
	}
	if len(es) > 0 {
		return nil, es
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	all := m.events(who, m.user(who), func(_ *entity, o *observation) bool {
		return req.GetSourceId() == "" || o.sourceID == req.GetSourceId()
	})
	var kept []*neotomav1.TimelineEvent
	for _, ev := range all {
		at := ev.GetEventTimestamp().AsTime()
		if (req.GetEventType() != "" && ev.GetEventType() != req.GetEventType()) || (!after.IsZero() && at.Before(after)) || (!before.IsZero() && !at.Before(before)) {
			continue
		}
		kept = append(kept, ev)
	}
	return &neotomav1.ListTimelineEventsResponse{Events: page(kept, req.GetOffset(), req.GetLimit()), Total: int32(len(kept))}, nil
}

func (m *Memory) sourceByID(u *userMemory, id string) *source {
	for _, s := range u.sources {
		if s.id == id {
			return s
		}
	}
	return nil
}

func material(s *source) *neotomav1.SourceMaterial {
	return &neotomav1.SourceMaterial{Id: s.id, MimeType: s.mimeType, OriginalFilename: s.filename, CreatedAt: timestamppb.New(s.at), FileUrls: fileURLs(s)}
}

func observationView(e *entity, o *observation) *neotomav1.Observation {
	return &neotomav1.Observation{
		Id: o.id, EntityId: e.id, EntityType: e.typ, SchemaVersion: o.version, SourceId: o.sourceID,
		ObservedAt: timestamppb.New(o.at), SpecificityScore: 1, SourcePriority: o.priority,
		Fields: &structpb.Struct{Fields: o.fields}, CreatedAt: timestamppb.New(o.at),
	}
}

// RetrieveGraphNeighborhood answers everything around an entity (its
// relationships, the entities at their other ends, the sources it was
// observed in, its events and observations) or a source (the entities
// observed in it, their relationships, its events and observations).
func (m *Memory) RetrieveGraphNeighborhood(ctx context.Context, req *neotomav1.RetrieveGraphNeighborhoodRequest) (*neotomav1.RetrieveGraphNeighborhoodResponse, error) {
	who, err := requireUser(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	u := m.user(who)
	out := &neotomav1.RetrieveGraphNeighborhoodResponse{NodeId: req.GetNodeId()}
	var members []*entity // the entities the neighborhood is about
	var fromNode func(*observation) bool
	if req.GetNodeType() == neotomav1.NodeType_NODE_TYPE_SOURCE {
		out.NodeType = "source"
		s := m.sourceByID(u, req.GetNodeId())
		if s == nil {
			return nil, &runtime.ErrorEntry{
				Code: CodeSourceNotFound, Field: "node_id",
				Message:     fmt.Sprintf("source %s not found", req.GetNodeId()),
				Details:     map[string]any{"source_id": req.GetNodeId()},
				Suggestions: &runtime.Suggestions{Hint: "Use a source_id returned by store; for an entity ID set node_type entity."},
			}
		}
		out.SourceMaterial = material(s)
		fromNode = func(o *observation) bool { return o.sourceID == s.id }
		for _, id := range sortedKeys(u.entities) {
			e := u.entities[id]
			for _, o := range e.observations {
				if fromNode(o) {
					members = append(members, e)
					break
				}
			}
		}
	} else {
		out.NodeType = "entity"
		e, err := u.live(req.GetNodeId(), "node_id")
		if err != nil {
			return nil, err
		}
		out.Entity = m.entityView(who, e, false)
		vals, _ := m.reduce(who, e, time.Time{})
		out.EntitySnapshot = &structpb.Struct{Fields: vals}
		fromNode = func(*observation) bool { return true }
		members = []*entity{e}
	}
	in := map[*entity]bool{}
	for _, e := range members {
		in[e] = true
	}
	if req.GetIncludeRelationships() {
		stored := make([]*neotomav1.StoredEntity, len(members))
		for i, e := range members {
			stored[i] = &neotomav1.StoredEntity{EntityId: e.id}
		}
		out.RelatedEntities, out.Relationships = m.related(who, u, stored)
		if out.NodeType == "source" {
			// The entities observed in the source are its neighbors too.
			out.RelatedEntities = nil
			for _, e := range members {
				out.RelatedEntities = append(out.RelatedEntities, m.entityView(who, e, true))
			}
		}
	}
	if req.GetIncludeSources() && out.NodeType == "entity" {
		seen := map[string]bool{}
		for _, o := range members[0].observations {
			if s := m.sourceByID(u, o.sourceID); s != nil && !seen[s.id] {
				seen[s.id] = true
				out.RelatedSources = append(out.RelatedSources, material(s))
			}
		}
	}
	if req.GetIncludeEvents() {
		out.TimelineEvents = m.events(who, u, func(e *entity, o *observation) bool { return in[e] && fromNode(o) })
	}
	if req.GetIncludeObservations() {
		for _, e := range members {
			for _, o := range e.observations {
				if fromNode(o) {
					out.Observations = append(out.Observations, observationView(e, o))
				}
			}
		}
	}
	return out, nil
}

// GetSchemaRecommendations answers the recommendations for one type:
// raw-fragment candidates (as analyze_schema_candidates finds them with
// its defaults) are pending; fields update_schema_incremental added are
// applied, from the agent.
func (m *Memory) GetSchemaRecommendations(ctx context.Context, req *neotomav1.GetSchemaRecommendationsRequest) (*neotomav1.GetSchemaRecommendationsResponse, error) {
	who, err := requireUser(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	src, st := req.GetSource(), req.GetStatus()
	want := func(source neotomav1.RecommendationSource, status neotomav1.RecommendationStatus) bool {
		return (src == neotomav1.RecommendationSource_RECOMMENDATION_SOURCE_ALL || src == source) && st == status
	}
	out := &neotomav1.GetSchemaRecommendationsResponse{EntityType: req.GetEntityType()}
	if want(neotomav1.RecommendationSource_RECOMMENDATION_SOURCE_RAW_FRAGMENTS, neotomav1.RecommendationStatus_RECOMMENDATION_STATUS_PENDING) {
		cands, err := m.AnalyzeSchemaCandidates(ctx, &neotomav1.AnalyzeSchemaCandidatesRequest{UserId: req.GetUserId(), EntityType: req.GetEntityType(), MinFrequency: 5, MinConfidence: 0.8})
		if err != nil {
			return nil, err
		}
		for _, r := range cands.GetRecommendations() {
			rec := &neotomav1.StoredRecommendation{
				Id: "rec_" + runtime.ContentHash(who.tenant, who.user, r.GetEntityType(), "raw_fragments"), EntityType: r.GetEntityType(),
				Source: "raw_fragments", ConfidenceScore: r.GetConfidenceScore(), Reasoning: r.GetReasoning(), Status: "pending",
			}
			for _, f := range r.GetFields() {
				rec.Fields = append(rec.Fields, &neotomav1.RecommendedField{FieldName: f.GetFieldName(), FieldType: f.GetFieldType()})
			}
			out.Recommendations = append(out.Recommendations, rec)
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if bad := m.checkType(who, req.GetEntityType(), "entity_type"); bad != nil {
		return nil, bad
	}
	if want(neotomav1.RecommendationSource_RECOMMENDATION_SOURCE_AGENT, neotomav1.RecommendationStatus_RECOMMENDATION_STATUS_APPLIED) {
		ts := m.tenant(who.tenant)
		for _, scope := range []*typeSchemas{ts.global[req.GetEntityType()], ts.users[who.user][req.GetEntityType()]} {
			if scope == nil {
				continue
			}
			for _, v := range sortedKeys(scope.versions) {
				s := scope.versions[v]
				if len(s.added) == 0 {
					continue
				}
				rec := &neotomav1.StoredRecommendation{
					Id: "rec_" + runtime.ContentHash(s.id), EntityType: s.typ, Source: "agent", ConfidenceScore: 1,
					Reasoning: fmt.Sprintf("added by update_schema_incremental as %s version %s", s.scope, s.version), Status: "applied",
				}
				for _, k := range s.added {
					rec.Fields = append(rec.Fields, &neotomav1.RecommendedField{FieldName: k, FieldType: FieldTypeName(s.fields[k].typ), Required: s.fields[k].required})
				}
				out.Recommendations = append(out.Recommendations, rec)
			}
		}
	}
	out.Total = int32(len(out.Recommendations))
	return out, nil
}
