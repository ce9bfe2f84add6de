package domain

import (
	"sort"
	"time"

	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	neotomav1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1"
)

// lastObservation is when the entity was last observed.
func lastObservation(e *entity) *timestamppb.Timestamp {
	return lastObservationUpTo(e, time.Time{})
}

// lastObservationUpTo is the time of e's latest observation made at or
// before at (any when at is zero), nil when there is none.
func lastObservationUpTo(e *entity, at time.Time) *timestamppb.Timestamp {
	var last time.Time
	for _, o := range e.observations {
		if (at.IsZero() || !o.at.After(at)) && o.at.After(last) {
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
