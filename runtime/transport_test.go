package runtime

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestCheckLoopbackRefusesNetworkAddresses(t *testing.T) {
	cases := map[string]string{
		"127.0.0.1:8080": "",
		"[::1]:8080":     "",
		"localhost:8080": "",
		"127.9.9.9:1":    "",
		"0.0.0.0:8080":   `address "0.0.0.0:8080": only loopback addresses are served; put a TLS-terminating, authenticating proxy in front for anything else`,
		"10.1.2.3:80":    `address "10.1.2.3:80": only loopback addresses are served; put a TLS-terminating, authenticating proxy in front for anything else`,
		":8080":          `address ":8080": only loopback addresses are served; put a TLS-terminating, authenticating proxy in front for anything else`,
		"8080":           `address "8080": address 8080: missing port in address`,
	}
	for addr, want := range cases {
		got := ""
		if err := CheckLoopback(addr); err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("CheckLoopback(%q) = %q, want %q", addr, got, want)
		}
	}
}

func TestStreamableHTTPHandlerRefusesCrossSiteRequestsAndAddsTraceHeaders(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "t"}, nil)
	ts := httptest.NewServer(StreamableHTTPHandler(s))
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
	if tp := resp.Header.Get(HeaderTraceParent); !validTraceParent(tp) {
		t.Fatalf("traceparent %q not generated", tp)
	}
	if resp.Header.Get(HeaderCorrelationID) == "" {
		t.Fatal("no correlation id echoed")
	}
}
