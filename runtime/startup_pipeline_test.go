package runtime_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/gosdk"
)

// A server whose tools need the caller's tenant and that was given a nil
// request-context function fails to register, naming the tools and the fix.
func TestRegisterRefusesANilRequestContextFunc(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "test"}, nil)
	err := gosdk.Register(s, newDomain().service(), runtime.WithRequestContextFunc[*mcp.CallToolRequest](nil))
	want := "runtime: service notes.v1.NoteService: WithRequestContextFunc(nil), but create_note, delete_note take the tenant or principal from the request context, so every call would answer PERMISSION_DENIED; " +
		"pass runtime.WithRequestContextFunc(mcphttp.RequestContextFromCall) with mcphttp.BearerAuth over HTTP, runtime.StaticRequestContext for a single-user stdio server, or your own function"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
}

// A request-context function of a request the server's library does not
// hand it is refused when the service is registered, naming both types; a
// function of the library-neutral request (StaticRequestContext) is taken.
func TestRegisterRefusesARequestContextFuncOfAnotherLibrary(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "test"}, nil)
	other := func(context.Context, *http.Request) (runtime.RequestContext, bool) {
		return runtime.RequestContext{}, false
	}
	err := gosdk.Register(s, newDomain().service(), runtime.WithRequestContextFunc(other))
	want := "runtime: service notes.v1.NoteService: WithRequestContextFunc takes a function of *http.Request, but this server's calls are *mcp.CallToolRequest (github.com/modelcontextprotocol/go-sdk/mcp); " +
		"pass a function of *mcp.CallToolRequest (github.com/modelcontextprotocol/go-sdk/mcp) (or runtime.StaticRequestContext)"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	s = mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "test"}, nil)
	if err := gosdk.Register(s, newDomain().service(), runtime.WithRequestContextFunc(runtime.StaticRequestContext(runtime.RequestContext{TenantID: "acme", PrincipalID: "alice"}))); err != nil {
		t.Fatalf("StaticRequestContext: %v", err)
	}
}

// Without any request-context option the context may still come per call,
// so registration succeeds and warns once.
func TestRegisterWarnsWithoutARequestContextSource(t *testing.T) {
	var logs bytes.Buffer
	s := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "test"}, nil)
	if err := gosdk.Register(s, newDomain().service(), runtime.WithLogger(slog.New(slog.NewTextHandler(&logs, nil)))); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), "no request-context source configured"); n != 1 || !strings.Contains(logs.String(), "tools=\"create_note, delete_note\"") {
		t.Fatalf("logs:\n%s", logs.String())
	}
	logs.Reset()
	s = mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "test"}, nil)
	if err := gosdk.Register(s, newDomain().service(), runtime.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))), runtime.WithRequestContextFunc(metaContext)); err != nil || logs.Len() != 0 {
		t.Fatalf("with a source: err %v, logs %q", err, logs.String())
	}
}

// An agent that sends a field the server fills learns that the server fills
// it, in any spelling.
func TestUnknownFieldTheServerFillsSaysSo(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	for _, key := range []string{"tenant_id", "tenantId"} {
		got := h.call(alice, "create_note", `{"title":"x","description":"y","`+key+`":"other-tenant"}`)
		if field(t, got.text, "error.code") != "UNKNOWN_FIELD" ||
			field(t, got.text, "error.message") != `unknown field "`+key+`": the server fills tenant_id itself` ||
			field(t, got.text, "error.suggestions.hint") != "tenant_id is filled by the server (tenant from the request context); leave it out" {
			t.Fatalf("%s: %s", key, got.text)
		}
	}
	if h.dom.count("create_note") != 0 {
		t.Fatal("the handler ran")
	}
}

// An agent that sends the whole message the server fills learns which of its
// fields the server fills.
func TestUnknownMessageTheServerFillsSaysSo(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	got := h.call(alice, "create_note", `{"title":"x","description":"y","meta":{"tenant_id":"other-tenant"}}`)
	if field(t, got.text, "error.code") != "UNKNOWN_FIELD" ||
		field(t, got.text, "error.message") != `unknown field "meta": the server fills meta itself` ||
		field(t, got.text, "error.suggestions.hint") != "meta is filled by the server (tenant_id, correlation_id, created_at); leave it out" {
		t.Fatalf("%s", got.text)
	}
	if h.dom.count("create_note") != 0 {
		t.Fatal("the handler ran")
	}
}
