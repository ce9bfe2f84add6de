package domain

import (
	"time"

	"google.golang.org/protobuf/types/known/structpb"

	neotomav1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1"
)

// Snapshot is the current view of an entity of a user, following merges.
func (m *Memory) Snapshot(tenant, userID, entityID string) (map[string]any, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	who := owner{tenant: tenant, user: userID}
	u, ok := m.users[who]
	if !ok {
		return nil, false
	}
	e, ok := u.entities[entityID]
	if !ok {
		return nil, false
	}
	snap, _ := m.reduce(who, u.resolve(e), time.Time{})
	out := map[string]any{}
	for k, v := range snap {
		out[k] = v.AsInterface()
	}
	return out, true
}

// reduce computes an entity's snapshot from its observations up to at (all
// when zero) under the merge policies of its type's active schema:
// corrections always win; otherwise last_write takes the latest value,
// merge_array joins the arrays, and highest_priority (the default) and
// most_specific take the highest priority, the later one on a tie (or the
// higher priority, with tie_breaker source_priority, under last_write).
// It answers the value and the observation it comes from per field.
func (m *Memory) reduce(who owner, e *entity, at time.Time) (map[string]*structpb.Value, map[string]string) {
	var s *schema
	if who.tenant != "" {
		s = m.active(who, e.typ)
	}
	best := map[string]*observation{}
	arrays := map[string][]*structpb.Value{}
	for _, o := range e.observations {
		if !at.IsZero() && o.at.After(at) {
			continue
		}
		for k, v := range o.fields {
			p := policy{}
			if s != nil {
				p = s.policies[k]
			}
			if p.strategy == neotomav1.ReducerStrategy_REDUCER_STRATEGY_MERGE_ARRAY && o.priority < CorrectionPriority {
				arrays[k] = append(arrays[k], v.GetListValue().GetValues()...)
			}
			if b, ok := best[k]; !ok || wins(p, o, b) {
				best[k] = o
			}
		}
	}
	vals, prov := map[string]*structpb.Value{}, map[string]string{}
	for k, o := range best {
		vals[k], prov[k] = o.fields[k], o.id
		if items, ok := arrays[k]; ok && o.priority < CorrectionPriority {
			vals[k] = structpb.NewListValue(&structpb.ListValue{Values: distinct(items)})
		}
	}
	return vals, prov
}

// wins reports whether observation o beats b for a field under policy p.
func wins(p policy, o, b *observation) bool {
	oc, bc := o.priority >= CorrectionPriority, b.priority >= CorrectionPriority
	if oc != bc {
		return oc
	}
	if !oc && p.strategy == neotomav1.ReducerStrategy_REDUCER_STRATEGY_LAST_WRITE {
		if p.tie == neotomav1.TieBreaker_TIE_BREAKER_SOURCE_PRIORITY && o.at.Equal(b.at) && o.priority != b.priority {
			return o.priority > b.priority
		}
		if !o.at.Equal(b.at) {
			return o.at.After(b.at)
		}
		return o.order > b.order
	}
	if o.priority != b.priority {
		return o.priority > b.priority
	}
	if p.tie == neotomav1.TieBreaker_TIE_BREAKER_OBSERVED_AT && !o.at.Equal(b.at) {
		return o.at.After(b.at)
	}
	return o.order > b.order
}

// distinct keeps the first of equal values.
func distinct(vs []*structpb.Value) []*structpb.Value {
	var out []*structpb.Value
	seen := map[string]bool{}
	for _, v := range vs {
		k := string(canonicalJSON(v))
		if !seen[k] {
			seen[k] = true
			out = append(out, v)
		}
	}
	return out
}
