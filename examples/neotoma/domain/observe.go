package domain

import (
	"fmt"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	neotomav1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// parseEntities checks structured material: every item an object with a
// registered entity_type, schema fields of the schema's types and every
// required field present. It reports every problem at once.
func (m *Memory) parseEntities(who owner, items []*structpb.Value, path string) ([]entityInput, error) {
	var es runtime.Errors
	if len(items) == 0 || len(items) > MaxEntities {
		return nil, &runtime.ErrorEntry{
			Code: runtime.CodeValidation, Field: path,
			Message:     fmt.Sprintf("%s must hold 1 to %d entities, not %d", path, MaxEntities, len(items)),
			Suggestions: &runtime.Suggestions{Hint: EntitiesHint},
		}
	}
	out := make([]entityInput, 0, len(items))
	for i, v := range items {
		at := fmt.Sprintf("%s[%d]", path, i)
		obj := v.GetStructValue()
		if obj == nil {
			es = append(es, &runtime.ErrorEntry{Code: runtime.CodeValidation, Field: at, Message: at + " must be an object with entity_type and the entity's fields"})
			continue
		}
		typ := obj.GetFields()["entity_type"].GetStringValue()
		if typ == "" {
			es = append(es, &runtime.ErrorEntry{
				Code: runtime.CodeValidation, Field: at + ".entity_type", Message: at + " has no entity_type",
				Suggestions: &runtime.Suggestions{ValidValues: m.types(who), Hint: "Call list_entity_types to choose the type of the data."},
			})
			continue
		}
		if e := m.checkType(who, typ, at+".entity_type"); e != nil {
			es = append(es, e)
			continue
		}
		s := m.active(who, typ)
		in := entityInput{typ: typ, name: obj.GetFields()["canonical_name"].GetStringValue(), fields: map[string]*structpb.Value{}}
		for _, k := range sortedKeys(obj.GetFields()) {
			if k == "entity_type" || k == "canonical_name" {
				continue
			}
			fv := obj.GetFields()[k]
			in.fields[k] = fv
			if f, ok := s.fields[k]; ok && !matches(f.typ, fv) {
				es = append(es, &runtime.ErrorEntry{
					Code: runtime.CodeValidation, Field: at + "." + k,
					Message: fmt.Sprintf("%s of %s must be %s", k, withArticle(typ), describe(f.typ)),
					Details: map[string]any{"reason": "FIELD_TYPE_MISMATCH"},
				})
			} else if ok && !f.passes(fv) {
				es = append(es, validatorFailed(at+"."+k, k, typ, f))
			}
		}
		for _, k := range sortedKeys(s.fields) {
			if _, ok := in.fields[k]; !ok && s.fields[k].required {
				es = append(es, &runtime.ErrorEntry{
					Code: runtime.CodeValidation, Field: at + "." + k,
					Message: fmt.Sprintf("%s of %s is required by schema version %s", k, withArticle(typ), s.version),
					Details: map[string]any{"reason": "REQUIRED_FIELD_MISSING"},
				})
			}
		}
		out = append(out, in)
	}
	if len(es) > 0 {
		return nil, es
	}
	return out, nil
}

// observe records one observation per entity input as run runID of s.
func (m *Memory) observe(who owner, u *userMemory, s *source, runID string, ins []entityInput, priority int32, at time.Time) *run {
	r := &run{id: runID}
	for i, in := range ins {
		sc := m.active(who, in.typ)
		name, key := identify(sc, in)
		id := "ent_" + runtime.ContentHash(who.tenant, who.user, in.typ, key)
		e, created := u.entities[id], false
		if e == nil {
			e = &entity{id: id, typ: in.typ, canonicalName: name, rawFragments: map[string]*structpb.Value{}, order: m.next()}
			u.entities[id] = e
			created = true
			r.created++
		}
		e = u.resolve(e) // material about a merged duplicate belongs to the kept entity
		obs := &observation{
			id: "obs_" + runtime.ContentHash(runID, fmt.Sprint(i)), sourceID: s.id, priority: priority,
			version: sc.version, fields: map[string]*structpb.Value{}, at: at, order: m.next(),
		}
		for _, k := range sortedKeys(in.fields) {
			if _, ok := sc.fields[k]; ok {
				obs.fields[k] = in.fields[k]
			} else {
				e.rawFragments[k] = in.fields[k]
				r.unknown++
			}
		}
		e.observations = append(e.observations, obs)
		r.observations++
		r.entities = append(r.entities, &neotomav1.StoredEntity{EntityId: e.id, EntityType: e.typ, ObservationId: obs.id, Created: created, CanonicalName: e.canonicalName})
	}
	s.runs[runID] = r
	return r
}

// identify is the canonical name of an entity and the key its ID hashes:
// canonical_name when given, else the first identifying field of the
// schema (then name, title, email), else the content of its fields.
// Identifying values are compared without case unless the field preserves it.
func identify(s *schema, in entityInput) (name, key string) {
	if in.key != "" {
		return in.name, in.key
	}
	if in.name != "" {
		return in.name, normalize(in.name)
	}
	for _, k := range append(append([]string{}, s.identity...), fallbackIdentity...) {
		if v := in.fields[k].GetStringValue(); v != "" {
			if s.fields[k].preserveCase {
				return v, k + "=" + strings.Join(strings.Fields(v), " ")
			}
			return v, k + "=" + normalize(v)
		}
	}
	h := sha256Hex(canonicalJSON(&structpb.Struct{Fields: in.fields}))
	return in.typ + " " + h[:12], "content=" + h
}

// storeAnswer is store's answer about source s.
func (m *Memory) storeAnswer(who owner, u *userMemory, s *source, dedup bool) *neotomav1.StoreResponse {
	out := &neotomav1.StoreResponse{SourceId: s.id, ContentHash: s.hash, Deduplicated: dedup, FileSize: s.size}
	if r := s.first; r != nil {
		out.Interpretation = &neotomav1.Interpretation{RunId: r.id, EntitiesCreated: r.created, ObservationsCreated: r.observations}
		for _, e := range r.entities {
			c := proto.Clone(e).(*neotomav1.StoredEntity)
			c.Created = c.Created && !dedup
			out.Entities = append(out.Entities, c)
		}
		out.UnknownFieldsCount = r.unknown
	}
	out.RelatedEntities, out.RelatedRelationships = m.related(who, u, out.GetEntities())
	return out
}

// related lists the relationships involving the stored entities and the
// entities at their other end.
func (m *Memory) related(who owner, u *userMemory, stored []*neotomav1.StoredEntity) ([]*neotomav1.Entity, []*neotomav1.Relationship) {
	in := map[string]bool{}
	for _, e := range stored {
		in[e.GetEntityId()] = true
	}
	var rels []*neotomav1.Relationship
	others := map[string]bool{}
	for _, r := range sortedRelationships(u) {
		s, t := in[r.GetSourceEntityId()], in[r.GetTargetEntityId()]
		if !s && !t {
			continue
		}
		rels = append(rels, r)
		if !s {
			others[r.GetSourceEntityId()] = true
		}
		if !t {
			others[r.GetTargetEntityId()] = true
		}
	}
	var ents []*neotomav1.Entity
	for _, id := range sortedKeys(others) {
		if e, ok := u.entities[id]; ok {
			ents = append(ents, m.entityView(who, e, true))
		}
	}
	return ents, rels
}
