package mcphttp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveOn runs NewServer(h, opts...) on a fresh 127.0.0.1 listener until the
// test ends and returns its address.
func serveOn(t *testing.T, h http.Handler, opts ...Option) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(h, opts...)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}

// rssBytes reads this process's resident set size from /proc/self/status.
func rssBytes(t *testing.T) uint64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmRSS %q: %v", v, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

func heapInuse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// 100 clients send the headers of a 2 MiB request without a valid token and
// hold the body back. Each is answered 401 within 2 s, without the server
// reading (or buffering) a body byte, and the connection is closed; the
// server's heap and the process's RSS grow by less than 64 MB.
func TestSlowUnauthenticatedBodiesGet401AtOnce(t *testing.T) {
	quiet := WithLogger(slog.New(slog.DiscardHandler))
	var hookCalls atomic.Int64
	hook := func(ctx context.Context, token string) (string, string, error) {
		hookCalls.Add(1)
		return testAuthHook(ctx, token)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "t"}, nil)
	addr := serveOn(t, BearerAuth(hook, quiet)(Handler(s, quiet)), quiet)

	heap0, rss0 := heapInuse(), rssBytes(t)
	const clients = 100
	var wg sync.WaitGroup
	conns := make(chan net.Conn, clients)
	errs := make(chan string, clients)
	for i := range clients {
		wg.Go(func() {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				errs <- err.Error()
				return
			}
			conns <- conn
			auth := ""
			if i%2 == 1 {
				auth = "Authorization: Bearer not-a-token\r\n"
			}
			head := "POST / HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
				auth + "Content-Length: " + strconv.Itoa(2<<20) + "\r\n\r\n{\"jsonrpc\":"
			start := time.Now()
			if _, err := io.WriteString(conn, head); err != nil {
				errs <- err.Error()
				return
			}
			_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				errs <- "client " + strconv.Itoa(i) + ": " + err.Error()
				return
			}
			body, _ := io.ReadAll(resp.Body) // ends when the server closes
			elapsed := time.Since(start)
			want := msgMissingBearer
			if auth != "" {
				want = msgInvalidBearer
			}
			if resp.StatusCode != http.StatusUnauthorized || string(body) != want+"\n" || !resp.Close || elapsed > 2*time.Second {
				errs <- "client " + strconv.Itoa(i) + ": status " + resp.Status + " body " + strconv.Quote(string(body)) +
					" close " + strconv.FormatBool(resp.Close) + " after " + elapsed.String()
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	heap1, rss1 := heapInuse(), rssBytes(t)
	close(conns)
	for c := range conns {
		c.Close()
	}
	const limit = 64 << 20
	t.Logf("heap in use %d -> %d bytes, RSS %d -> %d bytes", heap0, heap1, rss0, rss1)
	if heap1 > heap0 && heap1-heap0 >= limit {
		t.Errorf("heap grew by %d bytes, want < %d", heap1-heap0, limit)
	}
	if rss1 > rss0 && rss1-rss0 >= limit {
		t.Errorf("RSS grew by %d bytes, want < %d", rss1-rss0, limit)
	}
	if got := hookCalls.Load(); got != clients/2 {
		t.Errorf("auth hook called %d times, want %d (once per request with a token)", got, clients/2)
	}
}

// One tenant's principals together hold at most the per-tenant number of
// sessions; another tenant still opens its own.
func TestSessionCapPerTenant(t *testing.T) {
	s, ts := newTestHTTPServer(t, WithMaxSessions(10), WithMaxSessionsPerIdentity(5), WithMaxSessionsPerTenant(3))
	(&peer{t: t, url: ts.URL, token: "tok-a-alice"}).open()
	bob := &peer{t: t, url: ts.URL, token: "tok-a-bob"}
	bob.open()
	(&peer{t: t, url: ts.URL, token: "tok-a-alice"}).open()
	again := &peer{t: t, url: ts.URL, token: "tok-a-bob"}
	resp := again.send(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"peer","version":"1"}}}`, nil)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := "too many sessions for your tenant: it holds its limit of 3; end unused sessions with DELETE and their Mcp-Session-Id, or reuse one\n"
	if resp.StatusCode != http.StatusTooManyRequests || string(body) != want || resp.Header.Get("Retry-After") != "60" {
		t.Fatalf("fourth session of tenant a: status %d Retry-After %q body %q", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	(&peer{t: t, url: ts.URL, token: "tok-b-alice"}).open()
	if n := countSessions(s); n != 4 {
		t.Fatalf("sessions: %d, want 4", n)
	}
	if code, _ := bob.answer(http.MethodDelete, ""); code != http.StatusNoContent {
		t.Fatalf("DELETE: status %d", code)
	}
	waitSessions(t, s, 3)
	again.open()
	if c := newHTTPConfig(nil); c.maxSessionsPerTenant != 250 {
		t.Fatalf("default per tenant %d, want 250", c.maxSessionsPerTenant)
	}
}

// bearerTransport adds a bearer token to every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// The official MCP client works through the whole stack as deployed
// (NewServer, BearerAuth, Handler): bodies read after authentication, the
// response stream of an in-call elicitation not cut by the body deadline,
// and the identity taken from the token.
func TestSDKClientThroughNewServerBearerAuthAndHandler(t *testing.T) {
	s, _ := newTestHTTPServer(t)
	quiet := WithLogger(slog.New(slog.DiscardHandler))
	addr := serveOn(t, BearerAuth(testAuthHook, quiet)(Handler(s, quiet, WithRequestReadTimeout(time.Second))), quiet, WithRequestReadTimeout(time.Second))
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			time.Sleep(1500 * time.Millisecond) // longer than the body deadline
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
		},
	})
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: "http://" + addr, HTTPClient: &http.Client{Transport: bearerTransport{"tok-b-alice"}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	var who map[string]string
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &who); err != nil || who["tenant"] != "tenant-b" || who["principal"] != "alice" {
		t.Fatalf("whoami: %v %v", who, err)
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "confirm", Arguments: map[string]any{}})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "accept" {
		t.Fatalf("confirm: %v %+v", err, res)
	}
}
