package domain

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/structpb"

	neotomav1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/suggest"
)

// RegisterSchema registers a schema version of an entity type.
func (m *Memory) RegisterSchema(ctx context.Context, req *neotomav1.RegisterSchemaRequest) (*neotomav1.RegisterSchemaResponse, error) {
	who, err := requireUser(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	fields := req.GetSchemaDefinition().GetFields()
	var es runtime.Errors
	if len(fields) == 0 {
		es = append(es, &runtime.ErrorEntry{Code: runtime.CodeValidation, Field: "schema_definition.fields", Message: "a schema needs at least one field"})
	}
	names := sortedKeys(fields)
	for _, k := range names {
		if !fieldName.MatchString(k) {
			es = append(es, &runtime.ErrorEntry{Code: runtime.CodeValidation, Field: "schema_definition.fields." + k, Message: fmt.Sprintf("field name %q must be snake_case (^[a-z][a-z0-9_]*$)", k)})
		}
		if e := checkValidator("schema_definition.fields."+k+".validator", fields[k]); e != nil {
			es = append(es, e)
		}
	}
	policies := req.GetReducerConfig().GetMergePolicies()
	for _, k := range sortedKeys(policies) {
		f, ok := fields[k]
		switch {
		case !ok:
			es = append(es, &runtime.ErrorEntry{
				Code: runtime.CodeValidation, Field: "reducer_config.merge_policies." + k,
				Message:     fmt.Sprintf("merge policy for %s, which is not a field of the schema", k),
				Suggestions: &runtime.Suggestions{DidYouMean: suggest.Closest(k, names, 3), ValidValues: names},
			})
		case policies[k].GetStrategy() == neotomav1.ReducerStrategy_REDUCER_STRATEGY_MERGE_ARRAY && f.GetType() != tArray:
			es = append(es, mergeArrayOnScalar("reducer_config.merge_policies."+k+".strategy", k, f.GetType()))
		}
	}
	if len(es) > 0 {
		return nil, es
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	scope, scopeName := m.scopeOf(who, req.GetUserSpecific())
	typ, version := req.GetEntityType(), req.GetSchemaVersion()
	if v := scope[typ]; v != nil && v.versions[version] != nil {
		return nil, schemaExists(typ, version, scopeName, v.active)
	}
	s := &schema{
		id: schemaID(who.tenant, scopeName, who.user, typ, version), typ: typ, version: version, scope: scopeName,
		fields: map[string]fieldDef{}, policies: map[string]policy{}, identity: identityOf(m.active(who, typ)),
	}
	for k, f := range fields {
		s.fields[k] = fieldDef{typ: f.GetType(), required: f.GetRequired(), preserveCase: f.GetPreserveCase(), validator: f.GetValidator(), description: f.GetDescription()}
	}
	for k, p := range policies {
		s.policies[k] = policy{strategy: p.GetStrategy(), tie: p.GetTieBreaker()}
	}
	if scope[typ] == nil {
		scope[typ] = &typeSchemas{versions: map[string]*schema{}}
	}
	scope[typ].versions[version] = s
	if req.GetActivate() {
		scope[typ].active = version
		m.typesChanged(who.tenant)
	}
	return &neotomav1.RegisterSchemaResponse{EntityType: typ, SchemaVersion: version, Activated: req.GetActivate(), Scope: scopeName, SchemaId: s.id}, nil
}

// UpdateSchemaIncremental adds fields to the active schema of a type as a
// new version.
func (m *Memory) UpdateSchemaIncremental(ctx context.Context, req *neotomav1.UpdateSchemaIncrementalRequest) (*neotomav1.UpdateSchemaIncrementalResponse, error) {
	who, err := requireUser(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	typ := req.GetEntityType()
	scope, scopeName := m.scopeOf(who, req.GetUserSpecific())
	base := scope[typ].current()
	if base == nil && scopeName == ScopeUser {
		base = m.tenant(who.tenant).global[typ].current() // a user variant starts from the tenant's schema
	}
	if base == nil {
		names := m.types(who)
		return nil, &runtime.ErrorEntry{
			Code: CodeSchemaNotFound, Field: "entity_type",
			Message:     fmt.Sprintf("no active schema for entity type %s; registered types: %s", runtime.Excerpt(typ), strings.Join(names, ", ")),
			Suggestions: &runtime.Suggestions{DidYouMean: suggest.Closest(typ, names, 3), ValidValues: names, Hint: "Register a new type with register_schema."},
		}
	}
	var es runtime.Errors
	seen := map[string]bool{}
	for i, f := range req.GetFieldsToAdd() {
		path := fmt.Sprintf("fields_to_add[%d].field_name", i)
		switch _, exists := base.fields[f.GetFieldName()]; {
		case exists:
			es = append(es, &runtime.ErrorEntry{Code: runtime.CodeValidation, Field: path, Message: fmt.Sprintf("%s is already a field of the %s schema (version %s)", f.GetFieldName(), typ, base.version)})
		case seen[f.GetFieldName()]:
			es = append(es, &runtime.ErrorEntry{Code: runtime.CodeValidation, Field: path, Message: fmt.Sprintf("%s is listed twice", f.GetFieldName())})
		case f.GetReducerStrategy() == neotomav1.ReducerStrategy_REDUCER_STRATEGY_MERGE_ARRAY && f.GetFieldType() != tArray:
			es = append(es, mergeArrayOnScalar(fmt.Sprintf("fields_to_add[%d].reducer_strategy", i), f.GetFieldName(), f.GetFieldType()))
		}
		seen[f.GetFieldName()] = true
	}
	if len(es) > 0 {
		return nil, es
	}
	version := req.GetSchemaVersion()
	if version == "" {
		version = nextMinor(base.version)
	}
	if v := scope[typ]; v != nil && v.versions[version] != nil {
		return nil, schemaExists(typ, version, scopeName, v.active)
	}
	s := &schema{
		id: schemaID(who.tenant, scopeName, who.user, typ, version), typ: typ, version: version, scope: scopeName,
		fields: map[string]fieldDef{}, policies: map[string]policy{}, identity: base.identity,
	}
	for k, f := range base.fields {
		s.fields[k] = f
	}
	for k, p := range base.policies {
		s.policies[k] = p
	}
	added := make([]string, 0, len(req.GetFieldsToAdd()))
	for _, f := range req.GetFieldsToAdd() {
		s.fields[f.GetFieldName()] = fieldDef{typ: f.GetFieldType(), required: f.GetRequired()}
		if f.GetReducerStrategy() != neotomav1.ReducerStrategy_REDUCER_STRATEGY_UNSPECIFIED {
			s.policies[f.GetFieldName()] = policy{strategy: f.GetReducerStrategy()}
		}
		added = append(added, f.GetFieldName())
	}
	s.added = added
	if scope[typ] == nil {
		scope[typ] = &typeSchemas{versions: map[string]*schema{}}
	}
	scope[typ].versions[version] = s
	if req.GetActivate() {
		scope[typ].active = version
		m.typesChanged(who.tenant) // the type's fields changed
	}
	var migrated int32
	if req.GetMigrateExisting() {
		migrated = m.migrate(who, scopeName, s, added, req.GetUpdatedAt().AsTime())
	}
	return &neotomav1.UpdateSchemaIncrementalResponse{
		EntityType: typ, SchemaVersion: version, FieldsAdded: added, Activated: req.GetActivate(),
		MigratedExisting: req.GetMigrateExisting(), Scope: scopeName, FragmentsMigrated: migrated,
	}, nil
}

// migrate moves raw fragments of the added fields into one observation per
// entity of the type: the user's entities for a user schema, every user's
// of the tenant for a global one.
func (m *Memory) migrate(who owner, scope string, s *schema, added []string, at time.Time) int32 {
	var n int32
	for _, o := range sortedOwners(m.users) {
		if o.tenant != who.tenant || (scope == ScopeUser && o.user != who.user) {
			continue
		}
		u := m.users[o]
		for _, id := range sortedKeys(u.entities) {
			e := u.entities[id]
			if e.typ != s.typ || e.mergedInto != "" {
				continue
			}
			obs := &observation{
				id: "obs_" + runtime.ContentHash(s.id, e.id), sourceID: "", priority: defaultPriority,
				version: s.version, fields: map[string]*structpb.Value{}, at: at, order: m.next(),
			}
			for _, k := range added {
				if v, ok := e.rawFragments[k]; ok {
					obs.fields[k] = v
					delete(e.rawFragments, k)
					n++
				}
			}
			if len(obs.fields) > 0 {
				e.observations = append(e.observations, obs)
			}
		}
	}
	return n
}

// ListEntityTypes lists the types the user can store with their active
// schemas; a keyword keeps types whose name or field names contain it.
func (m *Memory) ListEntityTypes(ctx context.Context, req *neotomav1.ListEntityTypesRequest) (*neotomav1.ListEntityTypesResponse, error) {
	who, err := requireUser(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	kw := strings.ToLower(strings.TrimSpace(req.GetKeyword()))
	var out []*neotomav1.EntityTypeInfo
	for _, typ := range m.types(who) {
		s := m.active(who, typ)
		info := &neotomav1.EntityTypeInfo{EntityType: typ, SchemaVersion: s.version, FieldNames: sortedKeys(s.fields), FieldSummary: map[string]*neotomav1.FieldSummary{}, Scope: s.scope}
		for k, f := range s.fields {
			info.FieldSummary[k] = &neotomav1.FieldSummary{Type: FieldTypeName(f.typ), Required: f.required, Validator: f.validator, Description: f.description}
		}
		if kw != "" {
			info.SimilarityScore = keywordScore(kw, typ, info.FieldNames)
			if info.SimilarityScore == 0 {
				continue
			}
			info.MatchType = "keyword"
		}
		out = append(out, info)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].SimilarityScore > out[j].SimilarityScore })
	method := "all"
	if kw != "" {
		method = "keyword_exact"
	}
	return &neotomav1.ListEntityTypesResponse{EntityTypes: out, Total: int32(len(out)), Keyword: req.GetKeyword(), SearchMethod: method}, nil
}
