package domain

import (
	"encoding/json"
	"fmt"
	"sort"

	"google.golang.org/protobuf/encoding/protojson"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
)

// snapshot is one tenant's state as JSON, for a store that keeps it (see
// pgdomain).
type snapshot struct {
	Elements      []json.RawMessage `json:"elements"`
	Relationships []json.RawMessage `json:"relationships"`
	Born          map[string]uint64 `json:"born"`
}

// Snapshot returns the tenant's elements and relationships as JSON, in id
// order, so equal states give equal bytes.
func (r *Repository) Snapshot(tenant string) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	sp := r.read(tenant)
	snap := snapshot{Elements: []json.RawMessage{}, Relationships: []json.RawMessage{}, Born: map[string]uint64{}}
	for _, id := range sortedIDs(sp.elements) {
		b, err := protojson.Marshal(sp.elements[id])
		if err != nil {
			return nil, err
		}
		snap.Elements = append(snap.Elements, b)
		snap.Born[id] = sp.born[id]
	}
	for _, id := range sortedIDs(sp.relationships) {
		b, err := protojson.Marshal(sp.relationships[id])
		if err != nil {
			return nil, err
		}
		snap.Relationships = append(snap.Relationships, b)
	}
	return json.Marshal(snap)
}

// Restore replaces the tenant's state with a Snapshot; empty input is an
// empty state.
func (r *Repository) Restore(tenant string, b []byte) error {
	var snap snapshot
	if len(b) > 0 {
		if err := json.Unmarshal(b, &snap); err != nil {
			return fmt.Errorf("restore %s: %w", tenant, err)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.tenants, tenant)
	sp := r.space(tenant)
	for _, raw := range snap.Elements {
		e := new(archimatev1.Element)
		if err := protojson.Unmarshal(raw, e); err != nil {
			return fmt.Errorf("restore %s: element: %w", tenant, err)
		}
		sp.elements[e.GetId()] = e
		sp.names[keyOf(e.GetModelId(), e.GetName())] = e.GetId()
		sp.born[e.GetId()] = snap.Born[e.GetId()]
		if n := snap.Born[e.GetId()]; n > births.Load() {
			births.Store(n)
		}
	}
	for _, raw := range snap.Relationships {
		rel := new(archimatev1.Relationship)
		if err := protojson.Unmarshal(raw, rel); err != nil {
			return fmt.Errorf("restore %s: relationship: %w", tenant, err)
		}
		sp.relationships[rel.GetId()] = rel
	}
	return nil
}

func sortedIDs[V any](m map[string]V) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
