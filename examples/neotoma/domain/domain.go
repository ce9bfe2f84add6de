// Package domain is an in-memory Neotoma truth layer: per-user entities
// built from observations, corrections that override extracted values,
// merges of duplicates and typed relationships. It implements the
// generated MemoryServiceHandler and answers with Neotoma's canonical error
// codes (ENTITY_NOT_FOUND, ENTITY_ALREADY_MERGED, CYCLE_DETECTED,
// VALIDATION_ERROR). Errors never carry field values: they may be personal data.
package domain

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
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
)

// CorrectionPriority is the priority of correction observations: above
// every source priority an agent can set (at most 999).
const CorrectionPriority = 1000

// fieldKind is the JSON type a schema field holds.
type fieldKind int

const (
	kindString fieldKind = iota
	kindNumber
)

func (k fieldKind) String() string {
	if k == kindNumber {
		return "number"
	}
	return "string"
}

// schemas are the entity schemas; fields outside them are raw fragments.
var schemas = map[neotomav1.EntityType]map[string]fieldKind{
	neotomav1.EntityType_ENTITY_TYPE_PERSON:      {"name": kindString, "email": kindString, "phone": kindString, "birth_date": kindString},
	neotomav1.EntityType_ENTITY_TYPE_COMPANY:     {"name": kindString, "domain": kindString, "industry": kindString},
	neotomav1.EntityType_ENTITY_TYPE_INVOICE:     {"invoice_number": kindString, "vendor": kindString, "amount": kindNumber, "currency": kindString, "issue_date": kindString, "due_date": kindString, "status": kindString},
	neotomav1.EntityType_ENTITY_TYPE_TRANSACTION: {"amount": kindNumber, "currency": kindString, "date": kindString, "merchant": kindString, "category": kindString},
	neotomav1.EntityType_ENTITY_TYPE_TASK:        {"title": kindString, "status": kindString, "due_date": kindString, "priority": kindString},
	neotomav1.EntityType_ENTITY_TYPE_NOTE:        {"title": kindString, "content": kindString},
}

// acyclic relationship types may not form a cycle.
var acyclic = map[neotomav1.RelationshipType]bool{
	neotomav1.RelationshipType_RELATIONSHIP_TYPE_PART_OF:    true,
	neotomav1.RelationshipType_RELATIONSHIP_TYPE_DEPENDS_ON: true,
	neotomav1.RelationshipType_RELATIONSHIP_TYPE_SUPERSEDES: true,
}

// TypeName is the agent-facing name of an entity type ("invoice").
func TypeName(t neotomav1.EntityType) string {
	return strings.ToLower(strings.TrimPrefix(t.String(), "ENTITY_TYPE_"))
}

// RelationshipTypeName is the agent-facing name of a relationship type ("part_of").
func RelationshipTypeName(t neotomav1.RelationshipType) string {
	return strings.ToLower(strings.TrimPrefix(t.String(), "RELATIONSHIP_TYPE_"))
}

type observation struct {
	id       string
	sourceID string
	priority int32
	fields   map[string]*structpb.Value
	at       time.Time
	order    int // insertion order breaks priority ties: later wins
}

type entity struct {
	id            string
	typ           neotomav1.EntityType
	canonicalName string
	observations  []*observation
	rawFragments  map[string]*structpb.Value
	mergedInto    string
}

type source struct {
	id       string
	hash     string
	entities []*neotomav1.StoredEntity
	unknown  int32
}

type userMemory struct {
	entities      map[string]*entity
	sources       map[string]*source // by content hash
	relationships map[string]*neotomav1.Relationship
	relTypes      map[string]neotomav1.RelationshipType
}

// Memory is the in-memory truth layer, safe for concurrent use. Every record
// belongs to one user of one tenant; another user's IDs (in this tenant or
// any other) do not exist.
type Memory struct {
	mu    sync.Mutex
	now   func() time.Time
	users map[owner]*userMemory
	seq   int
}

// owner is whose memory a request reads and writes: a user is known by name
// within its tenant only, so the same name in two tenants is two owners.
type owner struct{ tenant, user string }

// New returns an empty memory; now stamps merges (nil means time.Now).
func New(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{now: now, users: map[owner]*userMemory{}}
}

func (m *Memory) user(id owner) *userMemory {
	u, ok := m.users[id]
	if !ok {
		u = &userMemory{
			entities:      map[string]*entity{},
			sources:       map[string]*source{},
			relationships: map[string]*neotomav1.Relationship{},
			relTypes:      map[string]neotomav1.RelationshipType{},
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

// Store records structured source material: the same material stored twice
// is deduplicated by its content hash; each entity gets one observation.
func (m *Memory) Store(ctx context.Context, req *neotomav1.StoreRequest) (*neotomav1.StoreResponse, error) {
	who, err := requireUser(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	if err := checkFieldTypes(req.GetEntities()); err != nil {
		return nil, err
	}
	hash, err := contentHash(req.GetEntities())
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	u := m.user(who)
	if s, ok := u.sources[hash]; ok {
		out := make([]*neotomav1.StoredEntity, len(s.entities))
		for i, e := range s.entities {
			out[i] = &neotomav1.StoredEntity{EntityId: e.GetEntityId(), EntityType: e.GetEntityType(), ObservationId: e.GetObservationId()}
		}
		return &neotomav1.StoreResponse{SourceId: s.id, ContentHash: hash, Deduplicated: true, Entities: out, UnknownFieldsCount: s.unknown}, nil
	}
	s := &source{id: "src_" + hash[:32], hash: hash}
	at := req.GetStoredAt().AsTime()
	for _, in := range req.GetEntities() {
		e, created := u.entities[in.GetEntityId()], false
		if e == nil {
			e = &entity{id: in.GetEntityId(), typ: in.GetEntityType(), canonicalName: in.GetCanonicalName(), rawFragments: map[string]*structpb.Value{}}
			u.entities[e.id] = e
			created = true
		}
		e = u.resolve(e) // material about a merged duplicate belongs to the kept entity
		schema := schemas[e.typ]
		obs := &observation{id: in.GetObservationId(), sourceID: s.id, priority: req.GetSourcePriority(), fields: map[string]*structpb.Value{}, at: at, order: m.next()}
		for _, k := range sortedKeys(in.GetFields().GetFields()) {
			v := in.GetFields().GetFields()[k]
			if _, ok := schema[k]; ok {
				obs.fields[k] = v
			} else {
				e.rawFragments[k] = v
				s.unknown++
			}
		}
		e.observations = append(e.observations, obs)
		s.entities = append(s.entities, &neotomav1.StoredEntity{EntityId: e.id, EntityType: TypeName(e.typ), ObservationId: obs.id, Created: created})
	}
	u.sources[hash] = s
	return &neotomav1.StoreResponse{SourceId: s.id, ContentHash: hash, Entities: s.entities, UnknownFieldsCount: s.unknown}, nil
}

func (m *Memory) next() int {
	m.seq++
	return m.seq
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

// checkFieldTypes reports every schema field whose JSON type is wrong, as
// InvalidArgument with one BadRequest violation each; values are not echoed.
func checkFieldTypes(entities []*neotomav1.EntityInput) error {
	var vs []*errdetails.BadRequest_FieldViolation
	for i, in := range entities {
		schema := schemas[in.GetEntityType()]
		fields := in.GetFields().GetFields()
		for _, k := range sortedKeys(fields) {
			want, ok := schema[k]
			if !ok || kindOf(fields[k]) == want {
				continue
			}
			vs = append(vs, &errdetails.BadRequest_FieldViolation{
				Field:       fmt.Sprintf("entities[%d].fields.%s", i, k),
				Description: fmt.Sprintf("%s of %s must be a %s", k, withArticle(TypeName(in.GetEntityType())), want),
				Reason:      "FIELD_TYPE_MISMATCH",
			})
		}
	}
	if len(vs) == 0 {
		return nil
	}
	st, err := status.New(codes.InvalidArgument, "entity fields do not match their schema").WithDetails(&errdetails.BadRequest{FieldViolations: vs})
	if err != nil {
		return status.Error(codes.InvalidArgument, "entity fields do not match their schema")
	}
	return st.Err()
}

// kindOf is the schema kind a value has; -1 for values no schema field holds.
func kindOf(v *structpb.Value) fieldKind {
	switch v.GetKind().(type) {
	case *structpb.Value_StringValue:
		return kindString
	case *structpb.Value_NumberValue:
		return kindNumber
	}
	return -1
}

// contentHash is the SHA-256 of the material itself (type, name and fields
// of each entity), so the same material always gets the same source.
func contentHash(entities []*neotomav1.EntityInput) (string, error) {
	type item struct {
		Type   string         `json:"entity_type"`
		Name   string         `json:"canonical_name"`
		Fields map[string]any `json:"fields"`
	}
	items := make([]item, len(entities))
	for i, e := range entities {
		items[i] = item{Type: TypeName(e.GetEntityType()), Name: e.GetCanonicalName(), Fields: e.GetFields().AsMap()}
	}
	b, err := json.Marshal(items) // map keys are sorted: canonical
	if err != nil {
		return "", status.Error(codes.Internal, "hash material")
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
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
		return nil, &runtime.ErrorEntry{
			Code: runtime.CodeValidation, Field: "entity_type",
			Message:     fmt.Sprintf("entity %s is %s, not %s", e.id, withArticle(TypeName(e.typ)), withArticle(TypeName(req.GetEntityType()))),
			Details:     map[string]any{"entity_id": e.id, "entity_type": TypeName(e.typ)},
			Suggestions: &runtime.Suggestions{DidYouMean: []string{TypeName(e.typ)}},
		}
	}
	schema := schemas[e.typ]
	want, ok := schema[req.GetField()]
	if !ok {
		names := sortedKeys(schema)
		return nil, &runtime.ErrorEntry{
			Code: runtime.CodeValidation, Field: "field",
			Message: fmt.Sprintf("%s is not a field of the %s schema", req.GetField(), TypeName(e.typ)),
			Suggestions: &runtime.Suggestions{
				DidYouMean:  suggest.Closest(req.GetField(), names, 3),
				ValidValues: names,
				Hint:        "Only schema fields can be corrected; list_entity_types shows each type's fields.",
			},
		}
	}
	if kindOf(req.GetValue()) != want {
		return nil, &runtime.ErrorEntry{
			Code: runtime.CodeValidation, Field: "value",
			Message:     fmt.Sprintf("%s of %s must be a %s", req.GetField(), withArticle(TypeName(e.typ)), want),
			Details:     map[string]any{"expected": want.String()},
			Suggestions: &runtime.Suggestions{Hint: "Send the value as a JSON " + want.String() + ", not quoted or formatted."},
		}
	}
	if last := latestCorrection(e, req.GetField()); last != nil && proto.Equal(last.fields[req.GetField()], req.GetValue()) {
		return &neotomav1.CorrectResponse{
			ObservationId: last.id, EntityId: e.id, Field: req.GetField(), Value: req.GetValue(),
			Message: "The same correction was already applied; no new observation was created.",
		}, nil
	}
	obs := &observation{
		id: req.GetObservationId(), priority: req.GetPriority(), at: req.GetCorrectedAt().AsTime(), order: m.next(),
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
		Suggestions: &runtime.Suggestions{Hint: "Use an entity_id returned by store; entities are visible only to the user who stored them."},
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
			Message: fmt.Sprintf("cannot merge %s into %s: only entities of one type are duplicates", withArticle(TypeName(from.typ)), withArticle(TypeName(to.typ))),
			Details: map[string]any{"from_entity_type": TypeName(from.typ), "to_entity_type": TypeName(to.typ)},
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
		return &neotomav1.CreateRelationshipResponse{Relationship: r}, nil
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
	return &neotomav1.CreateRelationshipResponse{Relationship: r}, nil
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

// Snapshot is the current view of an entity: per field, the value of the
// observation with the highest priority (the latest on a tie).
func (m *Memory) Snapshot(tenant, userID, entityID string) (map[string]any, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	u, ok := m.users[owner{tenant: tenant, user: userID}]
	if !ok {
		return nil, false
	}
	e, ok := u.entities[entityID]
	if !ok {
		return nil, false
	}
	e = u.resolve(e)
	best := map[string]*observation{}
	for _, o := range e.observations {
		for k := range o.fields {
			if b, ok := best[k]; !ok || o.priority > b.priority || (o.priority == b.priority && o.order > b.order) {
				best[k] = o
			}
		}
	}
	out := map[string]any{}
	for k, o := range best {
		out[k] = o.fields[k].AsInterface()
	}
	return out, true
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

// ErrorHook adapts runtime errors to Neotoma's conventions: the generic enum
// error on relationship_type becomes INVALID_RELATIONSHIP_TYPE, which its
// clients already handle, and a user_id argument gets an explanation.
func ErrorHook(_ context.Context, _ string, _ proto.Message, e *runtime.ErrorEntry) {
	switch {
	case e.Code == runtime.CodeInvalidEnumValue && e.Field == "relationship_type":
		e.Code = CodeInvalidRelationshipType
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
