// Package domain is an in-memory Neotoma truth layer: per-user entities
// built from observations, source material stored by content hash (raw
// files interpreted by a deterministic interpreter, or structured
// entities), corrections that override extracted values, merges of
// duplicates, typed relationships and entity schemas registered per
// tenant at runtime. It implements the generated MemoryServiceHandler and
// answers with Neotoma's canonical error codes (ENTITY_NOT_FOUND,
// SOURCE_NOT_FOUND, ENTITY_ALREADY_MERGED, CYCLE_DETECTED, FILE_NOT_FOUND,
// FILE_TOO_LARGE, QUOTA_EXCEEDED, SCHEMA_EXISTS, SCHEMA_NOT_FOUND,
// VALIDATION_ERROR). Errors never carry stored field values: they may be
// personal data.
package domain

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	neotomav1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/suggest"
)

// Neotoma's canonical error codes that the runtime does not define.
const (
	CodeEntityNotFound          = "ENTITY_NOT_FOUND"
	CodeEntityAlreadyMerged     = "ENTITY_ALREADY_MERGED"
	CodeCycleDetected           = "CYCLE_DETECTED"
	CodeInvalidRelationshipType = "INVALID_RELATIONSHIP_TYPE"
	CodeSourceNotFound          = "SOURCE_NOT_FOUND"
)

// CorrectionPriority is the priority of correction observations: above
// every source priority an agent can set (at most 999).
const CorrectionPriority = 1000

// defaultPriority is the priority of interpreted and migrated observations.
const defaultPriority = 100

// MaxEntities is how many entities one store call may carry.
const MaxEntities = 100

var fieldName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// acyclic relationship types may not form a cycle.
var acyclic = map[neotomav1.RelationshipType]bool{
	neotomav1.RelationshipType_RELATIONSHIP_TYPE_PART_OF:    true,
	neotomav1.RelationshipType_RELATIONSHIP_TYPE_DEPENDS_ON: true,
	neotomav1.RelationshipType_RELATIONSHIP_TYPE_SUPERSEDES: true,
}

// RelationshipTypeName is a relationship type as the API answers it
// ("PART_OF"): the value name without the enum's prefix. Arguments also take
// the agent-facing alias ("part_of").
func RelationshipTypeName(t neotomav1.RelationshipType) string {
	return strings.TrimPrefix(t.String(), "RELATIONSHIP_TYPE_")
}

type observation struct {
	id       string
	sourceID string
	priority int32
	version  string
	fields   map[string]*structpb.Value
	at       time.Time
	order    int // insertion order breaks ties: later wins
}

type entity struct {
	id            string
	typ           string
	canonicalName string
	observations  []*observation
	rawFragments  map[string]*structpb.Value
	mergedInto    string
	order         int
}

// run is one interpretation of a source.
type run struct {
	id           string
	entities     []*neotomav1.StoredEntity
	created      int32
	observations int32
	unknown      int32
}

type source struct {
	id       string
	hash     string
	mimeType string
	filename string
	content  []byte // nil for structured material
	size     int32
	runs     map[string]*run
	first    *run // the run store answers with
	at       time.Time
}

type userMemory struct {
	entities      map[string]*entity
	sources       map[string]*source // by content hash
	relationships map[string]*neotomav1.Relationship
	relTypes      map[string]neotomav1.RelationshipType
	relOrder      map[string]int // creation order: later is newer on equal times
	runs          int            // interpretation runs, against the quota
}

// Memory is the in-memory truth layer, safe for concurrent use. Every record
// belongs to one user of one tenant; another user's IDs (in this tenant or
// any other) do not exist. Entity schemas belong to a tenant (or one user).
type Memory struct {
	mu      sync.Mutex
	now     func() time.Time
	users   map[owner]*userMemory
	tenants map[string]*tenantSchemas
	seq     int

	files   FileOptions
	quota   int // interpretation runs per user; 0 is unlimited
	maxSize int
	// vocab serves the entity_type fields (EntityTypeVocabulary).
	vocab *runtime.Vocabulary
	// urlKey signs file URLs (RetrieveFileUrl).
	urlKey []byte
}

// owner is whose memory a request reads and writes: a user is known by name
// within its tenant only, so the same name in two tenants is two owners.
type owner struct{ tenant, user string }

// New returns an empty memory; now stamps merges and snapshots (nil means
// time.Now). Files are limited to DefaultMaxFileSize, file_path is refused
// and interpretation is unlimited until the setters below say otherwise.
func New(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	m := &Memory{now: now, users: map[owner]*userMemory{}, tenants: map[string]*tenantSchemas{}, maxSize: DefaultMaxFileSize, urlKey: newURLKey()}
	m.vocab = newEntityTypeVocabulary(m)
	return m
}

// SetInterpretationQuota limits interpretation runs per user (0: unlimited).
func (m *Memory) SetInterpretationQuota(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.quota = n
}

// SetMaxFileSize limits the size of stored files in bytes.
func (m *Memory) SetMaxFileSize(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.maxSize = n
}

// SetFiles lets file_path read files under a directory.
func (m *Memory) SetFiles(o FileOptions) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files = o
}

func (m *Memory) user(id owner) *userMemory {
	u, ok := m.users[id]
	if !ok {
		u = &userMemory{
			entities:      map[string]*entity{},
			sources:       map[string]*source{},
			relationships: map[string]*neotomav1.Relationship{},
			relTypes:      map[string]neotomav1.RelationshipType{},
			relOrder:      map[string]int{},
		}
		m.users[id] = u
	}
	return u
}

// requireUser is the owner of a request: the tenant of the call (from the
// request context the generated tools put on ctx) and the acting user. It
// refuses requests without either; the generated code always fills them, so
// an empty one is a wiring bug, not an agent mistake.
func requireUser(ctx context.Context, id string) (owner, error) {
	rc, _ := runtime.RequestContextFrom(ctx)
	if rc.TenantID == "" {
		return owner{}, status.Error(codes.Unauthenticated, "no tenant")
	}
	if id == "" {
		return owner{}, status.Error(codes.Unauthenticated, "no acting user")
	}
	return owner{tenant: rc.TenantID, user: id}, nil
}

func (m *Memory) next() int {
	m.seq++
	return m.seq
}

// entityInput is one entity of structured material, checked.
type entityInput struct {
	typ    string
	name   string
	key    string                     // the identifying key, when the interpreter fixes it
	fields map[string]*structpb.Value // without entity_type and canonical_name
}

// Store records source material: structured entities, or a file that is
// interpreted into entities. The same content is deduplicated by its hash.
func (m *Memory) Store(ctx context.Context, req *neotomav1.StoreRequest) (*neotomav1.StoreResponse, error) {
	who, err := requireUser(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	if req.GetEntities() != nil {
		return m.storeStructured(who, req)
	}
	return m.storeFile(who, req)
}

func (m *Memory) storeStructured(who owner, req *neotomav1.StoreRequest) (*neotomav1.StoreResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ins, err := m.parseEntities(who, req.GetEntities().GetValues(), "entities")
	if err != nil {
		return nil, err
	}
	hash := sha256Hex(canonicalJSON(req.GetEntities()))
	u := m.user(who)
	if s, ok := u.sources[hash]; ok {
		return m.storeAnswer(who, u, s, true), nil
	}
	s := &source{id: SourceID(who.tenant, hash), hash: hash, runs: map[string]*run{}, at: req.GetStoredAt().AsTime()}
	r := m.observe(who, u, s, "run_"+runtime.ContentHash(s.id, "structured"), ins, req.GetSourcePriority(), req.GetStoredAt().AsTime())
	s.first = r
	u.sources[hash] = s
	return m.storeAnswer(who, u, s, false), nil
}

// parseEntities checks structured material: every item an object with a
// registered entity_type, schema fields of the schema's types and every
// required field present. It reports every problem at once.
func (m *Memory) parseEntities(who owner, items []*structpb.Value, path string) ([]entityInput, error) {
	var es runtime.Errors
	if len(items) == 0 || len(items) > MaxEntities {
		return nil, &runtime.ErrorEntry{
			Code: runtime.CodeValidation, Field: path,
			Message:     fmt.Sprintf("%s must hold 1 to %d entities, not %d", path, MaxEntities, len(items)),
			Suggestions: &runtime.Suggestions{Hint: `Send an array of entity objects, e.g. [{"entity_type":"invoice","invoice_number":"INV-001","amount":100}].`},
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

func normalize(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
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

// resolve follows merges to the entity that is kept.
func (u *userMemory) resolve(e *entity) *entity {
	for i := 0; e.mergedInto != "" && i < 64; i++ {
		next, ok := u.entities[e.mergedInto]
		if !ok {
			break
		}
		e = next
	}
	return e
}

// matches reports whether v is a value of a field of type t.
func matches(t neotomav1.FieldType, v *structpb.Value) bool {
	if _, null := v.GetKind().(*structpb.Value_NullValue); null {
		return true // a null says the source had no value
	}
	switch t {
	case neotomav1.FieldType_FIELD_TYPE_NUMBER:
		_, ok := v.GetKind().(*structpb.Value_NumberValue)
		return ok
	case neotomav1.FieldType_FIELD_TYPE_BOOLEAN:
		_, ok := v.GetKind().(*structpb.Value_BoolValue)
		return ok
	case neotomav1.FieldType_FIELD_TYPE_ARRAY:
		_, ok := v.GetKind().(*structpb.Value_ListValue)
		return ok
	case neotomav1.FieldType_FIELD_TYPE_OBJECT:
		_, ok := v.GetKind().(*structpb.Value_StructValue)
		return ok
	case neotomav1.FieldType_FIELD_TYPE_DATE:
		s, ok := v.GetKind().(*structpb.Value_StringValue)
		return ok && isDate(s.StringValue)
	}
	_, ok := v.GetKind().(*structpb.Value_StringValue)
	return ok
}

func isDate(s string) bool {
	if _, err := time.Parse("2006-01-02", s); err == nil {
		return true
	}
	_, err := time.Parse(time.RFC3339, s)
	return err == nil
}

// describe names what a field of type t holds, for messages.
func describe(t neotomav1.FieldType) string {
	if t == neotomav1.FieldType_FIELD_TYPE_DATE {
		return "an ISO 8601 date (YYYY-MM-DD or RFC 3339)"
	}
	return withArticle(FieldTypeName(t))
}

// Correct adds a priority-1000 observation for one field. Repeating the
// latest correction of a field returns its observation instead of adding one.
func (m *Memory) Correct(ctx context.Context, req *neotomav1.CorrectRequest) (*neotomav1.CorrectResponse, error) {
	who, err := requireUser(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	u := m.user(who)
	e, err := u.live(req.GetEntityId(), "entity_id")
	if err != nil {
		return nil, err
	}
	if e.typ != req.GetEntityType() {
		if bad := m.checkType(who, req.GetEntityType(), "entity_type"); bad != nil {
			bad.Suggestions.DidYouMean = []string{e.typ}
			return nil, bad
		}
		return nil, &runtime.ErrorEntry{
			Code: runtime.CodeValidation, Field: "entity_type",
			Message:     fmt.Sprintf("entity %s is %s, not %s", e.id, withArticle(e.typ), withArticle(req.GetEntityType())),
			Details:     map[string]any{"entity_id": e.id, "entity_type": e.typ},
			Suggestions: &runtime.Suggestions{DidYouMean: []string{e.typ}},
		}
	}
	s := m.active(who, e.typ)
	f, ok := s.fields[req.GetField()]
	if !ok {
		names := sortedKeys(s.fields)
		return nil, &runtime.ErrorEntry{
			Code: runtime.CodeValidation, Field: "field",
			Message: fmt.Sprintf("%s is not a field of the %s schema", req.GetField(), e.typ),
			Suggestions: &runtime.Suggestions{
				DidYouMean:  suggest.Closest(req.GetField(), names, 3),
				ValidValues: names,
				Hint:        "Only schema fields can be corrected; list_entity_types shows each type's fields, update_schema_incremental adds one.",
			},
		}
	}
	if !matches(f.typ, req.GetValue()) {
		return nil, &runtime.ErrorEntry{
			Code: runtime.CodeValidation, Field: "value",
			Message:     fmt.Sprintf("%s of %s must be %s", req.GetField(), withArticle(e.typ), describe(f.typ)),
			Details:     map[string]any{"expected": FieldTypeName(f.typ)},
			Suggestions: &runtime.Suggestions{Hint: "Send the value as a JSON " + FieldTypeName(f.typ) + ", not quoted or formatted."},
		}
	}
	if last := latestCorrection(e, req.GetField()); last != nil && proto.Equal(last.fields[req.GetField()], req.GetValue()) {
		return &neotomav1.CorrectResponse{
			ObservationId: last.id, EntityId: e.id, Field: req.GetField(), Value: req.GetValue(),
			Message: "The same correction was already applied; no new observation was created.",
		}, nil
	}
	obs := &observation{
		id: req.GetObservationId(), priority: req.GetPriority(), version: s.version, at: req.GetCorrectedAt().AsTime(), order: m.next(),
		fields: map[string]*structpb.Value{req.GetField(): req.GetValue()},
	}
	e.observations = append(e.observations, obs)
	return &neotomav1.CorrectResponse{
		ObservationId: obs.id, EntityId: e.id, Field: req.GetField(), Value: req.GetValue(),
		Message: fmt.Sprintf("Correction recorded; the entity snapshot now reads %s from it.", req.GetField()),
	}, nil
}

func latestCorrection(e *entity, field string) *observation {
	var last *observation
	for _, o := range e.observations {
		if _, ok := o.fields[field]; ok && o.priority >= CorrectionPriority {
			last = o
		}
	}
	return last
}

// lookup finds an entity of the user; field names the argument for errors.
func (u *userMemory) lookup(id, field string) (*entity, *runtime.ErrorEntry) {
	if e, ok := u.entities[id]; ok {
		return e, nil
	}
	return nil, notFound(id, field)
}

// live is lookup that also refuses merged entities.
func (u *userMemory) live(id, field string) (*entity, error) {
	e, nf := u.lookup(id, field)
	if nf != nil {
		return nil, nf
	}
	if e.mergedInto != "" {
		return nil, alreadyMerged(e, field)
	}
	return e, nil
}

func notFound(id, field string) *runtime.ErrorEntry {
	return &runtime.ErrorEntry{
		Code: CodeEntityNotFound, Field: field,
		Message:     fmt.Sprintf("entity %s not found", id),
		Details:     map[string]any{"entity_id": id},
		Suggestions: &runtime.Suggestions{Hint: "Use an entity_id returned by store or retrieve_entities; entities are visible only to the user who stored them."},
	}
}

func alreadyMerged(e *entity, field string) *runtime.ErrorEntry {
	return &runtime.ErrorEntry{
		Code: CodeEntityAlreadyMerged, Field: field,
		Message:     fmt.Sprintf("entity %s was merged into %s", e.id, e.mergedInto),
		Details:     map[string]any{"entity_id": e.id, "merged_into": e.mergedInto},
		Suggestions: &runtime.Suggestions{Hint: "Use the entity it was merged into: " + e.mergedInto},
	}
}

// ResolveObservationsToMove checks a merge before it is proposed or
// confirmed and counts the observations that will move, so the user sees
// what changes and a merge confirmed against an older state is stale.
func (m *Memory) ResolveObservationsToMove(ctx context.Context, in proto.Message) (int32, error) {
	req, ok := in.(*neotomav1.MergeEntitiesRequest)
	if !ok {
		return 0, status.Errorf(codes.Internal, "observations_to_move resolves merges, not %T", in)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	from, _, err := m.checkMerge(ctx, req)
	if err != nil {
		return 0, err
	}
	return int32(len(from.observations)), nil
}

// checkMerge reports every reason the merge cannot happen.
func (m *Memory) checkMerge(ctx context.Context, req *neotomav1.MergeEntitiesRequest) (from, to *entity, err error) {
	who, err := requireUser(ctx, req.GetUserId())
	if err != nil {
		return nil, nil, err
	}
	if req.GetFromEntityId() == req.GetToEntityId() {
		return nil, nil, &runtime.ErrorEntry{
			Code: runtime.CodeValidation, Field: "to_entity_id",
			Message:     "an entity cannot be merged into itself",
			Suggestions: &runtime.Suggestions{Hint: "from_entity_id is the duplicate that disappears; to_entity_id is a different entity that is kept."},
		}
	}
	u := m.user(who)
	var es runtime.Errors
	from, nf := u.lookup(req.GetFromEntityId(), "from_entity_id")
	if nf != nil {
		es = append(es, nf)
	}
	to, nt := u.lookup(req.GetToEntityId(), "to_entity_id")
	if nt != nil {
		es = append(es, nt)
	}
	if len(es) > 0 {
		return nil, nil, es
	}
	if from.mergedInto != "" {
		es = append(es, alreadyMerged(from, "from_entity_id"))
	}
	if to.mergedInto != "" {
		es = append(es, alreadyMerged(to, "to_entity_id"))
	}
	if len(es) > 0 {
		return nil, nil, es
	}
	if from.typ != to.typ {
		return nil, nil, &runtime.ErrorEntry{
			Code: runtime.CodeValidation, Field: "to_entity_id",
			Message: fmt.Sprintf("cannot merge %s into %s: only entities of one type are duplicates", withArticle(from.typ), withArticle(to.typ)),
			Details: map[string]any{"from_entity_type": from.typ, "to_entity_type": to.typ},
		}
	}
	return from, to, nil
}

// MergeEntities moves every observation and raw fragment of the duplicate
// to the kept entity and marks the duplicate merged.
func (m *Memory) MergeEntities(ctx context.Context, req *neotomav1.MergeEntitiesRequest) (*neotomav1.MergeEntitiesResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	from, to, err := m.checkMerge(ctx, req)
	if err != nil {
		return nil, err
	}
	if n := int32(len(from.observations)); n != req.GetObservationsToMove() {
		return nil, status.Errorf(codes.FailedPrecondition, "entity %s now has %d observations, not the %d that were confirmed", from.id, n, req.GetObservationsToMove())
	}
	moved := int32(len(from.observations))
	to.observations = append(to.observations, from.observations...)
	for k, v := range from.rawFragments {
		if _, ok := to.rawFragments[k]; !ok {
			to.rawFragments[k] = v
		}
	}
	from.observations, from.rawFragments, from.mergedInto = nil, map[string]*structpb.Value{}, to.id
	return &neotomav1.MergeEntitiesResponse{
		FromEntityId: from.id, ToEntityId: to.id, ObservationsMoved: moved,
		MergedAt: timestamppb.New(m.now()), MergeReason: req.GetMergeReason(),
	}, nil
}

// CreateRelationship relates two live entities. The ID is a content hash,
// so creating the same relationship again returns the existing one.
func (m *Memory) CreateRelationship(ctx context.Context, req *neotomav1.CreateRelationshipRequest) (*neotomav1.CreateRelationshipResponse, error) {
	who, err := requireUser(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	u := m.user(who)
	var es runtime.Errors
	for _, ref := range []struct{ id, field string }{{req.GetSourceEntityId(), "source_entity_id"}, {req.GetTargetEntityId(), "target_entity_id"}} {
		if _, err := u.live(ref.id, ref.field); err != nil {
			es = append(es, err.(*runtime.ErrorEntry))
		}
	}
	if len(es) > 0 {
		return nil, es
	}
	if req.GetSourceEntityId() == req.GetTargetEntityId() {
		return nil, &runtime.ErrorEntry{Code: runtime.CodeValidation, Field: "target_entity_id", Message: "an entity cannot be related to itself"}
	}
	if r, ok := u.relationships[req.GetId()]; ok {
		return relationshipAnswer(r), nil
	}
	t := req.GetRelationshipType()
	if acyclic[t] && u.reaches(t, req.GetTargetEntityId(), req.GetSourceEntityId()) {
		return nil, &runtime.ErrorEntry{
			Code: CodeCycleDetected, Field: "target_entity_id",
			Message:     fmt.Sprintf("%s from %s to %s would create a cycle", RelationshipTypeName(t), req.GetSourceEntityId(), req.GetTargetEntityId()),
			Details:     map[string]any{"relationship_type": RelationshipTypeName(t)},
			Suggestions: &runtime.Suggestions{Hint: "The target already reaches the source through " + RelationshipTypeName(t) + " relationships; check the direction (source " + RelationshipTypeName(t) + " target)."},
		}
	}
	r := &neotomav1.Relationship{
		Id: req.GetId(), RelationshipType: RelationshipTypeName(t),
		SourceEntityId: req.GetSourceEntityId(), TargetEntityId: req.GetTargetEntityId(),
		Metadata: req.GetMetadata(), CreatedAt: req.GetCreatedAt(),
	}
	u.relationships[r.Id] = r
	u.relTypes[r.Id] = t
	u.relOrder[r.Id] = m.next()
	return relationshipAnswer(r), nil
}

func relationshipAnswer(r *neotomav1.Relationship) *neotomav1.CreateRelationshipResponse {
	return &neotomav1.CreateRelationshipResponse{
		Id: r.GetId(), RelationshipType: r.GetRelationshipType(), SourceEntityId: r.GetSourceEntityId(),
		TargetEntityId: r.GetTargetEntityId(), Metadata: r.GetMetadata(), CreatedAt: r.GetCreatedAt(),
	}
}

// reaches reports whether from reaches to through relationships of type t.
func (u *userMemory) reaches(t neotomav1.RelationshipType, from, to string) bool {
	seen := map[string]bool{}
	stack := []string{from}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == to {
			return true
		}
		if seen[n] {
			continue
		}
		seen[n] = true
		for id, r := range u.relationships {
			if u.relTypes[id] == t && r.GetSourceEntityId() == n {
				stack = append(stack, r.GetTargetEntityId())
			}
		}
	}
	return false
}

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

// canonicalJSON is m as JSON with sorted keys.
func canonicalJSON(m proto.Message) []byte {
	var v any
	switch x := m.(type) {
	case *structpb.Struct:
		v = x.AsMap()
	case *structpb.ListValue:
		v = x.AsSlice()
	case *structpb.Value:
		v = x.AsInterface()
	}
	b, _ := json.Marshal(v) // values of structpb types always marshal; map keys are sorted
	return b
}

// withArticle prefixes a type name with "a" or "an".
func withArticle(name string) string {
	if name != "" && strings.ContainsRune("aeiou", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

// UserIDHint answers agents that try to pass user_id, which Neotoma's
// older API documentation still shows as an argument.
const UserIDHint = "Do not send user_id: the acting user comes from the authenticated connection. Remove the argument and retry."

// SchemaNotFoundHint is the way out of SCHEMA_NOT_FOUND on
// update_schema_incremental.
const SchemaNotFoundHint = "Add fields to one of valid_values (the types with an active schema), or register the type with register_schema and activate: true."

// ErrorHook adapts runtime errors to Neotoma's conventions: the generic enum
// error on relationship_type becomes INVALID_RELATIONSHIP_TYPE, which its
// clients already handle, on update_schema_incremental's entity_type
// SCHEMA_NOT_FOUND, and a user_id argument gets an explanation.
func ErrorHook(_ context.Context, tool string, _ proto.Message, e *runtime.ErrorEntry) {
	switch {
	case e.Code == runtime.CodeInvalidEnumValue && e.Field == "relationship_type":
		e.Code = CodeInvalidRelationshipType
	case e.Code == runtime.CodeInvalidEnumValue && e.Field == "entity_type" && tool == "update_schema_incremental":
		// The live vocabulary holds the types with an active schema, so a
		// type outside it has none to add fields to: the document's code.
		e.Code = CodeSchemaNotFound
		if e.Suggestions == nil {
			e.Suggestions = &runtime.Suggestions{}
		}
		e.Suggestions.Hint = SchemaNotFoundHint
	case e.Code == runtime.CodeUnknownField && e.Field == "user_id":
		if e.Suggestions == nil {
			e.Suggestions = &runtime.Suggestions{}
		}
		e.Suggestions.Hint = UserIDHint
	}
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
