package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	neotomav1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
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

// owner is whose memory a request reads and writes: a user is known by name
// within its tenant only, so the same name in two tenants is two owners.
type owner struct{ tenant, user string }

// entityInput is one entity of structured material, checked.
type entityInput struct {
	typ    string
	name   string
	key    string                     // the identifying key, when the interpreter fixes it
	fields map[string]*structpb.Value // without entity_type and canonical_name
}

func normalize(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
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

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Error codes of unstructured material.
const (
	CodeFileNotFound        = "FILE_NOT_FOUND"
	CodeFileReadError       = "FILE_READ_ERROR"
	CodeFileTooLarge        = "FILE_TOO_LARGE"
	CodeQuotaExceeded       = "QUOTA_EXCEEDED"
	CodeUnsupportedFileType = "UNSUPPORTED_FILE_TYPE"
)

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
