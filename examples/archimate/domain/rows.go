package domain

import (
	"google.golang.org/protobuf/proto"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
)

// Rows are some or all of one tenant's elements and relationships, as a
// store that keeps them as rows reads them: Born numbers each element's
// creation (see StatePreview).
type Rows struct {
	Elements      []*archimatev1.Element
	Born          map[string]uint64
	Relationships []*archimatev1.Relationship
}

// Load replaces the tenant's state with copies of rows, so the domain's
// rules can run on the part of a stored tenant a write reads.
func (r *Repository) Load(tenant string, rows Rows) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.tenants, tenant)
	sp := r.space(tenant)
	for _, e := range rows.Elements {
		e = proto.Clone(e).(*archimatev1.Element)
		sp.elements[e.GetId()] = e
		sp.names[keyOf(e.GetModelId(), e.GetName())] = e.GetId()
		sp.born[e.GetId()] = rows.Born[e.GetId()]
	}
	for _, rel := range rows.Relationships {
		sp.relationships[rel.GetId()] = proto.Clone(rel).(*archimatev1.Relationship)
	}
}

// Rows returns copies of the tenant's elements and relationships in id
// order.
func (r *Repository) Rows(tenant string) Rows {
	r.mu.Lock()
	defer r.mu.Unlock()
	sp := r.read(tenant)
	out := Rows{Born: map[string]uint64{}}
	for _, id := range sortedIDs(sp.elements) {
		out.Elements = append(out.Elements, proto.Clone(sp.elements[id]).(*archimatev1.Element))
		out.Born[id] = sp.born[id]
	}
	for _, id := range sortedIDs(sp.relationships) {
		out.Relationships = append(out.Relationships, proto.Clone(sp.relationships[id]).(*archimatev1.Relationship))
	}
	return out
}

// NameKey is how element names compare for uniqueness within a model
// (case-insensitively): a store keeps it beside the name so a unique index
// enforces the same rule.
func NameKey(name string) string { return keyOf("", name).name }
