package resources_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	mgoclient "github.com/mark3labs/mcp-go/client"
	mgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/resources/gen/library/v1/libraryv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpgo"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// tenantFromMCPGoMeta is tenantFromMeta for an mcp-go call.
func tenantFromMCPGoMeta(_ context.Context, req mgo.CallToolRequest) (runtime.RequestContext, bool) {
	if req.Params.Meta == nil {
		return runtime.RequestContext{}, false
	}
	t, _ := req.Params.Meta.AdditionalFields[tenantMeta].(string)
	if t == "" {
		return runtime.RequestContext{}, false
	}
	return runtime.RequestContext{TenantID: t, PrincipalID: "alice"}, true
}

// mgoClient is an mcp-go client, in process, against an mcp-go server
// serving the generated service through runtime/mcpgo.
func mgoClient(t *testing.T, b *backend, more ...*backend) *mgoclient.Client {
	t.Helper()
	s := server.NewMCPServer("library", "test", server.WithToolCapabilities(false))
	if err := mcpgo.Register(s, libraryv1mcpwrite.NewBookService(b), runtime.WithRequestContextFunc(tenantFromMCPGoMeta)); err != nil {
		t.Fatal(err)
	}
	// More backends: the service registered again under other tool names.
	for i, m := range more {
		if err := mcpgo.Register(s, libraryv1mcpwrite.NewBookService(m), runtime.WithRequestContextFunc(tenantFromMCPGoMeta), runtime.WithToolNames(fmt.Sprintf("mirror%d_", i+1), "")); err != nil {
			t.Fatal(err)
		}
	}
	c, err := mgoclient.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	init := mgo.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-11-25"
	init.Params.ClientInfo = mgo.Implementation{Name: "host", Version: "test"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return c
}

// mgoRead reads uri as tenant through the mcp-go client: the contents as
// JSON, or the error's text, each scanned (mcptest.CheckAnswer).
func mgoRead(t *testing.T, c *mgoclient.Client, uri, tenant string) (string, string) {
	t.Helper()
	req := mgo.ReadResourceRequest{}
	req.Params.URI = uri
	req.Params.Meta = &mgo.Meta{AdditionalFields: map[string]any{tenantMeta: tenant}}
	res, err := c.ReadResource(context.Background(), req)
	if err != nil {
		mcptest.CheckAnswer(t, uri, err.Error())
		return "", traceIDs.ReplaceAllString(err.Error(), "TRACE")
	}
	b, err := json.Marshal(res.Contents)
	if err != nil {
		t.Fatal(err)
	}
	mcptest.CheckAnswer(t, uri, string(b))
	return string(b), ""
}

// The same templates, reads and refusals through an mcp-go server. mcp-go
// answers every handler error as an internal error whose text is
// "internal error: " and the runtime's "CODE: message" (redacted as on
// go-sdk); it has no error data.
func TestResourcesThroughMCPGo(t *testing.T) {
	b := newBackend()
	c := mgoClient(t, b)
	list, err := c.ListResourceTemplates(context.Background(), mgo.ListResourceTemplatesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	// mcp-go lists templates in no fixed order.
	sort.Slice(list.ResourceTemplates, func(i, j int) bool {
		return list.ResourceTemplates[i].URITemplate.Raw() < list.ResourceTemplates[j].URITemplate.Raw()
	})
	raw, _ := json.Marshal(list.ResourceTemplates)
	wantEqual(t, "resources/templates/list", string(raw), `[`+
		`{"uriTemplate":"aip://library.example.com/branches/{branch}/shelves/{shelf}","name":"get_shelf_2","title":"Shelf","description":"The library.example.com/Shelf the URI names (branches/{branch}/shelves/{shelf}), as get_shelf reads it, in protojson.","mimeType":"application/json"},`+
		`{"uriTemplate":"aip://library.example.com/shelves/{shelf}","name":"get_shelf","title":"Shelf","description":"The library.example.com/Shelf the URI names (shelves/{shelf}), as get_shelf reads it, in protojson.","mimeType":"application/json"},`+
		`{"uriTemplate":"aip://library.example.com/shelves/{shelf}/books/{book}","name":"get_book","title":"Book","description":"The library.example.com/Book the URI names (shelves/{shelf}/books/{book}), as get_book reads it, in protojson.","mimeType":"application/json"}]`)

	got, errText := mgoRead(t, c, "aip://library.example.com/shelves/s1/books/b1", "acme")
	wantEqual(t, "book", got+errText, `[{"uri":"aip://library.example.com/shelves/s1/books/b1","mimeType":"application/json","text":"{\"name\":\"shelves/s1/books/b1\",\"title\":\"The Road\",\"page_count\":287}"}]`)
	_, errText = mgoRead(t, c, "aip://library.example.com/shelves/s1/books/b1", "globex")
	wantEqual(t, "another tenant's book", errText, `internal error: NOT_FOUND: book shelves/s1/books/b1 not found`)
	_, errText = mgoRead(t, c, "aip://library.example.com/"+brokenBook, "acme")
	wantEqual(t, "a backend error", errText, `internal error: INTERNAL: internal error (trace_id TRACE)`)
	_, errText = mgoRead(t, c, "aip://library.example.com/shelves//books/b1", "acme")
	wantEqual(t, "an empty variable", errText, `internal error: CONSTRAINT_VIOLATION: resource URI "aip://library.example.com/shelves//books/b1" leaves {shelf} empty`)
	_, errText = mgoRead(t, c, "aip://library.example.com/authors/a1", "acme")
	wantEqual(t, "no template", errText, `resource not found: handler not found for resource URI 'aip://library.example.com/authors/a1': resource not found`)
	wantEqual(t, "backend requests", strings.Join(b.requests(), "; "), "GetBook acme shelves/s1/books/b1; GetBook globex shelves/s1/books/b1; GetBook acme shelves/s1/books/broken")
}

// On mcp-go too, a second registration of the service does not take over
// the first one's resources.
func TestSecondRegistrationDoesNotTakeOverResourcesOnMCPGo(t *testing.T) {
	first, second := newBackend(), newBackend()
	c := mgoClient(t, first, second)
	list, err := c.ListResourceTemplates(context.Background(), mgo.ListResourceTemplatesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.ResourceTemplates) != 3 {
		t.Fatalf("%d templates, want 3", len(list.ResourceTemplates))
	}
	got, errText := mgoRead(t, c, "aip://library.example.com/shelves/s1", "acme")
	wantEqual(t, "shelf", got+errText, `[{"uri":"aip://library.example.com/shelves/s1","mimeType":"application/json","text":"{\"name\":\"shelves/s1\",\"theme\":\"fiction\"}"}]`)
	wantEqual(t, "first backend", strings.Join(first.requests(), "; "), "GetShelf acme shelves/s1")
	wantEqual(t, "second backend", strings.Join(second.requests(), "; "), "")
}
