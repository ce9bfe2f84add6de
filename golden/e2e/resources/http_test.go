package resources_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/resources/gen/library/v1/libraryv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcphttp"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// tokens are the bearer tokens the test's auth hook knows: tenant and
// principal of each.
var tokens = map[string][2]string{"acme-token": {"acme", "alice"}, "globex-token": {"globex", "bob"}}

func authHook(_ context.Context, token string) (string, string, error) {
	id, ok := tokens[token]
	if !ok {
		return "", "", fmt.Errorf("unknown token")
	}
	return id[0], id[1], nil
}

// bearer adds a bearer token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// Over streamable HTTP, a resource read acts for the token it carries:
// the tenant comes from the verified token (mcphttp.BearerAuth and
// mcphttp.RequestContextFromCall, as for tool calls), so globex cannot
// read acme's book by its URI.
func TestReadResourceOverHTTPActsForTheToken(t *testing.T) {
	b := newBackend()
	s := mcp.NewServer(&mcp.Implementation{Name: "library", Version: "test"}, nil)
	if err := libraryv1mcpwrite.RegisterBookServiceTools(s, b, runtime.WithRequestContextFunc(mcphttp.RequestContextFromCall)); err != nil {
		t.Fatal(err)
	}
	quiet := mcphttp.WithLogger(slog.New(slog.DiscardHandler))
	ts := httptest.NewServer(mcphttp.BearerAuth(authHook, quiet)(mcphttp.Handler(s, quiet)))
	t.Cleanup(ts.Close)
	session := func(token string) *mcp.ClientSession {
		tr := &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: &http.Client{Transport: bearer{token}}, DisableStandaloneSSE: true}
		cs, err := mcptest.NewClient(t, &mcp.Implementation{Name: "host", Version: "test"}, nil).Connect(context.Background(), tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	const uri = "aip://library.example.com/shelves/s1/books/b1"
	got, err := read(t, session("acme-token"), uri, "")
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "acme's book", got, `[{"uri":"aip://library.example.com/shelves/s1/books/b1","mimeType":"application/json","text":"{\"name\":\"shelves/s1/books/b1\",\"title\":\"The Road\",\"page_count\":287}"}]`)
	// _meta cannot name another tenant: the token decides.
	_, err = read(t, session("globex-token"), uri, "acme")
	wantRPCError(t, err, jsonrpc.CodeInvalidParams, "NOT_FOUND: book shelves/s1/books/b1 not found",
		`{"success":false,"error":{"code":"NOT_FOUND","message":"book shelves/s1/books/b1 not found"},"errors":[{"code":"NOT_FOUND","message":"book shelves/s1/books/b1 not found"}]}`)
	wantEqual(t, "backend requests", strings.Join(b.requests(), "; "), "GetBook acme shelves/s1/books/b1; GetBook globex shelves/s1/books/b1")
}
