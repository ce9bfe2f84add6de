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
func (r *Repository) Rows(tenant string) Rows { return r.rows(tenant, true) }

// TakeRows is Rows without the copies: the repository's own messages, for
// a store that writes them out of a working copy (NewWorkingCopy) it then
// drops, without applying anything to it again.
func (r *Repository) TakeRows(tenant string) Rows { return r.rows(tenant, false) }

// rows returns the tenant's elements and relationships in id order,
// copies when clone.
func (r *Repository) rows(tenant string, clone bool) Rows {
	r.mu.Lock()
	defer r.mu.Unlock()
	sp := r.read(tenant)
	out := Rows{Born: make(map[string]uint64, len(sp.elements))}
	if len(sp.elements) > 0 {
		out.Elements = make([]*archimatev1.Element, 0, len(sp.elements))
	}
	for _, id := range sortedIDs(sp.elements) {
		e := sp.elements[id]
		if clone {
			e = proto.Clone(e).(*archimatev1.Element)
		}
		out.Elements = append(out.Elements, e)
		out.Born[id] = sp.born[id]
	}
	for _, id := range sortedIDs(sp.relationships) {
		rel := sp.relationships[id]
		if clone {
			rel = proto.Clone(rel).(*archimatev1.Relationship)
		}
		out.Relationships = append(out.Relationships, rel)
	}
	return out
}

// NameKey is how element names compare for uniqueness within a model
// (case-insensitively): a store keeps it beside the name so a unique index
// enforces the same rule.
func NameKey(name string) string { return keyOf("", name).name }
