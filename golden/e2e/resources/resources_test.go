// Package resources_test serves standard Gets as MCP resources end to end:
// a service that opts in (resources: true) registers a resource template
// per resource pattern, and a host reads a resource by URI through the Get
// tool's pipeline (request context, tenant fill, error redaction), with
// the official MCP Go SDK client and with an mcp-go client through
// runtime/mcpgo, against a fake in-process backend.
package resources_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/resources/gen/library/v1/libraryv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// tenantMeta is the _meta key the test's request-context function reads
// the caller's tenant from; a read without it has no request context.
const tenantMeta = "test/tenant"

// tenantFromMeta is the request context: the tenant the call's _meta names.
func tenantFromMeta(_ context.Context, req *mcp.CallToolRequest) (runtime.RequestContext, bool) {
	if req == nil || req.Params == nil {
		return runtime.RequestContext{}, false
	}
	t, _ := req.Params.Meta[tenantMeta].(string)
	if t == "" {
		return runtime.RequestContext{}, false
	}
	return runtime.RequestContext{TenantID: t, PrincipalID: "alice"}, true
}

// sdkSession registers the generated service on a go-sdk server and
// connects a go-sdk client.
func sdkSession(t *testing.T, b *backend) *mcp.ClientSession {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "library", Version: "test"}, nil)
	if err := libraryv1mcpwrite.RegisterBookServiceTools(s, b, runtime.WithRequestContextFunc(tenantFromMeta)); err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcptest.NewClient(t, &mcp.Implementation{Name: "host", Version: "test"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// read reads uri as tenant ("" for no tenant): the contents as JSON, or
// the error.
func read(t *testing.T, cs *mcp.ClientSession, uri, tenant string) (string, error) {
	t.Helper()
	p := &mcp.ReadResourceParams{URI: uri}
	if tenant != "" {
		p.Meta = mcp.Meta{tenantMeta: tenant}
	}
	res, err := cs.ReadResource(context.Background(), p)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(res.Contents)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), nil
}

// traceIDs are the trace ids errors carry, which differ per run.
var traceIDs = regexp.MustCompile(`[0-9a-f]{32}`)

func wantEqual(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Fatalf("%s\n got: %s\nwant: %s", what, got, want)
	}
}

// wantRPCError wants err to be the JSON-RPC error code, message and data.
func wantRPCError(t *testing.T, err error, code int64, msg, data string) {
	t.Helper()
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		t.Fatalf("want a JSON-RPC error, got %T %v", err, err)
	}
	wantEqual(t, "error message", traceIDs.ReplaceAllString(we.Message, "TRACE"), msg)
	if we.Code != code {
		t.Fatalf("error code %d, want %d", we.Code, code)
	}
	wantEqual(t, "error data", traceIDs.ReplaceAllString(string(we.Data), "TRACE"), data)
}

// wantTemplates are the service's templates, as the server lists them
// (by URI template).
const wantTemplates = `[` +
	`{"description":"The library.example.com/Shelf the URI names (branches/{branch}/shelves/{shelf}), as get_shelf reads it, in protojson.","mimeType":"application/json","name":"get_shelf_2","title":"Shelf","uriTemplate":"aip://library.example.com/branches/{branch}/shelves/{shelf}"},` +
	`{"description":"The library.example.com/Shelf the URI names (shelves/{shelf}), as get_shelf reads it, in protojson.","mimeType":"application/json","name":"get_shelf","title":"Shelf","uriTemplate":"aip://library.example.com/shelves/{shelf}"},` +
	`{"description":"The library.example.com/Book the URI names (shelves/{shelf}/books/{book}), as get_book reads it, in protojson.","mimeType":"application/json","name":"get_book","title":"Book","uriTemplate":"aip://library.example.com/shelves/{shelf}/books/{book}"}]`

// Every pattern of every standard Get is a template; the Get that is not
// standard (CountBooks) is not; the tools stay as they are.
func TestResourceTemplatesFollowThePatterns(t *testing.T) {
	cs := sdkSession(t, newBackend())
	res, err := cs.ListResourceTemplates(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.ResourceTemplates)
	wantEqual(t, "resources/templates/list", string(b), wantTemplates)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	wantEqual(t, "tools", strings.Join(names, ","), "count_books,get_book,get_shelf,get_write_schema")
}

// A read maps the URI to the Get request's name, fills the caller's
// tenant and answers the response as protojson.
func TestReadResourceThroughGoSDK(t *testing.T) {
	b := newBackend()
	cs := sdkSession(t, b)
	got, err := read(t, cs, "aip://library.example.com/shelves/s1/books/b1", "acme")
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "book", got, `[{"uri":"aip://library.example.com/shelves/s1/books/b1","mimeType":"application/json","text":"{\"name\":\"shelves/s1/books/b1\",\"title\":\"The Road\",\"page_count\":287}"}]`)
	got, err = read(t, cs, "aip://library.example.com/branches/east/shelves/s2", "acme")
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "shelf of a branch", got, `[{"uri":"aip://library.example.com/branches/east/shelves/s2","mimeType":"application/json","text":"{\"name\":\"branches/east/shelves/s2\",\"theme\":\"history\"}"}]`)
	wantEqual(t, "backend requests", strings.Join(b.requests(), "; "), "GetBook acme shelves/s1/books/b1; GetShelf acme branches/east/shelves/s2")
}

// Another tenant's resource is not found: the tenant comes from the
// request context, never from the URI. Without a request context the read
// is refused before the backend is asked.
func TestReadOfAnotherTenantsResourceFails(t *testing.T) {
	b := newBackend()
	cs := sdkSession(t, b)
	_, err := read(t, cs, "aip://library.example.com/shelves/s1/books/b1", "globex")
	wantRPCError(t, err, jsonrpc.CodeInvalidParams, "NOT_FOUND: book shelves/s1/books/b1 not found",
		`{"success":false,"error":{"code":"NOT_FOUND","message":"book shelves/s1/books/b1 not found"},"errors":[{"code":"NOT_FOUND","message":"book shelves/s1/books/b1 not found"}]}`)
	_, err = read(t, cs, "aip://library.example.com/shelves/s1/books/b1", "")
	wantRPCError(t, err, jsonrpc.CodeInternalError, "PERMISSION_DENIED: cannot fill tenant_id: the request carries no authenticated tenant",
		`{"success":false,"error":{"code":"PERMISSION_DENIED","message":"cannot fill tenant_id: the request carries no authenticated tenant","field":"tenant_id","suggestions":{"hint":"The tenant comes from the authenticated connection, never from tool arguments; reconnect with credentials that carry it."}},`+
			`"errors":[{"code":"PERMISSION_DENIED","message":"cannot fill tenant_id: the request carries no authenticated tenant","field":"tenant_id","suggestions":{"hint":"The tenant comes from the authenticated connection, never from tool arguments; reconnect with credentials that carry it."}}]}`)
	wantEqual(t, "backend requests", strings.Join(b.requests(), "; "), "GetBook globex shelves/s1/books/b1")
}

// A backend error is redacted as a read tool's is: no address, no
// credentials, a trace_id.
func TestReadResourceRedactsBackendErrors(t *testing.T) {
	cs := sdkSession(t, newBackend())
	_, err := read(t, cs, "aip://library.example.com/"+brokenBook, "acme")
	if err == nil {
		t.Fatal("want an error")
	}
	for _, secret := range []string{"hunter2", "10.1.2.3", "postgres://"} {
		if strings.Contains(err.Error(), secret) {
			t.Fatalf("the error leaks %q: %v", secret, err)
		}
	}
	wantRPCError(t, err, jsonrpc.CodeInternalError, "INTERNAL: internal error (trace_id TRACE)",
		`{"success":false,"error":{"code":"INTERNAL","message":"internal error","trace_id":"TRACE","suggestions":{"hint":"This is a server problem, not a problem with the arguments. Retry later; quote the trace_id when reporting it."}},`+
			`"errors":[{"code":"INTERNAL","message":"internal error","trace_id":"TRACE","suggestions":{"hint":"This is a server problem, not a problem with the arguments. Retry later; quote the trace_id when reporting it."}}]}`)
}

// offPattern is the envelope of a book URI off the pattern, msg in JSON.
func offPattern(msg string) string {
	e := `{"code":"CONSTRAINT_VIOLATION","message":"` + msg + `","field":"name","suggestions":{"hint":"Send a URI of the template aip://library.example.com/shelves/{shelf}/books/{book}, each {variable} one path segment, e.g. aip://library.example.com/shelves/my-shelf/books/my-book."}}`
	return `{"success":false,"error":` + e + `,"errors":[` + e + `]}`
}

// A URI off the pattern is a clear error: one the template matches but
// that cannot be a name (an empty or "/"-holding variable), and one no
// template matches.
func TestReadResourceRefusesURIsOffThePattern(t *testing.T) {
	b := newBackend()
	cs := sdkSession(t, b)
	_, err := read(t, cs, "aip://library.example.com/shelves//books/b1", "acme")
	wantRPCError(t, err, jsonrpc.CodeInvalidParams, `CONSTRAINT_VIOLATION: resource URI "aip://library.example.com/shelves//books/b1" leaves {shelf} empty`, offPattern(`resource URI \"aip://library.example.com/shelves//books/b1\" leaves {shelf} empty`))
	_, err = read(t, cs, "aip://library.example.com/shelves/a%2Fb/books/b1", "acme")
	wantRPCError(t, err, jsonrpc.CodeInvalidParams, `CONSTRAINT_VIOLATION: resource URI "aip://library.example.com/shelves/a%2Fb/books/b1" puts a "/" inside {shelf}, which must be one path segment`,
		offPattern(`resource URI \"aip://library.example.com/shelves/a%2Fb/books/b1\" puts a \"/\" inside {shelf}, which must be one path segment`))
	_, err = read(t, cs, "aip://library.example.com/authors/a1", "acme")
	wantRPCError(t, err, jsonrpc.CodeInvalidParams, "Resource not found", `{"uri":"aip://library.example.com/authors/a1"}`)
	if got := b.requests(); len(got) != 0 {
		t.Fatalf("the backend was asked: %v", got)
	}
}

// A service registered twice on one server (WithToolNames) serves each URI
// template from its first registration: the second one's backend never
// takes over the first one's resources, and the skip is logged.
func TestSecondRegistrationDoesNotTakeOverResources(t *testing.T) {
	first, second := newBackend(), newBackend()
	s := mcp.NewServer(&mcp.Implementation{Name: "library", Version: "test"}, nil)
	if err := libraryv1mcpwrite.RegisterBookServiceTools(s, first, runtime.WithRequestContextFunc(tenantFromMeta)); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	if err := libraryv1mcpwrite.RegisterBookServiceTools(s, second, runtime.WithRequestContextFunc(tenantFromMeta), runtime.WithToolNames("mirror_", ""),
		runtime.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{ReplaceAttr: dropTime})))); err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcptest.NewClient(t, &mcp.Implementation{Name: "host", Version: "test"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	res, err := cs.ListResourceTemplates(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.ResourceTemplates)
	wantEqual(t, "resources/templates/list", string(b), wantTemplates)
	if _, err := read(t, cs, "aip://library.example.com/shelves/s1/books/b1", "acme"); err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "first backend", strings.Join(first.requests(), "; "), "GetBook acme shelves/s1/books/b1")
	wantEqual(t, "second backend", strings.Join(second.requests(), "; "), "")
	wantEqual(t, "log", logs.String(), `level=WARN msg="mcpwrite: resource template already served on this server by another registration; this registration does not serve it" service=library.v1.BookService uri_template=aip://library.example.com/shelves/{shelf}/books/{book} served_by="library.v1.BookService (get_book)"
level=WARN msg="mcpwrite: resource template already served on this server by another registration; this registration does not serve it" service=library.v1.BookService uri_template=aip://library.example.com/shelves/{shelf} served_by="library.v1.BookService (get_shelf)"
level=WARN msg="mcpwrite: resource template already served on this server by another registration; this registration does not serve it" service=library.v1.BookService uri_template=aip://library.example.com/branches/{branch}/shelves/{shelf} served_by="library.v1.BookService (get_shelf_2)"
`)
}

// dropTime leaves the time out of logged records.
func dropTime(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}
