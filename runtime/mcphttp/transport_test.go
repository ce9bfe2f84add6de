package mcphttp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/callmeta"
)

func TestHandlerRefusesCrossSiteRequestsAndAddsTraceHeaders(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "t"}, nil)
	ts := httptest.NewServer(Handler(s))
	defer ts.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, ts.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-site POST: status %d, want 403", resp.StatusCode)
	}
	if tp := resp.Header.Get(callmeta.HeaderTraceParent); !callmeta.ValidTraceParent(tp) {
		t.Fatalf("traceparent %q not generated", tp)
	}
	if resp.Header.Get(callmeta.HeaderCorrelationID) == "" {
		t.Fatal("no correlation id echoed")
	}
}

func TestHandlerRefusesOversizedBodies(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "t"}, nil)
	for _, c := range []struct {
		opts  []Option
		limit int
	}{{nil, DefaultMaxRequestBodyBytes}, {[]Option{WithMaxRequestBodyBytes(4096)}, 4096}} {
		ts := httptest.NewServer(Handler(s, c.opts...))
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", c.limit) + `"}}`
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		ts.Close()
		want := fmt.Sprintf("request body exceeds %d bytes\n", c.limit)
		if resp.StatusCode != http.StatusRequestEntityTooLarge || string(got) != want {
			t.Fatalf("limit %d: status %d body %q, want 413 %q", c.limit, resp.StatusCode, got, want)
		}
	}
}
