package domain

import (
	"context"
	"strings"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// EntityTypeVocabulary is the live vocabulary the tools' entity_type fields
// take: the types EntityTypes lists for the caller (the tenant's and the
// caller's own), each described by its active schema's fields. The runtime
// keeps each user's list for a minute; RegisterSchema and
// UpdateSchemaIncremental drop a tenant's lists as soon as they change its
// types, so a type registered a moment ago is accepted by the next call.
// Pass it to RegisterMemoryServiceTools with runtime.WithVocabulary.
func (m *Memory) EntityTypeVocabulary() *runtime.Vocabulary { return m.vocab }

func newEntityTypeVocabulary(m *Memory) *runtime.Vocabulary {
	return runtime.NewVocabulary("entity_type", m.entityTypeValues, runtime.VocabularyOptions{PerPrincipal: true})
}

// entityTypeValues serves the vocabulary from EntityTypes.
func (m *Memory) entityTypeValues(ctx context.Context, tenant string) ([]runtime.VocabularyValue, error) {
	types := m.EntityTypes(ctx, tenant)
	user := ""
	if rc, ok := runtime.RequestContextFrom(ctx); ok && rc.TenantID == tenant {
		user = rc.PrincipalID
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]runtime.VocabularyValue, 0, len(types))
	for _, t := range types {
		v := runtime.VocabularyValue{Value: t}
		if s := m.active(owner{tenant: tenant, user: user}, t); s != nil {
			v.Description = "Fields: " + strings.Join(sortedKeys(s.fields), ", ")
		}
		out = append(out, v)
	}
	return out, nil
}

// typesChanged drops the tenant's cached entity types; m.mu is held.
func (m *Memory) typesChanged(tenant string) {
	if m.vocab != nil {
		m.vocab.Invalidate(tenant)
	}
}
