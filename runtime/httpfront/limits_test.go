package httpfront

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/callmeta"
)

// Connections past the per-address cap, then past the global cap, are
// answered 503 with the limit they hit; a closed connection frees its slot.
func TestNewServerCapsConnections(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	quiet := WithLogger(slog.New(slog.DiscardHandler))
	addr := serveOn(t, ok, quiet, WithMaxConnections(4), WithMaxConnectionsPerAddress(2))
	const perAddr = "too many connections from your address: it holds its limit of 2; reuse a connection or retry later\n"
	const global = "too many connections: the server holds its limit of 4; retry later\n"
	steps := []struct {
		from   string
		status int
		body   string
	}{
		{"127.0.0.1", 200, "ok"},
		{"127.0.0.1", 200, "ok"},
		{"127.0.0.1", 503, perAddr},
		{"127.0.0.2", 200, "ok"},
		{"127.0.0.2", 200, "ok"},
		{"127.0.0.3", 503, global},
	}
	var first net.Conn
	for i, st := range steps {
		conn, status, body := dialFrom(t, st.from, addr)
		if i == 0 {
			first = conn
		}
		if status != st.status || body != st.body {
			t.Fatalf("connection %d from %s: %d %q, want %d %q", i, st.from, status, body, st.status, st.body)
		}
	}
	first.Close()
	deadline := time.Now().Add(3 * time.Second)
	for {
		_, status, body := dialFrom(t, "127.0.0.3", addr)
		if status == 200 && body == "ok" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after closing a connection: %d %q, want 200", status, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestConnectionCapDefaults(t *testing.T) {
	c := newConfig(nil)
	if c.MaxConns != 1024 || c.MaxConnsPerAddr != 256 {
		t.Fatalf("defaults %d %d, want 1024 256", c.MaxConns, c.MaxConnsPerAddr)
	}
	c = newConfig([]Option{WithMaxConnections(7), WithMaxConnectionsPerAddress(3), WithMaxConnections(-1)})
	if c.MaxConns != 7 || c.MaxConnsPerAddr != 3 {
		t.Fatalf("options %d %d, want 7 3", c.MaxConns, c.MaxConnsPerAddr)
	}
}

// TraceHeaders neither uses nor echoes an invalid X-Correlation-Id, and
// drops an invalid X-Causation-Id: a generated id replaces the correlation.
func TestTraceHeadersReplaceInvalidIDs(t *testing.T) {
	var seen http.Header
	ts := httptest.NewServer(TraceHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen = r.Header.Clone() })))
	defer ts.Close()
	hexID := regexp.MustCompile(`^[0-9a-f]{32}$`)
	for _, v := range []string{"corr-\u202e1", strings.Repeat("a", 10<<10), "corr 1", `corr"1`} {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, ts.URL, nil)
		req.Header.Set(callmeta.HeaderCorrelationID, v)
		req.Header.Set(callmeta.HeaderCausationID, v)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		echoed := resp.Header.Get(callmeta.HeaderCorrelationID)
		if !hexID.MatchString(echoed) || seen.Get(callmeta.HeaderGeneratedCorrelationID) != echoed ||
			seen.Get(callmeta.HeaderCorrelationID) != "" || seen.Get(callmeta.HeaderCausationID) != "" {
			t.Fatalf("%.40q: echoed %q, handler saw %v", v, echoed, seen)
		}
	}
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, ts.URL, nil)
	req.Header.Set(callmeta.HeaderCorrelationID, "corr-ok-1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get(callmeta.HeaderCorrelationID) != "corr-ok-1" || seen.Get(callmeta.HeaderCorrelationID) != "corr-ok-1" {
		t.Fatalf("a valid id was not kept: %v", resp.Header)
	}
}
