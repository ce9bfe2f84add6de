package neotoma_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/domain"
	neotomav1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1/neotomav1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

var fixedNow = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

var (
	ada   = runtime.RequestContext{TenantID: "tenant-neotoma", PrincipalID: "user-ada", CorrelationID: "corr-ada"}
	grace = runtime.RequestContext{TenantID: "tenant-neotoma", PrincipalID: "user-grace", CorrelationID: "corr-grace"}
)

// recorder is the domain with every request it received kept for assertions.
type recorder struct {
	*domain.Memory
	mu   sync.Mutex
	reqs []proto.Message
}

func (r *recorder) record(m proto.Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, proto.Clone(m))
}

func (r *recorder) received() []proto.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]proto.Message(nil), r.reqs...)
}

func (r *recorder) Store(ctx context.Context, req *neotomav1.StoreRequest) (*neotomav1.StoreResponse, error) {
	r.record(req)
	return r.Memory.Store(ctx, req)
}

func (r *recorder) Correct(ctx context.Context, req *neotomav1.CorrectRequest) (*neotomav1.CorrectResponse, error) {
	r.record(req)
	return r.Memory.Correct(ctx, req)
}

func (r *recorder) MergeEntities(ctx context.Context, req *neotomav1.MergeEntitiesRequest) (*neotomav1.MergeEntitiesResponse, error) {
	r.record(req)
	return r.Memory.MergeEntities(ctx, req)
}

func (r *recorder) CreateRelationship(ctx context.Context, req *neotomav1.CreateRelationshipRequest) (*neotomav1.CreateRelationshipResponse, error) {
	r.record(req)
	return r.Memory.CreateRelationship(ctx, req)
}

// server is one Neotoma MCP server; the acting user of each call is the
// principal of the client session that made it.
type server struct {
	t   *testing.T
	srv *mcp.Server
	rec *recorder
	// users maps a client's name (unique per connection) to its request context.
	users   sync.Map
	clients atomic.Int64
}

func newServer(t *testing.T) *server {
	t.Helper()
	s := &server{t: t, rec: &recorder{Memory: domain.New(func() time.Time { return fixedNow })}}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "neotoma", Version: "test"}, nil)
	err := neotomav1mcpwrite.RegisterMemoryServiceTools(s.srv, s.rec,
		runtime.WithClock(func() time.Time { return fixedNow }),
		runtime.WithRand(rand.NewChaCha8([32]byte{7})),
		runtime.WithErrorHook(domain.ErrorHook),
		runtime.WithVocabulary(s.rec.EntityTypeVocabulary()),
		runtime.WithRequestContextFunc(func(_ context.Context, req *mcp.CallToolRequest) (runtime.RequestContext, bool) {
			ci := req.ClientInfo()
			if ci == nil {
				return runtime.RequestContext{}, false
			}
			rc, ok := s.users.Load(ci.Name)
			if !ok {
				return runtime.RequestContext{}, false
			}
			return rc.(runtime.RequestContext), true
		}))
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	return s
}

// connect opens a client session acting as rc (no context when rc is zero)
// that answers elicitation with elicit (nil: the client cannot elicit).
func (s *server) connect(rc runtime.RequestContext, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ClientSession {
	s.t.Helper()
	return s.connectVersion(rc, elicit, "")
}

// connectVersion is connect negotiating the given protocol version ("" is
// the client's latest).
func (s *server) connectVersion(rc runtime.RequestContext, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error), version string) *mcp.ClientSession {
	s.t.Helper()
	name := fmt.Sprintf("agent-%d", s.clients.Add(1))
	if rc != (runtime.RequestContext{}) {
		s.users.Store(name, rc)
	}
	return mcptest.Connect(s.t, s.srv, mcptest.Options{Protocol: version, Elicit: elicit, ClientName: name})
}

// call runs a tool and returns its structured content (checked to equal the
// text content) and isError.
func call(t *testing.T, cs *mcp.ClientSession, tool, args string) (map[string]any, bool) {
	t.Helper()
	r := mcptest.Call(t, cs, tool, args)
	return r.Body, r.IsError
}

// mustSucceed calls a tool that must succeed.
func mustSucceed(t *testing.T, cs *mcp.ClientSession, tool, args string) map[string]any {
	t.Helper()
	out, isErr := call(t, cs, tool, args)
	if isErr {
		t.Fatalf("%s %s: unexpected error %v", tool, args, out)
	}
	return out
}

// assertJSON compares a result with the exact JSON expected.
func assertJSON(t *testing.T, got map[string]any, want string) {
	t.Helper()
	var w map[string]any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want JSON: %v", err)
	}
	if diff := cmp.Diff(w, got); diff != "" {
		t.Errorf("structuredContent (-want +got):\n%s", diff)
	}
}

// errorOf returns code, field and top suggestion (first did_you_mean, else
// the hint) of the envelope's first error.
func errorOf(t *testing.T, out map[string]any) (code, field, top string) {
	t.Helper()
	e, ok := out["error"].(map[string]any)
	if !ok {
		t.Fatalf("no error object in %v", out)
	}
	code, _ = e["code"].(string)
	field, _ = e["field"].(string)
	if s, ok := e["suggestions"].(map[string]any); ok {
		if d, ok := s["did_you_mean"].([]any); ok && len(d) > 0 {
			top, _ = d[0].(string)
		} else {
			top, _ = s["hint"].(string)
		}
	}
	return code, field, top
}

// codes lists the code and field of every error entry.
func codes(out map[string]any) []string {
	var cs []string
	es, _ := out["errors"].([]any)
	for _, e := range es {
		m := e.(map[string]any)
		cs = append(cs, m["code"].(string)+"@"+m["field"].(string))
	}
	return cs
}

// entityID is the ID the server must derive for a stored entity,
// recomputed here from the documented rule: the hash of the tenant, the
// user, the type and the identifying key (field=value without case, or the
// canonical_name). Every user of these tests is in ada's tenant.
func entityID(user, typ, key string) string {
	return "ent_" + runtime.ContentHash(ada.TenantID, user, typ, key)
}

// userSourceID recomputes the documented source id rule: "src_" and the
// first 32 hex digits of SHA-256("neotoma/source-id/v2\n" + len(tenant) +
// ":" + tenant + "\n" + len(user) + ":" + user + "\n" + content hash).
func userSourceID(tenant, user, hash string) string {
	sum := sha256.Sum256([]byte("neotoma/source-id/v2\n" + strconv.Itoa(len(tenant)) + ":" + tenant + "\n" + strconv.Itoa(len(user)) + ":" + user + "\n" + hash))
	return "src_" + hex.EncodeToString(sum[:])[:32]
}

// relationshipID is the ID the server must derive for a relationship.
func relationshipID(user string, typ neotomav1.RelationshipType, source, target string) string {
	return "rel_" + runtime.ContentHash(user, typ.String(), source, target)
}

const invoiceArgs = `{"entities":[{"entity_type":"invoice","invoice_number":"INV-2024-001","vendor":"Acme Supplies","amount":1250.5,"currency":"EUR","po_reference":"PO-77"}]}`

var invoiceID = entityID("user-ada", "invoice", "invoice_number=inv-2024-001")

func TestToolsListNeverOffersUserID(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		schema, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(schema), `"user_id"`) {
			t.Errorf("%s: input schema offers user_id: %s", tool.Name, schema)
		}
	}
	sort.Strings(names)
	want := []string{
		"analyze_schema_candidates", "apply_proposal", "correct", "create_relationship", "discard_proposal",
		"get_relationship_snapshot", "get_schema_recommendations", "get_write_schema", "list_entity_types",
		"list_observations", "list_relationship_types", "list_relationships", "list_timeline_events",
		"merge_entities", "register_schema", "reinterpret", "retrieve_entities", "retrieve_entity_by_identifier",
		"retrieve_entity_snapshot", "retrieve_field_provenance", "retrieve_file_url", "retrieve_graph_neighborhood",
		"retrieve_related_entities", "store", "update_schema_incremental", "validate_write",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("tools (-want +got):\n%s", diff)
	}
	for _, tool := range res.Tools {
		if tool.Name != "merge_entities" {
			continue
		}
		if got := tool.Meta["mcpwrite/classification"]; got != "DESTRUCTIVE_UPDATE" {
			t.Errorf("merge_entities classification = %v, want DESTRUCTIVE_UPDATE", got)
		}
		if got := tool.Meta["mcpwrite/confirmation"]; got != "ELICIT" {
			t.Errorf("merge_entities confirmation = %v, want ELICIT", got)
		}
		if d := tool.Annotations.DestructiveHint; d == nil || !*d {
			t.Errorf("merge_entities destructiveHint = %v, want true", d)
		}
	}
}

// sourceOf is the source ID, content hash, run ID and first observation ID
// the server must derive for ada's structured material, recomputed from the
// documented rules: the SHA-256 of the entities as canonical JSON, the
// source id scoped to the user (userSourceID), the run and observation
// IDs hashed from them.
func sourceOf(canonical string) (src, hash, run, obs string) {
	return sourceOfUser(ada, canonical)
}

// sourceOfUser is sourceOf for the structured material of user rc.
func sourceOfUser(rc runtime.RequestContext, canonical string) (src, hash, run, obs string) {
	sum := sha256.Sum256([]byte(canonical))
	hash = hex.EncodeToString(sum[:])
	src = userSourceID(rc.TenantID, rc.PrincipalID, hash)
	run = "run_" + runtime.ContentHash(src, "structured")
	return src, hash, run, "obs_" + runtime.ContentHash(run, "0")
}

// The document's integration example: store an invoice as a flat entity
// with every source field, then find it with retrieve_entities.
func TestStoreCreatesEntityWithContentHashID(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	out := mustSucceed(t, cs, "store", invoiceArgs)
	src, hash, run, obs := sourceOf(`[{"amount":1250.5,"currency":"EUR","entity_type":"invoice","invoice_number":"INV-2024-001","po_reference":"PO-77","vendor":"Acme Supplies"}]`)
	assertJSON(t, out, `{
		"success": true,
		"source_id": "`+src+`",
		"content_hash": "`+hash+`",
		"deduplicated": false,
		"interpretation": {"run_id": "`+run+`", "entities_created": 1, "observations_created": 1},
		"entities": [{"entity_id": "`+invoiceID+`", "entity_type": "invoice", "observation_id": "`+obs+`", "created": true, "canonical_name": "INV-2024-001"}],
		"unknown_fields_count": 1,
		"suggestions": ["Call create_relationship to create a typed relationship between two entities", "Call correct to correct one field of an entity"],
		"warnings": []
	}`)
	entities, _ := structpb.NewList([]any{map[string]any{"entity_type": "invoice", "invoice_number": "INV-2024-001", "vendor": "Acme Supplies", "amount": 1250.5, "currency": "EUR", "po_reference": "PO-77"}})
	want := []proto.Message{&neotomav1.StoreRequest{
		UserId:         "user-ada",
		Material:       &neotomav1.StoreRequest_Entities{Entities: entities},
		Interpret:      true,
		SourcePriority: 100,
		StoredAt:       timestamppb.New(fixedNow),
		CorrelationId:  "corr-ada",
	}}
	if diff := cmp.Diff(want, s.rec.received(), protocmp.Transform()); diff != "" {
		t.Errorf("domain request (-want +got):\n%s", diff)
	}
	got := mustSucceed(t, cs, "retrieve_entities", `{"entity_type":"invoice"}`)
	assertJSON(t, got, `{
		"success": true,
		"entities": [{
			"id": "`+invoiceID+`", "entity_type": "invoice", "canonical_name": "INV-2024-001",
			"snapshot": {"invoice_number": "INV-2024-001", "vendor": "Acme Supplies", "amount": 1250.5, "currency": "EUR"},
			"observation_count": 1, "last_observation_at": "2026-03-01T09:00:00Z"
		}],
		"total": 1,
		"excluded_merged": true,
		"suggestions": [],
		"warnings": []
	}`)
}

func TestStoreIsDeterministic(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	first := mustSucceed(t, cs, "store", invoiceArgs)
	second := mustSucceed(t, cs, "store", invoiceArgs)
	if first["source_id"] != second["source_id"] || first["content_hash"] != second["content_hash"] {
		t.Errorf("same material: source %v/%v, hash %v/%v", first["source_id"], second["source_id"], first["content_hash"], second["content_hash"])
	}
	src, hash, run, obs := sourceOf(`[{"amount":1250.5,"currency":"EUR","entity_type":"invoice","invoice_number":"INV-2024-001","po_reference":"PO-77","vendor":"Acme Supplies"}]`)
	assertJSON(t, second, `{
		"success": true,
		"source_id": "`+src+`",
		"content_hash": "`+hash+`",
		"deduplicated": true,
		"interpretation": {"run_id": "`+run+`", "entities_created": 1, "observations_created": 1},
		"entities": [{"entity_id": "`+invoiceID+`", "entity_type": "invoice", "observation_id": "`+obs+`", "canonical_name": "INV-2024-001"}],
		"unknown_fields_count": 1,
		"suggestions": ["Call create_relationship to create a typed relationship between two entities", "Call correct to correct one field of an entity"],
		"warnings": []
	}`)
	// New material about the same invoice lands on the same entity.
	more := mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"invoice","invoice_number":"INV-2024-001","status":"paid"}]}`)
	if got := more["entities"].([]any)[0].(map[string]any)["entity_id"]; got != invoiceID {
		t.Errorf("same type and canonical name: entity_id = %v, want %s", got, invoiceID)
	}
	// Another user's identical material is another user's entity.
	other := mustSucceed(t, s.connect(grace, nil), "store", invoiceArgs)
	gid := other["entities"].([]any)[0].(map[string]any)["entity_id"]
	if want := entityID("user-grace", "invoice", "invoice_number=inv-2024-001"); gid != want || gid == invoiceID {
		t.Errorf("other user's entity_id = %v, want %s (not %s)", gid, want, invoiceID)
	}
	// Deduplication is per user: the same material is a source of grace's
	// own, not linkable to ada's by its id or its observation's.
	if want := userSourceID(grace.TenantID, grace.PrincipalID, other["content_hash"].(string)); other["source_id"] != want || other["source_id"] == src || other["deduplicated"] != false {
		t.Errorf("other user's source_id = %v (deduplicated %v), want %s (not ada's %s)", other["source_id"], other["deduplicated"], want, src)
	}
	if gobs := other["entities"].([]any)[0].(map[string]any)["observation_id"]; gobs == obs {
		t.Errorf("other user's observation_id = %v, the same as ada's", gobs)
	}
}

func TestStoreAgentMistakes(t *testing.T) {
	tests := []struct {
		name               string
		args               string
		wantCodes          []string
		wantField, wantTop string
		wantHandlerCalled  bool
	}{
		{
			name:      "fields flattened onto the entity and a plural type",
			args:      `{"entities":[{"entity_type":"invoices","invoice_number":"INV-1","amount":120}]}`,
			wantCodes: []string{"VALIDATION_ERROR@entities[0].entity_type"},
			wantField: "entities[0].entity_type", wantTop: "invoice", wantHandlerCalled: true,
		},
		{
			name:      "user_id sent as an argument",
			args:      `{"user_id":"user-grace","entities":[{"entity_type":"note","title":"Standup","content":"ship it"}]}`,
			wantCodes: []string{"UNKNOWN_FIELD@user_id"},
			wantField: "user_id", wantTop: domain.UserIDHint,
		},
		{
			name:      "amount formatted as a string",
			args:      `{"entities":[{"entity_type":"invoice","invoice_number":"INV-2","amount":"1,250.50"}]}`,
			wantCodes: []string{"VALIDATION_ERROR@entities[0].amount"},
			wantField: "entities[0].amount", wantHandlerCalled: true,
		},
		{
			name:      "source priority of a correction",
			args:      `{"entities":[{"entity_type":"task","title":"Pay rent","status":"open"}],"source_priority":1000}`,
			wantCodes: []string{"CONSTRAINT_VIOLATION@source_priority"},
			wantField: "source_priority",
		},
		{
			// The document's own validation example: store({user_id: "", entities: []}).
			name:      "no entities",
			args:      `{"entities":[]}`,
			wantCodes: []string{"VALIDATION_ERROR@entities"},
			wantField: "entities", wantTop: domain.EntitiesHint,
		},
		{
			name:      "101 entities",
			args:      `{"entities":[` + strings.TrimSuffix(strings.Repeat(`{"entity_type":"note","title":"t"},`, 101), ",") + `]}`,
			wantCodes: []string{"VALIDATION_ERROR@entities"},
			wantField: "entities", wantTop: domain.EntitiesHint,
		},
		{
			// The same example sent literally: both problems in one answer.
			name:      "the document's validation example as written",
			args:      `{"user_id":"","entities":[]}`,
			wantCodes: []string{"UNKNOWN_FIELD@user_id", "VALIDATION_ERROR@entities"},
			wantField: "user_id", wantTop: domain.UserIDHint,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t)
			out, isErr := call(t, s.connect(ada, nil), "store", tt.args)
			if !isErr {
				t.Fatalf("want isError, got %v", out)
			}
			if diff := cmp.Diff(tt.wantCodes, codes(out)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			_, field, top := errorOf(t, out)
			if field != tt.wantField || top != tt.wantTop {
				t.Errorf("field, top suggestion = %q, %q; want %q, %q", field, top, tt.wantField, tt.wantTop)
			}
			if called := len(s.rec.received()) > 0; called != tt.wantHandlerCalled {
				t.Errorf("handler called = %v, want %v", called, tt.wantHandlerCalled)
			}
		})
	}
}

func TestStoreFieldTypeErrorNamesNoValue(t *testing.T) {
	s := newServer(t)
	out, isErr := call(t, s.connect(ada, nil), "store", `{"entities":[{"entity_type":"invoice","invoice_number":"INV-2","amount":"1,250.50"}]}`)
	if !isErr {
		t.Fatalf("want isError, got %v", out)
	}
	assertJSON(t, out, `{
		"success": false,
		"error": {"code": "VALIDATION_ERROR", "message": "amount of an invoice must be a number", "field": "entities[0].amount", "details": {"reason": "FIELD_TYPE_MISMATCH"}},
		"errors": [{"code": "VALIDATION_ERROR", "message": "amount of an invoice must be a number", "field": "entities[0].amount", "details": {"reason": "FIELD_TYPE_MISMATCH"}}]
	}`)
}

func TestCorrectOverridesExtractedValue(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	mustSucceed(t, cs, "store", invoiceArgs)
	args := `{"entity_id":"` + invoiceID + `","entity_type":"invoice","field":"amount","value":1300}`
	out := mustSucceed(t, cs, "correct", args)
	assertJSON(t, out, `{
		"success": true,
		"observation_id": "obs_019ca8a0-3e80-7e42-94ca-e8864908e0b8",
		"entity_id": "`+invoiceID+`",
		"field": "amount",
		"value": 1300,
		"message": "Correction recorded; the entity snapshot now reads amount from it.",
		"suggestions": ["Call retrieve_entity_snapshot to retrieve the current truth about an entity: its snapshot computed from every observation, and per field the observation it comes from"],
		"warnings": []
	}`)
	reqs := s.rec.received()
	want := &neotomav1.CorrectRequest{
		UserId: "user-ada", EntityId: invoiceID, EntityType: "invoice",
		Field: "amount", Value: structpb.NewNumberValue(1300), ObservationId: "obs_019ca8a0-3e80-7e42-94ca-e8864908e0b8",
		Priority: domain.CorrectionPriority, CorrectedAt: timestamppb.New(fixedNow),
	}
	if diff := cmp.Diff(want, reqs[len(reqs)-1], protocmp.Transform()); diff != "" {
		t.Errorf("domain request (-want +got):\n%s", diff)
	}
	// A later extraction with the default priority does not beat the correction.
	mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"invoice","invoice_number":"INV-2024-001","amount":999}]}`)
	if snap, _ := s.rec.Snapshot(ada.TenantID, ada.PrincipalID, invoiceID); snap["amount"] != 1300.0 {
		t.Errorf("snapshot amount = %v, want the corrected 1300", snap["amount"])
	}
	// The same correction again is the same observation.
	again := mustSucceed(t, cs, "correct", args)
	if again["observation_id"] != out["observation_id"] || again["message"] != "The same correction was already applied; no new observation was created." {
		t.Errorf("repeated correction = %v, want observation %v reused", again, out["observation_id"])
	}
}

func TestCorrectAgentMistakes(t *testing.T) {
	tests := []struct {
		name               string
		args               string
		wantCodes          []string
		wantField, wantTop string
		wantMessage        string
	}{
		{
			name:        "unknown entity",
			args:        `{"entity_id":"ent_00000000-0000-8000-8000-000000000000","entity_type":"invoice","field":"amount","value":1}`,
			wantCodes:   []string{"ENTITY_NOT_FOUND@entity_id"},
			wantField:   "entity_id",
			wantTop:     "Use an entity_id returned by store or retrieve_entities; entities are visible only to the user who stored them.",
			wantMessage: "entity ent_00000000-0000-8000-8000-000000000000 not found",
		},
		{
			name:      "misspelled field",
			args:      `{"entity_id":"` + invoiceID + `","entity_type":"invoice","field":"ammount","value":1}`,
			wantCodes: []string{"VALIDATION_ERROR@field"},
			wantField: "field", wantTop: "amount",
			wantMessage: "ammount is not a field of the invoice schema",
		},
		{
			name:      "number sent as a formatted string",
			args:      `{"entity_id":"` + invoiceID + `","entity_type":"invoice","field":"amount","value":"\"EUR 1,300\""}`,
			wantCodes: []string{"VALIDATION_ERROR@value"},
			wantField: "value", wantTop: "Send the value as a JSON number, not quoted or formatted.",
			wantMessage: "amount of an invoice must be a number",
		},
		{
			name:      "number sent as bare text",
			args:      `{"entity_id":"` + invoiceID + `","entity_type":"invoice","field":"amount","value":"EUR 1,300"}`,
			wantCodes: []string{"VALIDATION_ERROR@value"},
			wantField: "value", wantTop: "Send the value as a JSON number, not quoted or formatted.",
			wantMessage: "amount of an invoice must be a number",
		},
		{
			name:      "wrong entity type",
			args:      `{"entity_id":"` + invoiceID + `","entity_type":"transaction","field":"amount","value":1}`,
			wantCodes: []string{"VALIDATION_ERROR@entity_type"},
			wantField: "entity_type", wantTop: "invoice",
			wantMessage: "entity " + invoiceID + " is an invoice, not a transaction",
		},
		{
			name:      "camelCase argument and capitalised field",
			args:      `{"entityId":"` + invoiceID + `","entity_type":"invoice","field":"Amount","value":1}`,
			wantCodes: []string{"UNKNOWN_FIELD@entityId", "CONSTRAINT_VIOLATION@field", "MISSING_REQUIRED_FIELD@entity_id"},
			wantField: "entityId", wantTop: "entity_id",
			wantMessage: `unknown field "entityId"; did you mean "entity_id"?`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t)
			cs := s.connect(ada, nil)
			mustSucceed(t, cs, "store", invoiceArgs)
			out, isErr := call(t, cs, "correct", tt.args)
			if !isErr {
				t.Fatalf("want isError, got %v", out)
			}
			if diff := cmp.Diff(tt.wantCodes, codes(out)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			_, field, top := errorOf(t, out)
			if field != tt.wantField || top != tt.wantTop {
				t.Errorf("field, top suggestion = %q, %q; want %q, %q", field, top, tt.wantField, tt.wantTop)
			}
			if msg := out["error"].(map[string]any)["message"]; msg != tt.wantMessage {
				t.Errorf("message = %q, want %q", msg, tt.wantMessage)
			}
			raw, _ := json.Marshal(out)
			for _, pii := range []string{"Acme Supplies", "1250.5"} {
				if strings.Contains(string(raw), pii) {
					t.Errorf("error leaks stored value %q: %s", pii, raw)
				}
			}
		})
	}
}

func TestCorrectAnotherUsersEntityIsNotFound(t *testing.T) {
	s := newServer(t)
	mustSucceed(t, s.connect(ada, nil), "store", invoiceArgs)
	out, isErr := call(t, s.connect(grace, nil), "correct", `{"entity_id":"`+invoiceID+`","entity_type":"invoice","field":"amount","value":1}`)
	if code, field, _ := errorOf(t, out); !isErr || code != domain.CodeEntityNotFound || field != "entity_id" {
		t.Fatalf("grace correcting ada's entity = %v %v, want ENTITY_NOT_FOUND on entity_id", isErr, out)
	}
}

// graph stores a person, a company and a second company for relationship tests.
func graph(t *testing.T, cs *mcp.ClientSession) (person, acme, holding string) {
	t.Helper()
	mustSucceed(t, cs, "store", `{"entities":[
		{"entity_type":"person","name":"Ada Lovelace"},
		{"entity_type":"company","name":"Acme"},
		{"entity_type":"company","name":"Acme Holding"}]}`)
	return entityID("user-ada", "person", "name=ada lovelace"),
		entityID("user-ada", "company", "name=acme"),
		entityID("user-ada", "company", "name=acme holding")
}

func TestCreateRelationshipSameInputsSameID(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	_, acme, holding := graph(t, cs)
	args := `{"relationship_type":"PART_OF","source_entity_id":"` + acme + `","target_entity_id":"` + holding + `","metadata":{"since":2019}}`
	first := mustSucceed(t, cs, "create_relationship", args)
	wantID := relationshipID("user-ada", neotomav1.RelationshipType_RELATIONSHIP_TYPE_PART_OF, acme, holding)
	assertJSON(t, first, `{
		"success": true,
		"id": "`+wantID+`", "relationship_type": "PART_OF", "source_entity_id": "`+acme+`", "target_entity_id": "`+holding+`", "metadata": {"since": 2019}, "created_at": "2026-03-01T09:00:00Z",
		"suggestions": ["Call list_relationships to list the relationships of an entity, newest first: inbound, outbound or both"],
		"warnings": []
	}`)
	second := mustSucceed(t, cs, "create_relationship", args)
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("second identical call (-first +second):\n%s", diff)
	}
	reqs := s.rec.received()
	got := reqs[len(reqs)-1].(*neotomav1.CreateRelationshipRequest)
	if got.GetUserId() != "user-ada" || got.GetId() != wantID || got.GetRelationshipType() != neotomav1.RelationshipType_RELATIONSHIP_TYPE_PART_OF {
		t.Errorf("domain request = %v, want user-ada, %s, PART_OF", got, wantID)
	}
}

func TestCreateRelationshipAgentMistakes(t *testing.T) {
	tests := []struct {
		name               string
		args               func(person, acme, holding string) string
		wantCodes          []string
		wantField, wantTop string
	}{
		{
			name: "relationship type that does not exist",
			args: func(p, a, _ string) string {
				return `{"relationship_type":"parent_of","source_entity_id":"` + a + `","target_entity_id":"` + p + `"}`
			},
			wantCodes: []string{"INVALID_RELATIONSHIP_TYPE@relationship_type"},
			wantField: "relationship_type", wantTop: "PART_OF",
		},
		{
			name: "made-up entity IDs",
			args: func(_, _, _ string) string {
				return `{"relationship_type":"refers_to","source_entity_id":"acme","target_entity_id":"acme-holding"}`
			},
			wantCodes: []string{"ENTITY_NOT_FOUND@source_entity_id", "ENTITY_NOT_FOUND@target_entity_id"},
			wantField: "source_entity_id", wantTop: "Use an entity_id returned by store or retrieve_entities; entities are visible only to the user who stored them.",
		},
		{
			name: "reversed direction closes a cycle",
			args: func(_, a, h string) string {
				return `{"relationship_type":"part_of","source_entity_id":"` + h + `","target_entity_id":"` + a + `"}`
			},
			wantCodes: []string{"CYCLE_DETECTED@target_entity_id"},
			wantField: "target_entity_id", wantTop: "The target already reaches the source through PART_OF relationships; check the direction (source PART_OF target).",
		},
		{
			name: "entity related to itself",
			args: func(_, a, _ string) string {
				return `{"relationship_type":"refers_to","source_entity_id":"` + a + `","target_entity_id":"` + a + `"}`
			},
			wantCodes: []string{"VALIDATION_ERROR@target_entity_id"},
			wantField: "target_entity_id",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t)
			cs := s.connect(ada, nil)
			p, a, h := graph(t, cs)
			mustSucceed(t, cs, "create_relationship", `{"relationship_type":"part_of","source_entity_id":"`+a+`","target_entity_id":"`+h+`"}`)
			out, isErr := call(t, cs, "create_relationship", tt.args(p, a, h))
			if !isErr {
				t.Fatalf("want isError, got %v", out)
			}
			if diff := cmp.Diff(tt.wantCodes, codes(out)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			_, field, top := errorOf(t, out)
			if field != tt.wantField || top != tt.wantTop {
				t.Errorf("field, top suggestion = %q, %q; want %q, %q", field, top, tt.wantField, tt.wantTop)
			}
		})
	}
}

// duplicates stores two person entities that are the same person.
func duplicates(t *testing.T, cs *mcp.ClientSession) (from, to string) {
	t.Helper()
	mustSucceed(t, cs, "store", `{"entities":[
		{"entity_type":"person","canonical_name":"A. Lovelace","email":"ada@example.org"},
		{"entity_type":"person","name":"Ada Lovelace"}]}`)
	return entityID("user-ada", "person", "a. lovelace"),
		entityID("user-ada", "person", "name=ada lovelace")
}

func TestMergeEntitiesWithoutElicitationProposesThenApplies(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil) // no elicitation capability
	from, to := duplicates(t, cs)
	before := len(s.rec.received())
	args := `{"from_entity_id":"` + from + `","to_entity_id":"` + to + `","merge_reason":"same email address"}`
	prop := mustSucceed(t, cs, "merge_entities", args)
	assertJSON(t, prop, `{
		"success": true,
		"proposal": {
			"proposal_id": "prop_BZBNJSXIQZEQRYFYY5JA4NQKUQ",
			"action": "merge",
			"tool": "merge_entities",
			"classification": "DESTRUCTIVE_UPDATE",
			"summary": "Merge duplicate entities: from_entity_id=\"`+from+`\", to_entity_id=\"`+to+`\", merge_reason=\"same email address\"",
			"preview": {"from_entity_id": "`+from+`", "to_entity_id": "`+to+`", "merge_reason": "same email address", "observations_to_move": 1},
			"expires_at": "2026-03-01T09:15:00Z",
			"apply_with": "apply_proposal"
		},
		"suggestions": ["Nothing was written yet. Show the summary and preview to the user; if they confirm, call apply_proposal with proposal_id \"prop_BZBNJSXIQZEQRYFYY5JA4NQKUQ\" before it expires."],
		"warnings": []
	}`)
	if n := len(s.rec.received()); n != before {
		t.Fatalf("the handler ran %d time(s) before confirmation", n-before)
	}
	id := prop["proposal"].(map[string]any)["proposal_id"].(string)
	applied := mustSucceed(t, cs, "apply_proposal", `{"proposal_id":"`+id+`"}`)
	assertJSON(t, applied, `{
		"success": true,
		"from_entity_id": "`+from+`",
		"to_entity_id": "`+to+`",
		"observations_moved": 1,
		"merged_at": "2026-03-01T09:00:00Z",
		"merge_reason": "same email address",
		"suggestions": [],
		"warnings": []
	}`)
	want := &neotomav1.MergeEntitiesRequest{UserId: "user-ada", FromEntityId: from, ToEntityId: to, MergeReason: "same email address", ObservationsToMove: 1}
	reqs := s.rec.received()
	if diff := cmp.Diff(want, reqs[len(reqs)-1], protocmp.Transform()); diff != "" {
		t.Errorf("domain request (-want +got):\n%s", diff)
	}
	if snap, _ := s.rec.Snapshot(ada.TenantID, ada.PrincipalID, to); !cmp.Equal(snap, map[string]any{"name": "Ada Lovelace", "email": "ada@example.org"}) {
		t.Errorf("kept entity snapshot = %v, want the duplicate's email merged in", snap)
	}
	replay := mustSucceed(t, cs, "apply_proposal", `{"proposal_id":"`+id+`"}`)
	if replay["idempotent_replay"] != true || replay["observations_moved"] != 1.0 || len(s.rec.received()) != len(reqs) {
		t.Errorf("second apply = %v, want a replay without a second merge", replay)
	}
}

func TestMergeEntitiesAsksUserThroughElicitation(t *testing.T) {
	tests := []struct {
		name         string
		protocol     string
		action       string
		wantAsked    bool
		wantMerged   bool
		wantProposal bool
		wantCode     string
	}{
		{name: "user confirms", protocol: "2025-11-25", action: "accept", wantAsked: true, wantMerged: true},
		{name: "user declines", protocol: "2025-11-25", action: "decline", wantAsked: true, wantCode: runtime.CodeConfirmationDeclined},
		{name: "user cancels", protocol: "2025-11-25", action: "cancel", wantAsked: true, wantCode: runtime.CodeConfirmationCancelled},
		// Protocol 2026-07-28 forbids server requests inside a call; the
		// runtime asks through the input-request round trip instead.
		{name: "round trip confirms", protocol: "2026-07-28", action: "accept", wantAsked: true, wantMerged: true},
		{name: "round trip declines", protocol: "2026-07-28", action: "decline", wantAsked: true, wantCode: runtime.CodeConfirmationDeclined},
		{name: "round trip cancels", protocol: "2026-07-28", action: "cancel", wantAsked: true, wantCode: runtime.CodeConfirmationCancelled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t)
			user := &mcptest.Elicitor{Action: tt.action, Confirm: true}
			cs := s.connectVersion(ada, user.Handler, tt.protocol)
			from, to := duplicates(t, cs)
			out, isErr := call(t, cs, "merge_entities", `{"from_entity_id":"`+from+`","to_entity_id":"`+to+`"}`)
			asked := user.Asked()
			// The question, then the agent's request and what the server
			// worked out (how many observations move), but no user_id.
			wantAsk := `Confirm Merge duplicate entities: from_entity_id="` + from + `", to_entity_id="` + to + `". ` +
				"This overwrites existing data; the previous values are lost.\n\nfrom_entity_id: " + from + "\nto_entity_id: " + to +
				"\nobservations_to_move: 1"
			if tt.wantAsked && (len(asked) != 1 || asked[0] != wantAsk) {
				t.Fatalf("elicitation messages = %q, want %q", asked, wantAsk)
			}
			if !tt.wantAsked && len(asked) != 0 {
				t.Fatalf("elicitation messages = %q, want none", asked)
			}
			_, merged := out["observations_moved"]
			_, proposed := out["proposal"]
			if merged != tt.wantMerged || proposed != tt.wantProposal || isErr != (tt.wantCode != "") {
				t.Fatalf("result = %v (isError %v), want merged=%v proposal=%v", out, isErr, tt.wantMerged, tt.wantProposal)
			}
			if tt.wantCode != "" {
				wantTop := "Do not retry unless the user asks for the change again."
				if tt.action == "cancel" {
					wantTop = "Ask the user whether they want this change; call again only if they say yes."
				}
				if code, _, top := errorOf(t, out); code != tt.wantCode || top != wantTop {
					t.Errorf("code, top suggestion = %q, %q", code, top)
				}
			}
			handled := false
			for _, r := range s.rec.received() {
				_, ok := r.(*neotomav1.MergeEntitiesRequest)
				handled = handled || ok
			}
			if handled != tt.wantMerged {
				t.Errorf("handler ran = %v, want %v", handled, tt.wantMerged)
			}
		})
	}
}

func TestMergeProposalIsStaleWhenObservationsChanged(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	from, to := duplicates(t, cs)
	prop := mustSucceed(t, cs, "merge_entities", `{"from_entity_id":"`+from+`","to_entity_id":"`+to+`"}`)
	id := prop["proposal"].(map[string]any)["proposal_id"].(string)
	mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"person","canonical_name":"A. Lovelace","phone":"+44 20 0000"}]}`)
	out, isErr := call(t, cs, "apply_proposal", `{"proposal_id":"`+id+`"}`)
	if !isErr {
		t.Fatalf("apply after the duplicate changed = %v, want PROPOSAL_STALE", out)
	}
	// The answer carries the merge proposed against the entities as they are
	// now: two observations would move.
	e := out["error"].(map[string]any)
	fresh := e["details"].(map[string]any)["fresh_proposal"].(map[string]any)
	delete(e["details"].(map[string]any), "fresh_proposal")
	freshID, _ := fresh["proposal_id"].(string)
	if freshID == "" || freshID == id || fresh["action"] != "merge" || fresh["preview"].(map[string]any)["observations_to_move"] != 2.0 {
		t.Fatalf("fresh proposal = %v", fresh)
	}
	assertJSON(t, e, `{
		"code": "PROPOSAL_STALE",
		"message": "proposal \"`+id+`\" is stale: the server would now fill it differently",
		"field": "proposal_id",
		"details": {"proposal_id": "`+id+`", "changed_fields": ["observations_to_move"]},
		"suggestions": {"hint": "Nothing was written. details.fresh_proposal is the same change against the current state: show it to the user and, if they confirm, call apply_proposal with its proposal_id."}
	}`)
	for _, r := range s.rec.received() {
		if _, ok := r.(*neotomav1.MergeEntitiesRequest); ok {
			t.Fatal("a stale proposal reached the handler")
		}
	}
}

func TestMergeEntitiesAgentMistakes(t *testing.T) {
	tests := []struct {
		name               string
		args               func(from, to, company string) string
		wantCodes          []string
		wantField, wantTop string
	}{
		{
			name:      "IDs guessed from names",
			args:      func(_, _, _ string) string { return `{"from_entity_id":"a-lovelace","to_entity_id":"ada-lovelace"}` },
			wantCodes: []string{"ENTITY_NOT_FOUND@from_entity_id", "ENTITY_NOT_FOUND@to_entity_id"},
			wantField: "from_entity_id", wantTop: "Use an entity_id returned by store or retrieve_entities; entities are visible only to the user who stored them.",
		},
		{
			name:      "shortened argument names",
			args:      func(f, t, _ string) string { return `{"from_id":"` + f + `","to_id":"` + t + `"}` },
			wantCodes: []string{"UNKNOWN_FIELD@from_id", "UNKNOWN_FIELD@to_id", "MISSING_REQUIRED_FIELD@from_entity_id", "MISSING_REQUIRED_FIELD@to_entity_id"},
			wantField: "from_id", wantTop: "from_entity_id",
		},
		{
			name:      "entity merged into itself",
			args:      func(f, _, _ string) string { return `{"from_entity_id":"` + f + `","to_entity_id":"` + f + `"}` },
			wantCodes: []string{"VALIDATION_ERROR@to_entity_id"},
			wantField: "to_entity_id", wantTop: "from_entity_id is the duplicate that disappears; to_entity_id is a different entity that is kept.",
		},
		{
			name:      "entities of different types",
			args:      func(f, _, c string) string { return `{"from_entity_id":"` + f + `","to_entity_id":"` + c + `"}` },
			wantCodes: []string{"VALIDATION_ERROR@to_entity_id"},
			wantField: "to_entity_id",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t)
			cs := s.connect(ada, nil)
			from, to := duplicates(t, cs)
			mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"company","name":"Acme"}]}`)
			company := entityID("user-ada", "company", "name=acme")
			out, isErr := call(t, cs, "merge_entities", tt.args(from, to, company))
			if !isErr {
				t.Fatalf("want isError before any proposal, got %v", out)
			}
			if diff := cmp.Diff(tt.wantCodes, codes(out)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			_, field, top := errorOf(t, out)
			if field != tt.wantField || top != tt.wantTop {
				t.Errorf("field, top suggestion = %q, %q; want %q, %q", field, top, tt.wantField, tt.wantTop)
			}
		})
	}
}

func TestMergeAlreadyMergedEntity(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	from, to := duplicates(t, cs)
	prop := mustSucceed(t, cs, "merge_entities", `{"from_entity_id":"`+from+`","to_entity_id":"`+to+`"}`)
	mustSucceed(t, cs, "apply_proposal", `{"proposal_id":"`+prop["proposal"].(map[string]any)["proposal_id"].(string)+`"}`)
	out, isErr := call(t, cs, "merge_entities", `{"from_entity_id":"`+from+`","to_entity_id":"`+to+`"}`)
	if !isErr {
		t.Fatalf("want isError, got %v", out)
	}
	assertJSON(t, out["error"].(map[string]any), `{
		"code": "ENTITY_ALREADY_MERGED",
		"message": "entity `+from+` was merged into `+to+`",
		"field": "from_entity_id",
		"details": {"entity_id": "`+from+`", "merged_into": "`+to+`"},
		"suggestions": {"hint": "Use the entity it was merged into: `+to+`"}
	}`)
	// Material stored about the merged duplicate lands on the kept entity.
	more := mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"person","canonical_name":"A. Lovelace","phone":"+44 20 0000"}]}`)
	if got := more["entities"].([]any)[0].(map[string]any)["entity_id"]; got != to {
		t.Errorf("store about a merged entity went to %v, want %s", got, to)
	}
}

func TestCallsWithoutAnActingUserAreDenied(t *testing.T) {
	s := newServer(t)
	out, isErr := call(t, s.connect(runtime.RequestContext{}, nil), "store", invoiceArgs)
	if code, field, _ := errorOf(t, out); !isErr || code != runtime.CodePermissionDenied || field != "user_id" {
		t.Fatalf("store without a user = %v, want PERMISSION_DENIED on user_id", out)
	}
	if len(s.rec.received()) != 0 {
		t.Fatal("the handler ran without an acting user")
	}
}

// Entities sent as JSON text (the schema's form, which strict clients can
// send) reach the domain exactly as the array form does, a null kept as a
// null value rather than dropped.
func TestStoreEntitiesAsJSONTextKeepNulls(t *testing.T) {
	for _, tt := range []struct{ name, entities string }{
		{"JSON text", `"[{\"entity_type\":\"invoice\",\"invoice_number\":\"INV-9\",\"po_reference\":null,\"amount\":3}]"`},
		{"array", `[{"entity_type":"invoice","invoice_number":"INV-9","po_reference":null,"amount":3}]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t)
			cs := s.connect(ada, nil)
			mustSucceed(t, cs, "store", `{"entities":`+tt.entities+`}`)
			got := s.rec.received()[0].(*neotomav1.StoreRequest).GetEntities()
			want, _ := structpb.NewList([]any{map[string]any{"entity_type": "invoice", "invoice_number": "INV-9", "po_reference": nil, "amount": 3}})
			if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
				t.Fatalf("entities (-want +got):\n%s", diff)
			}
		})
	}
}
