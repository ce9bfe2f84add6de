package neotoma_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/domain"
	neotomav1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1/neotomav1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// The document's integration test (section 10.2), with its own input.
func TestDocumentIntegrationExample(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"invoice","invoice_number":"INV-001","amount":100}]}`)
	out := mustSucceed(t, cs, "retrieve_entities", `{"entity_type":"invoice"}`)
	snap := out["entities"].([]any)[0].(map[string]any)["snapshot"]
	if diff := cmp.Diff(map[string]any{"invoice_number": "INV-001", "amount": 100.0}, snap); diff != "" {
		t.Errorf("retrieved snapshot (-want +got):\n%s", diff)
	}
}

// The document's "include ALL fields" example (section 3.1): schema fields
// become the observation, every other field a raw fragment, counted.
func TestDocumentAllFieldsExample(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	out := mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"task","title":"Ship release","status":"open","task_id":"T-42","domain":"eng","urgency":"high","asana_workspace":"core"}]}`)
	if out["unknown_fields_count"] != 4.0 {
		t.Errorf("unknown_fields_count = %v, want 4", out["unknown_fields_count"])
	}
	id := entityID("user-ada", "task", "title=ship release")
	if snap, _ := s.rec.Snapshot(ada.TenantID, ada.PrincipalID, id); !cmp.Equal(snap, map[string]any{"title": "Ship release", "status": "open"}) {
		t.Errorf("snapshot = %v", snap)
	}
	cands := mustSucceed(t, cs, "analyze_schema_candidates", `{"entity_type":"task","min_frequency":1}`)
	if cands["total_fields"] != 4.0 {
		t.Errorf("raw fragments offered as candidates = %v, want the 4 fields", cands)
	}
}

// Provenance of structured material: extractor_version is required,
// extracted_at defaults to the time of the call.
func TestStoreProvenance(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"note","title":"Standup"}],"provenance":{"source_refs":["src_1"],"extractor_version":"2.1.0","agent_id":"claude"}}`)
	got := s.rec.received()[0].(*neotomav1.StoreRequest).GetProvenance()
	want := &neotomav1.Provenance{SourceRefs: []string{"src_1"}, ExtractedAt: timestamppb.New(fixedNow), ExtractorVersion: "2.1.0", AgentId: "claude"}
	if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
		t.Errorf("provenance (-want +got):\n%s", diff)
	}
	mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"note","title":"Retro"}],"provenance":{"extracted_at":"2026-02-01T08:00:00Z","extractor_version":"2.1.0"}}`)
	if at := s.rec.received()[1].(*neotomav1.StoreRequest).GetProvenance().GetExtractedAt().AsTime(); !at.Equal(time.Date(2026, 2, 1, 8, 0, 0, 0, time.UTC)) {
		t.Errorf("extracted_at = %v, want the agent's", at)
	}
	out, isErr := call(t, cs, "store", `{"entities":[{"entity_type":"note","title":"Plan"}],"provenance":{"agent_id":"claude"}}`)
	if diff := cmp.Diff([]string{"MISSING_REQUIRED_FIELD@provenance.extractor_version"}, codes(out)); !isErr || diff != "" {
		t.Errorf("provenance without extractor_version (-want +got):\n%s", diff)
	}
}

// store's interpretation_config decides the run like reinterpret's, and
// reinterpret counts against the quota too.
func TestInterpretationConfigAndQuota(t *testing.T) {
	s := newServer(t)
	cs := s.connect(ada, nil)
	out := mustSucceed(t, cs, "store", `{"file_content":"Q2FsbCBBZGEgYWJvdXQgdGhlIFEzIGludm9pY2Uu","mime_type":"text/plain","interpretation_config":{"provider":"anthropic","model_id":"claude","prompt_hash":"p1","code_version":"v3"}}`)
	src := out["source_id"].(string)
	run := runOf(src, `{"code_version":"v3","model_id":"claude","prompt_hash":"p1","provider":"anthropic"}`)
	if got := out["interpretation"].(map[string]any)["run_id"]; got != run {
		t.Errorf("run_id = %v, want %s", got, run)
	}
	s.rec.SetInterpretationQuota(1)
	bad, isErr := call(t, cs, "reinterpret", `{"source_id":"`+src+`","interpretation_config":{"model_id":"other","feature_flags":{"ocr":true}}}`)
	if code, _, _ := errorOf(t, bad); !isErr || code != "QUOTA_EXCEEDED" {
		t.Errorf("reinterpret over quota = %v", bad)
	}
	// The run already made is answered again without counting.
	again := mustSucceed(t, cs, "reinterpret", `{"source_id":"`+src+`","interpretation_config":{"provider":"anthropic","model_id":"claude","prompt_hash":"p1","code_version":"v3"}}`)
	if again["run_id"] != run {
		t.Errorf("repeated run = %v, want %s", again, run)
	}
}

// failing is the memory with a store that fails the way a database can.
type failing struct{ *domain.Memory }

func (failing) Store(context.Context, *neotomav1.StoreRequest) (*neotomav1.StoreResponse, error) {
	return nil, errors.New("insert into sources: connection reset by peer")
}

// A failure of the store itself is answered as INTERNAL with a trace_id
// that names it in the server's log, never with its text.
func TestStorageFailureCarriesTraceID(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "neotoma", Version: "test"}, nil)
	mem := domain.New(nil)
	err := neotomav1mcpwrite.RegisterMemoryServiceTools(srv, failing{mem},
		runtime.WithRand(rand.NewChaCha8([32]byte{7})),
		runtime.WithVocabulary(mem.EntityTypeVocabulary()),
		runtime.WithRequestContextFunc(runtime.StaticRequestContext(ada)))
	if err != nil {
		t.Fatal(err)
	}
	out := mcptest.Call(t, mcptest.Connect(t, srv, mcptest.Options{}), "store", invoiceArgs)
	e := out.Body["error"].(map[string]any)
	trace, _ := e["trace_id"].(string)
	if !out.IsError || e["code"] != runtime.CodeInternal || len(trace) != 32 || strings.Contains(out.Text, "connection reset") {
		t.Errorf("storage failure = %s, want INTERNAL with a 32-digit trace_id and no error text", out.Text)
	}
}
