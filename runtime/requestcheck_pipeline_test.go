package runtime_test

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// fakeChecker breaks rules depending on the title, as a protovalidate
// checker would report them.
type fakeChecker struct{}

func (fakeChecker) Check(req proto.Message) ([]impl.Violation, error) {
	m := req.ProtoReflect()
	switch m.Get(m.Descriptor().Fields().ByName("title")).String() {
	case "shout":
		return []impl.Violation{
			{Path: []impl.PathStep{{Field: "title"}}, RuleID: "title.no_shouting", Message: "title must not be all capitals"},
			{Path: []impl.PathStep{{Field: "priority"}}, RuleID: "int32.gte", Message: "value must be greater than or equal to 1"},
			{RuleID: "note.described", Message: "a note needs a description"},
		}, nil
	case "server":
		return []impl.Violation{
			{Path: []impl.PathStep{{Field: "title"}}, RuleID: "string.max_len", Message: "too long"},
			{Path: []impl.PathStep{{Field: "meta"}, {Field: "tenant_id"}}, RuleID: "string.min_len", Message: "value length must be at least 1 characters"},
		}, nil
	case "over":
		return []impl.Violation{{Path: []impl.PathStep{{Field: "description"}}, RuleID: "string.min_len", Message: "must be at least 3 characters"}}, nil
	case "broken":
		return nil, errors.New("compile rule: undeclared reference to 'x'")
	}
	return nil, nil
}

// The request check runs on the complete request after enrichment, through
// the real client: the agent's violations come back together with the
// agent-facing names and the rule ids; a server-filled field breaking its
// rule is INTERNAL, not the agent's fault; the checker is built once.
func TestRequestCheckAnswersViolationsInTheEnvelope(t *testing.T) {
	var built atomic.Int32
	h := newHarness(t, harnessOpts{service: func(svc *impl.Service) {
		svc.Tools[0].AgentPaths = map[string]string{"title": "name", "description": "description", "priority": "priority"}
		svc.NewChecker = func() (impl.RequestChecker, error) {
			built.Add(1)
			return fakeChecker{}, nil
		}
	}})
	bad := h.call(alice, "create_note", `{"title":"shout","priority":0}`)
	want := `[map[code:CONSTRAINT_VIOLATION details:map[rule_id:title.no_shouting] field:name message:title must not be all capitals] ` +
		`map[code:CONSTRAINT_VIOLATION details:map[rule_id:int32.gte] field:priority message:value must be greater than or equal to 1] ` +
		`map[code:CONSTRAINT_VIOLATION details:map[rule_id:note.described] message:a note needs a description]]`
	if !bad.isError || valueAt(t, bad.text, "errors") != want {
		t.Fatalf("agent violations:\n got %s\nwant errors %s", bad.text, want)
	}
	server := h.call(alice, "create_note", `{"title":"server"}`)
	if !server.isError || field(t, server.text, "error.code") != "INTERNAL" || strings.Contains(server.text, "tenant_id") {
		t.Fatalf("server violation: %s", server.text)
	}
	if !strings.Contains(h.logs(), "server-filled fields break their rules: meta.tenant_id: value length must be at least 1 characters (string.min_len)") {
		t.Fatalf("log lacks the server violation:\n%s", h.logs())
	}
	broken := h.call(alice, "create_note", `{"title":"broken"}`)
	if !broken.isError || field(t, broken.text, "error.code") != "INTERNAL" {
		t.Fatalf("broken check: %s", broken.text)
	}
	dry := h.call(alice, "validate_write", `{"operation":"create_note","payload":{"title":"shout"}}`)
	if valueAt(t, dry.text, "valid") != "false" || !strings.Contains(dry.text, "title must not be all capitals") {
		t.Fatalf("validate_write: %s", dry.text)
	}
	ok := h.call(alice, "create_note", `{"title":"fine"}`)
	if ok.isError {
		t.Fatalf("valid note: %s", ok.text)
	}
	if h.dom.count("create_note") != 1 {
		t.Fatalf("writes = %d, want 1 (only the valid note)", h.dom.count("create_note"))
	}
	if n := built.Load(); n != 1 {
		t.Fatalf("checker built %d times, want once per registration", n)
	}
}

// A field the server fills unless the agent sends it (overridable) is the
// agent's to fix only when the agent sent it.
func TestRequestCheckBlamesAnOverridableFieldOnlyWhenTheAgentSentIt(t *testing.T) {
	h := newHarness(t, harnessOpts{service: func(svc *impl.Service) {
		svc.Tools[0].AgentPaths = map[string]string{"title": "title", "description": "description", "priority": "priority"}
		svc.Tools[0].Overridable = map[string]bool{"description": true}
		svc.NewChecker = func() (impl.RequestChecker, error) { return fakeChecker{}, nil }
	}})
	sentIt := h.call(alice, "create_note", `{"title":"over","description":"ab"}`)
	if e := valueAt(t, sentIt.text, "errors"); !sentIt.isError || e != "[map[code:CONSTRAINT_VIOLATION details:map[rule_id:string.min_len] field:description message:must be at least 3 characters]]" {
		t.Fatalf("sent by the agent: %s", sentIt.text)
	}
	filled := h.call(alice, "create_note", `{"title":"over"}`)
	if !filled.isError || field(t, filled.text, "error.code") != "INTERNAL" {
		t.Fatalf("filled by the server: %s", filled.text)
	}
}

// WithoutRequestCheck leaves the check to the domain.
func TestWithoutRequestCheckSkipsTheChecker(t *testing.T) {
	h := newHarness(t, harnessOpts{opts: []runtime.Option{runtime.WithoutRequestCheck()}, service: func(svc *impl.Service) {
		svc.NewChecker = func() (impl.RequestChecker, error) { return fakeChecker{}, nil }
	}})
	if r := h.call(alice, "create_note", `{"title":"shout"}`); r.isError {
		t.Fatalf("checked anyway: %s", r.text)
	}
}

// A checker that cannot be built fails registration, naming the service.
func TestRequestCheckThatCannotBeBuiltFailsRegistration(t *testing.T) {
	svc := newDomain().service()
	svc.NewChecker = func() (impl.RequestChecker, error) { return nil, errors.New("rule x does not compile") }
	_, err := runtime.NewPreparer(svc)
	if err == nil || err.Error() != "runtime: service notes.v1.NoteService: request check: rule x does not compile" {
		t.Fatalf("err = %v", err)
	}
}

// One round of repair: when the decoder refuses the arguments, the request
// check still runs on what decoded, and its violations on fields the agent
// sent come in the same answer; a field in error and a rule of the whole
// message wait for the full check.
func TestRequestCheckViolationsJoinDecodeProblems(t *testing.T) {
	h := newHarness(t, harnessOpts{service: func(svc *impl.Service) {
		svc.Tools[0].AgentPaths = map[string]string{"title": "title", "description": "description", "priority": "priority"}
		svc.NewChecker = func() (impl.RequestChecker, error) { return fakeChecker{}, nil }
	}})
	bad := h.call(alice, "create_note", `{"title":"shout","priority":"high"}`)
	want := `[map[code:INVALID_TYPE field:priority message:expected integer, got string] ` +
		`map[code:CONSTRAINT_VIOLATION details:map[rule_id:title.no_shouting] field:title message:title must not be all capitals]]`
	if !bad.isError || valueAt(t, bad.text, "errors") != want {
		t.Fatalf("one round:\n got %s\nwant errors %s", bad.text, want)
	}
	// Fixing both at once succeeds on the next call.
	if ok := h.call(alice, "create_note", `{"title":"fine","priority":2}`); ok.isError {
		t.Fatalf("repaired call: %s", ok.text)
	}
}
