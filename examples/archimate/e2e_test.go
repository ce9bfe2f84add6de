package archimate_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

var fixedNow = time.Date(2026, 11, 22, 10, 30, 0, 0, time.UTC)

// session connects a real go-sdk client to a server with the generated tools.
func session(t *testing.T, rc runtime.RequestContext) (*mcp.ClientSession, *domain.Repository) {
	t.Helper()
	repo := domain.New()
	server := mcp.NewServer(&mcp.Implementation{Name: "archimate", Version: "test"}, nil)
	err := archimatev1mcpwrite.RegisterArchitectureServiceTools(server, repo,
		runtime.WithClock(func() time.Time { return fixedNow }),
		runtime.WithRand(rand.NewChaCha8([32]byte{42})),
		runtime.WithErrorHook(repo.EnrichError),
		runtime.WithRequestContextFunc(func(context.Context, *mcp.CallToolRequest) (runtime.RequestContext, bool) {
			return rc, rc != (runtime.RequestContext{})
		}))
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	return mcptest.Connect(t, server, mcptest.Options{}), repo
}

// call is mcptest.Call in the (body, isError) shape these tests compare.
func call(t *testing.T, cs *mcp.ClientSession, tool, args string) (map[string]any, bool) {
	t.Helper()
	r := mcptest.Call(t, cs, tool, args)
	return r.Body, r.IsError
}

var runtime2RC = runtime.RequestContext{TenantID: "tenant-globex", PrincipalID: "user-hank"}

var devRC = runtime.RequestContext{TenantID: "tenant-acme", PrincipalID: "user-ada", CorrelationID: "corr-42", TraceParent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}

func TestToolsListShowsTheWriteSurface(t *testing.T) {
	cs, _ := session(t, devRC)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	byName := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		byName[tool.Name] = tool
	}
	sort.Strings(names)
	want := []string{"addComponentToCapability", "applyProposal", "createCapability", "createCapabilityStructure", "createElement", "createElements", "createRelationship", "deleteElement", "discardProposal", "getElementTypes", "getRelationshipTypes", "getWriteSchema", "updateElement", "validateWrite"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("tools (-want +got):\n%s", diff)
	}
	ce := byName["createElement"]
	schema, _ := json.Marshal(ce.InputSchema)
	var s struct {
		Type                 string                     `json:"type"`
		Required             []string                   `json:"required"`
		AdditionalProperties bool                       `json:"additionalProperties"`
		Properties           map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatal(err)
	}
	var props []string
	for k := range s.Properties {
		props = append(props, k)
	}
	sort.Strings(props)
	if s.Type != "object" || s.AdditionalProperties || !cmp.Equal(s.Required, []string{"type", "name"}) ||
		!cmp.Equal(props, []string{"client_request_id", "description", "dry_run", "id", "model_id", "name", "parent_id", "properties", "type"}) {
		t.Fatalf("createElement schema: type=%s additionalProperties=%v required=%v properties=%v", s.Type, s.AdditionalProperties, s.Required, props)
	}
	for _, hidden := range []string{"tenant_id", "meta", "layer", "message_id", "correlation_id"} {
		if strings.Contains(string(schema), `"`+hidden+`"`) {
			t.Errorf("createElement schema exposes server field %q", hidden)
		}
	}
	a := ce.Annotations
	if a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint || a.IdempotentHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
		t.Errorf("createElement hints: readOnly=%v destructive=%v idempotent=%v openWorld=%v", a.ReadOnlyHint, *a.DestructiveHint, a.IdempotentHint, *a.OpenWorldHint)
	}
	d := byName["deleteElement"].Annotations
	if d.DestructiveHint == nil || !*d.DestructiveHint || !d.IdempotentHint {
		t.Errorf("deleteElement must be destructive and idempotent")
	}
	// The seed's description of createElement, word for word; a safe
	// classification is in _meta, a destructive one in the description too.
	if want := "Create an ArchiMate element. TIP: Call validateWrite first to check for errors before committing."; ce.Description != want {
		t.Errorf("createElement description: %q, want %q", ce.Description, want)
	}
	if want := "Delete an element. Classification: DESTRUCTIVE_DELETE."; !strings.HasPrefix(byName["deleteElement"].Description, want) {
		t.Errorf("deleteElement description: %q, want it to start %q", byName["deleteElement"].Description, want)
	}
	if ce.Meta["mcpwrite/classification"] != "SAFE_CREATE" {
		t.Errorf("createElement _meta: %v", ce.Meta)
	}
}

func TestCreateElementReachesTheDomainComplete(t *testing.T) {
	cs, repo := session(t, devRC)
	out, isErr := call(t, cs, "createElement", `{"type":"ApplicationComponent","name":"OrderService"}`)
	if isErr {
		t.Fatalf("isError: %v", out)
	}
	got := repo.Received()
	if len(got) != 1 {
		t.Fatalf("domain received %d requests, want 1", len(got))
	}
	req := got[0].(*archimatev1.CreateElementRequest)
	want := &archimatev1.CreateElementRequest{
		Meta: &archimatev1.MessageMeta{
			MessageId:     req.GetMeta().GetMessageId(),
			CorrelationId: "corr-42",
			TenantId:      "tenant-acme",
			OccurredAt:    timestamppb.New(fixedNow),
			PrincipalId:   "user-ada",
			Traceparent:   devRC.TraceParent,
		},
		Id:      req.GetId(),
		ModelId: "model-tenant-acme-main",
		Type:    archimatev1.ElementType_ELEMENT_TYPE_APPLICATION_COMPONENT,
		Layer:   archimatev1.Layer_LAYER_APPLICATION,
		Name:    "OrderService",
	}
	if diff := cmp.Diff(want, req, protocmp.Transform()); diff != "" {
		t.Fatalf("domain request (-want +got):\n%s", diff)
	}
	if !isUUID(req.GetMeta().GetMessageId(), '4') || !isUUID(req.GetId(), '7') {
		t.Fatalf("message_id %q must be a UUID v4 and id %q a UUID v7", req.GetMeta().GetMessageId(), req.GetId())
	}
	if !strings.HasPrefix(req.GetId(), "01a202ce-3c40-7") {
		t.Errorf("id %q does not carry the call time (UUID v7 prefix 01a202ce-3c40-7)", req.GetId())
	}
	wantOut := map[string]any{
		"success": true,
		"element": map[string]any{
			"id": req.GetId(), "model_id": "model-tenant-acme-main", "type": "ApplicationComponent",
			"layer": "Application", "name": "OrderService", "version": float64(1),
		},
	}
	for k, v := range wantOut {
		if diff := cmp.Diff(v, out[k]); diff != "" {
			t.Errorf("result %s (-want +got):\n%s", k, diff)
		}
	}
}

func isUUID(s string, version byte) bool {
	return len(s) == 36 && s[8] == '-' && s[13] == '-' && s[14] == version && s[18] == '-' && s[23] == '-'
}

func TestTenantComesFromContextAndNeverFromArguments(t *testing.T) {
	cs, repo := session(t, devRC)
	out, isErr := call(t, cs, "createElement", `{"type":"ApplicationComponent","name":"Billing","tenant_id":"tenant-evil"}`)
	if !isErr {
		t.Fatalf("tenant_id argument accepted: %v", out)
	}
	e := out["error"].(map[string]any)
	if e["code"] != runtime.CodeUnknownField || e["field"] != "tenant_id" {
		t.Fatalf("error = %v, want UNKNOWN_FIELD on tenant_id", e)
	}
	if n := len(repo.Received()); n != 0 {
		t.Fatalf("domain received %d requests after a rejected call", n)
	}
	// Without an authenticated tenant, the call is refused, never defaulted.
	cs2, repo2 := session(t, runtime.RequestContext{})
	out, isErr = call(t, cs2, "createElement", `{"type":"ApplicationComponent","name":"Billing"}`)
	if !isErr || out["error"].(map[string]any)["code"] != runtime.CodePermissionDenied {
		t.Fatalf("no tenant: got %v, want PERMISSION_DENIED", out)
	}
	if n := len(repo2.Received()); n != 0 {
		t.Fatalf("domain received %d requests without a tenant", n)
	}
}

func TestInvalidArgumentsComeBackAsEnvelope(t *testing.T) {
	cs, _ := session(t, devRC)
	out, isErr := call(t, cs, "createElement", `{"type":"AppComponent","name":42,"parentId":"x"}`)
	if !isErr || out["success"] != false {
		t.Fatalf("want isError envelope, got %v", out)
	}
	errs := out["errors"].([]any)
	var codes []string
	for _, e := range errs {
		m := e.(map[string]any)
		codes = append(codes, m["code"].(string)+":"+m["field"].(string))
	}
	sort.Strings(codes)
	want := []string{"INVALID_ELEMENT_TYPE:type", "INVALID_TYPE:name", "UNKNOWN_FIELD:parentId"}
	if diff := cmp.Diff(want, codes); diff != "" {
		t.Fatalf("errors (-want +got):\n%s", diff)
	}
	for _, e := range errs {
		m := e.(map[string]any)
		if m["code"] == "INVALID_ELEMENT_TYPE" {
			dym := m["suggestions"].(map[string]any)["did_you_mean"].([]any)
			if dym[0] != "ApplicationComponent" || dym[1] != "ApplicationService" {
				t.Errorf("did_you_mean = %v", dym)
			}
		}
		if m["code"] == "UNKNOWN_FIELD" {
			dym := m["suggestions"].(map[string]any)["did_you_mean"].([]any)
			if dym[0] != "parent_id" {
				t.Errorf("did_you_mean = %v", dym)
			}
		}
	}
}

func TestDomainErrorsKeepTheirSuggestions(t *testing.T) {
	cs, _ := session(t, devRC)
	call(t, cs, "createElement", `{"type":"ApplicationComponent","name":"OrderService"}`)
	out, isErr := call(t, cs, "createElement", `{"type":"ApplicationService","name":"OrderService"}`)
	if !isErr {
		t.Fatalf("duplicate accepted: %v", out)
	}
	e := out["error"].(map[string]any)
	if e["code"] != "DUPLICATE_NAME" || e["field"] != "name" {
		t.Fatalf("error = %v", e)
	}
	s := e["suggestions"].(map[string]any)
	if s["hint"] != "Use updateElement to modify the existing element, or choose a different name" {
		t.Errorf("hint = %v", s["hint"])
	}
	if alts := s["alternatives"].([]any); len(alts) != 3 || alts[0] != "OrderService2" {
		t.Errorf("alternatives = %v", alts)
	}
}

func TestCreateCapabilityNeedsItsProfile(t *testing.T) {
	cs, repo := session(t, devRC)
	out, isErr := call(t, cs, "createCapability", `{"name":"Fulfillment","profile":{"owner":"Supply Chain","criticality":"High"}}`)
	if !isErr {
		t.Fatalf("missing lifecycle accepted: %v", out)
	}
	e := out["error"].(map[string]any)
	if e["code"] != runtime.CodeMissingRequired || e["field"] != "profile.lifecycle" {
		t.Fatalf("error = %v, want MISSING_REQUIRED_FIELD profile.lifecycle", e)
	}
	// §4.5: name and the profile's owner, criticality and lifecycle are
	// required, in the schema and by the decoder.
	for args, field := range map[string]string{
		`{"profile":{"owner":"Supply Chain","criticality":"High","lifecycle":"Active"}}`: "name",
		`{"name":"Fulfillment"}`: "profile",
		`{"name":"Fulfillment","profile":{"criticality":"High","lifecycle":"Active"}}`:   "profile.owner",
		`{"name":"Fulfillment","profile":{"owner":"Supply Chain","lifecycle":"Active"}}`: "profile.criticality",
	} {
		out, isErr := call(t, cs, "createCapability", args)
		if e, _ := out["error"].(map[string]any); !isErr || e["code"] != runtime.CodeMissingRequired || e["field"] != field {
			t.Errorf("%s: %v, want MISSING_REQUIRED_FIELD %s", args, out, field)
		}
	}
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name != "createCapability" {
			continue
		}
		in := tool.InputSchema.(map[string]any)
		profile := in["properties"].(map[string]any)["profile"].(map[string]any)
		if d := cmp.Diff([]any{"name", "profile"}, in["required"]); d != "" {
			t.Errorf("createCapability required (-want +got):\n%s", d)
		}
		if d := cmp.Diff([]any{"owner", "criticality", "lifecycle"}, profile["required"]); d != "" {
			t.Errorf("profile required (-want +got):\n%s", d)
		}
	}
	out, isErr = call(t, cs, "createCapability", `{"name":"Fulfillment","description":"Ability to fulfill customer orders","profile":{"owner":"Supply Chain","criticality":"High","lifecycle":"Active"}}`)
	if isErr {
		t.Fatalf("isError: %v", out)
	}
	req := repo.Received()[0].(*archimatev1.CreateCapabilityRequest)
	if req.GetType() != archimatev1.ElementType_ELEMENT_TYPE_CAPABILITY || req.GetLayer() != archimatev1.Layer_LAYER_STRATEGY {
		t.Fatalf("type/layer = %v/%v", req.GetType(), req.GetLayer())
	}
	wantProfile := &archimatev1.CapabilityProfile{Owner: "Supply Chain", Criticality: archimatev1.Criticality_CRITICALITY_HIGH, Lifecycle: archimatev1.Lifecycle_LIFECYCLE_ACTIVE}
	if !proto.Equal(req.GetProfile(), wantProfile) {
		t.Fatalf("profile = %v", req.GetProfile())
	}
	c := out["capability"].(map[string]any)
	if c["layer"] != "strategy" || c["type"] != "Capability" || c["revision"] != float64(1) {
		t.Fatalf("capability = %v", c)
	}
}
