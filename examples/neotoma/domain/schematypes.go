package domain

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	neotomav1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
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
	// validator names the check of validators the field's strings pass.
	validator   string
	description string
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

// nextMinor is version with its minor number plus one ("1.0" -> "1.1").
func nextMinor(v string) string {
	major, minor, ok := strings.Cut(v, ".")
	n, err := strconv.Atoi(minor)
	if !ok || err != nil {
		return v + ".1"
	}
	return major + "." + strconv.Itoa(n+1)
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
