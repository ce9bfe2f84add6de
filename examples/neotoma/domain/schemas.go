package domain

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/suggest"
)

// tenant returns the tenant's schemas, seeding the built-in types.
func (m *Memory) tenant(id string) *tenantSchemas {
	ts, ok := m.tenants[id]
	if ok {
		return ts
	}
	ts = &tenantSchemas{global: map[string]*typeSchemas{}, users: map[string]map[string]*typeSchemas{}}
	for _, b := range builtins {
		s := &schema{id: schemaID(id, ScopeGlobal, "", b.typ, "1.0"), typ: b.typ, version: "1.0", scope: ScopeGlobal, fields: map[string]fieldDef{}, policies: map[string]policy{}, identity: b.identity}
		for k, t := range b.fields {
			s.fields[k] = fieldDef{typ: t}
		}
		ts.global[b.typ] = &typeSchemas{versions: map[string]*schema{"1.0": s}, active: "1.0"}
	}
	m.tenants[id] = ts
	return ts
}

// active is the schema the user's material of type typ follows: the user's
// own active variant first, then the tenant's.
func (m *Memory) active(who owner, typ string) *schema {
	ts := m.tenant(who.tenant)
	if s := ts.users[who.user][typ].current(); s != nil {
		return s
	}
	return ts.global[typ].current()
}

// types lists the entity types the user can store, sorted.
func (m *Memory) types(who owner) []string {
	ts := m.tenant(who.tenant)
	seen := map[string]bool{}
	for typ, v := range ts.global {
		if v.current() != nil {
			seen[typ] = true
		}
	}
	for typ, v := range ts.users[who.user] {
		if v.current() != nil {
			seen[typ] = true
		}
	}
	return sortedKeys(seen)
}

// EntityTypes lists the entity types registered in a tenant with an active
// schema, sorted: the built-in types, the tenant's global registrations
// and, when ctx carries a principal of that tenant, that user's own.
func (m *Memory) EntityTypes(ctx context.Context, tenant string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	user := ""
	if rc, ok := runtime.RequestContextFrom(ctx); ok && rc.TenantID == tenant {
		user = rc.PrincipalID
	}
	return m.types(owner{tenant: tenant, user: user})
}

// checkType answers VALIDATION_ERROR listing the registered types when typ
// is not one of them.
func (m *Memory) checkType(who owner, typ, field string) *runtime.ErrorEntry {
	if m.active(who, typ) != nil {
		return nil
	}
	names := m.types(who)
	hint := "Call list_entity_types to choose a type, or register_schema to register a new one."
	if m.registeredInactive(who, typ) {
		hint = "Entity type " + typ + " is registered but no version is active: register_schema with activate: true, or update_schema_incremental, activates one."
	}
	return &runtime.ErrorEntry{
		Code: runtime.CodeValidation, Field: field,
		// The agent's text is quoted as an excerpt only: no PII in errors.
		Message: fmt.Sprintf("unknown entity type %s; registered types: %s", runtime.Excerpt(typ), strings.Join(names, ", ")),
		Suggestions: &runtime.Suggestions{
			DidYouMean:  suggest.Closest(typ, names, 3),
			ValidValues: names,
			Hint:        hint,
		},
	}
}

func (m *Memory) registeredInactive(who owner, typ string) bool {
	ts := m.tenant(who.tenant)
	return ts.global[typ] != nil || ts.users[who.user][typ] != nil
}

// scopeOf is where a schema action writes: the user's variants or the tenant's.
func (m *Memory) scopeOf(who owner, userSpecific bool) (map[string]*typeSchemas, string) {
	ts := m.tenant(who.tenant)
	if !userSpecific {
		return ts.global, ScopeGlobal
	}
	if ts.users[who.user] == nil {
		ts.users[who.user] = map[string]*typeSchemas{}
	}
	return ts.users[who.user], ScopeUser
}

func sortedOwners(m map[owner]*userMemory) []owner {
	out := make([]owner, 0, len(m))
	for o := range m {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].tenant != out[j].tenant {
			return out[i].tenant < out[j].tenant
		}
		return out[i].user < out[j].user
	})
	return out
}
