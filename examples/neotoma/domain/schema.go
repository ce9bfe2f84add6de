package domain

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/structpb"

	neotomav1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/suggest"
)

// Schema error codes of Neotoma's schema actions.
const (
	CodeSchemaExists   = "SCHEMA_EXISTS"
	CodeSchemaNotFound = "SCHEMA_NOT_FOUND"
)

// Scopes of a schema: every user of the tenant, or one user.
const (
	ScopeGlobal = "global"
	ScopeUser   = "user"
)

// fieldDef is one field of an entity schema.
type fieldDef struct {
	typ          neotomav1.FieldType
	required     bool
	preserveCase bool
}

// policy is how one field's observations merge.
type policy struct {
	strategy neotomav1.ReducerStrategy
	tie      neotomav1.TieBreaker
}

// schema is one version of an entity type's schema.
type schema struct {
	id       string
	typ      string
	version  string
	scope    string
	fields   map[string]fieldDef
	policies map[string]policy
	// identity lists the fields that name an entity, in order of preference.
	identity []string
	// added lists the fields update_schema_incremental added in this version.
	added []string
}

// typeSchemas are the versions of one entity type in one scope.
type typeSchemas struct {
	versions map[string]*schema
	active   string // "" until a version is activated
}

func (ts *typeSchemas) current() *schema {
	if ts == nil || ts.active == "" {
		return nil
	}
	return ts.versions[ts.active]
}

// tenantSchemas are a tenant's schemas: the global ones (seeded with the
// built-in types) and each user's own variants.
type tenantSchemas struct {
	global map[string]*typeSchemas
	users  map[string]map[string]*typeSchemas
}

// FieldTypeName is the agent-facing name of a field type ("date").
func FieldTypeName(t neotomav1.FieldType) string {
	return strings.ToLower(strings.TrimPrefix(t.String(), "FIELD_TYPE_"))
}

// builtin is one of the entity types every tenant starts with.
type builtin struct {
	typ      string
	identity []string
	fields   map[string]neotomav1.FieldType
}

const (
	tString = neotomav1.FieldType_FIELD_TYPE_STRING
	tNumber = neotomav1.FieldType_FIELD_TYPE_NUMBER
	tDate   = neotomav1.FieldType_FIELD_TYPE_DATE
	tArray  = neotomav1.FieldType_FIELD_TYPE_ARRAY
)

// builtins are Neotoma's documented entity types, each at schema version 1.0.
var builtins = []builtin{
	{"invoice", []string{"invoice_number"}, map[string]neotomav1.FieldType{"invoice_number": tString, "vendor": tString, "amount": tNumber, "currency": tString, "issue_date": tDate, "due_date": tDate, "status": tString}},
	{"transaction", []string{"transaction_id"}, map[string]neotomav1.FieldType{"transaction_id": tString, "amount": tNumber, "currency": tString, "date": tDate, "merchant": tString, "category": tString}},
	{"receipt", []string{"receipt_number"}, map[string]neotomav1.FieldType{"receipt_number": tString, "merchant": tString, "amount": tNumber, "currency": tString, "date": tDate}},
	{"contract", []string{"contract_number", "title"}, map[string]neotomav1.FieldType{"contract_number": tString, "title": tString, "parties": tArray, "effective_date": tDate, "expiry_date": tDate, "status": tString}},
	{"note", []string{"title"}, map[string]neotomav1.FieldType{"title": tString, "content": tString}},
	{"person", []string{"email", "name"}, map[string]neotomav1.FieldType{"name": tString, "email": tString, "phone": tString, "birth_date": tDate}},
	{"company", []string{"name"}, map[string]neotomav1.FieldType{"name": tString, "domain": tString, "industry": tString}},
	{"contact", []string{"email", "name"}, map[string]neotomav1.FieldType{"name": tString, "email": tString, "phone": tString, "company": tString}},
	{"task", []string{"title"}, map[string]neotomav1.FieldType{"title": tString, "status": tString, "due_date": tDate, "priority": tString}},
	{"feature_unit", []string{"name"}, map[string]neotomav1.FieldType{"name": tString, "status": tString, "description": tString}},
	{"release", []string{"version"}, map[string]neotomav1.FieldType{"version": tString, "status": tString, "released_at": tDate}},
	{"agent_decision", []string{"title"}, map[string]neotomav1.FieldType{"title": tString, "decision": tString, "rationale": tString, "decided_at": tDate}},
	{"agent_session", []string{"session_id"}, map[string]neotomav1.FieldType{"session_id": tString, "agent_id": tString, "started_at": tDate, "summary": tString}},
	{"validation_result", []string{"name"}, map[string]neotomav1.FieldType{"name": tString, "status": tString, "details": tString, "validated_at": tDate}},
	{"codebase_entity", []string{"name"}, map[string]neotomav1.FieldType{"name": tString, "kind": tString, "path": tString}},
	{"architectural_decision", []string{"title"}, map[string]neotomav1.FieldType{"title": tString, "status": tString, "context": tString, "decision": tString, "consequences": tString}},
}

// BuiltinEntityTypes are the entity types every tenant starts with, sorted.
func BuiltinEntityTypes() []string {
	out := make([]string, len(builtins))
	for i, b := range builtins {
		out[i] = b.typ
	}
	sort.Strings(out)
	return out
}

// fallbackIdentity names entities of types without identifying fields.
var fallbackIdentity = []string{"name", "title", "email"}

func schemaID(tenant, scope, user, typ, version string) string {
	if scope == ScopeGlobal {
		user = ""
	}
	return "sch_" + runtime.ContentHash(tenant, scope, user, typ, version)
}

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
		s.fields[k] = fieldDef{typ: f.GetType(), required: f.GetRequired(), preserveCase: f.GetPreserveCase()}
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

func identityOf(s *schema) []string {
	if s == nil {
		return nil
	}
	return s.identity
}

func mergeArrayOnScalar(field, name string, t neotomav1.FieldType) *runtime.ErrorEntry {
	return &runtime.ErrorEntry{
		Code: runtime.CodeValidation, Field: field,
		Message:     fmt.Sprintf("merge_array joins arrays, and %s is a %s field", name, FieldTypeName(t)),
		Suggestions: &runtime.Suggestions{Hint: "Use last_write or highest_priority for fields that are not arrays."},
	}
}

func schemaExists(typ, version, scope, active string) *runtime.ErrorEntry {
	details := map[string]any{"entity_type": typ, "schema_version": version, "scope": scope}
	if active != "" {
		details["active_version"] = active
	}
	return &runtime.ErrorEntry{
		Code: CodeSchemaExists, Field: "schema_version",
		Message:     fmt.Sprintf("schema version %s of %s already exists (%s scope)", version, typ, scope),
		Details:     details,
		Suggestions: &runtime.Suggestions{Hint: "Register a higher schema_version, or add fields with update_schema_incremental."},
	}
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

// nextMinor is version with its minor number plus one ("1.0" -> "1.1").
func nextMinor(v string) string {
	major, minor, ok := strings.Cut(v, ".")
	n, err := strconv.Atoi(minor)
	if !ok || err != nil {
		return v + ".1"
	}
	return major + "." + strconv.Itoa(n+1)
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
			info.FieldSummary[k] = &neotomav1.FieldSummary{Type: FieldTypeName(f.typ), Required: f.required}
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

// keywordScore is 1 for the type's own name, 0.8 when the name contains
// the keyword, 0.5 when a field name does, else 0.
func keywordScore(kw, typ string, fields []string) float64 {
	switch {
	case typ == kw:
		return 1
	case strings.Contains(typ, kw):
		return 0.8
	}
	for _, f := range fields {
		if strings.Contains(f, kw) {
			return 0.5
		}
	}
	return 0
}
