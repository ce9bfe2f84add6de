package httpfront

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/callmeta"
)

// Front refuses a cross-site request with 403 before the handler runs,
// adds trace headers, answers a body over the limit 413, and hands the
// handler a body already read.
func TestFrontRefusesCrossSiteRequestsAndOversizedBodies(t *testing.T) {
	var seen []string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		seen = append(seen, fmt.Sprintf("%d %d %v", r.ContentLength, len(b), err))
		io.WriteString(w, "ok")
	})
	ts := httptest.NewServer(Front(h, WithMaxRequestBodyBytes(16)))
	defer ts.Close()
	post := func(body string, header map[string]string, chunked bool) (*http.Response, string) {
		t.Helper()
		var r io.Reader = strings.NewReader(body)
		if chunked {
			r = io.MultiReader(r) // unknown length: sent chunked
		}
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, ts.URL, r)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(got)
	}
	resp, _ := post("{}", map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, false)
	if resp.StatusCode != http.StatusForbidden || len(seen) != 0 {
		t.Fatalf("cross-site POST: status %d, handler runs %v, want 403 and none", resp.StatusCode, seen)
	}
	if tp := resp.Header.Get(callmeta.HeaderTraceParent); !callmeta.ValidTraceParent(tp) {
		t.Fatalf("traceparent %q not generated", tp)
	}
	if resp.Header.Get(callmeta.HeaderCorrelationID) == "" {
		t.Fatal("no correlation id echoed")
	}
	for _, chunked := range []bool{false, true} {
		resp, body := post(strings.Repeat("x", 17), nil, chunked)
		if resp.StatusCode != http.StatusRequestEntityTooLarge || body != "request body exceeds 16 bytes\n" || len(seen) != 0 {
			t.Fatalf("17 bytes (chunked %v): %d %q, handler runs %v; want 413 and none", chunked, resp.StatusCode, body, seen)
		}
	}
	resp, body := post(strings.Repeat("x", 16), nil, true)
	if resp.StatusCode != http.StatusOK || body != "ok" || strings.Join(seen, ";") != "16 16 <nil>" {
		t.Fatalf("16 bytes chunked: %d %q, handler saw %v; want 200 ok and the 16 bytes read before it ran", resp.StatusCode, body, seen)
	}
}
