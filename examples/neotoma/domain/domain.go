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
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	neotomav1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/suggest"
)

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
	s := &source{id: SourceID(who.tenant, who.user, hash), hash: hash, runs: map[string]*run{}, at: req.GetStoredAt().AsTime()}
	r := m.observe(who, u, s, "run_"+runtime.ContentHash(s.id, "structured"), ins, req.GetSourcePriority(), req.GetStoredAt().AsTime())
	s.first = r
	u.sources[hash] = s
	return m.storeAnswer(who, u, s, false), nil
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
	if !f.passes(req.GetValue()) {
		return nil, validatorFailed("value", req.GetField(), e.typ, f)
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
