package httpfront

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/bearer"
)

// BearerAuth answers a missing or refused token 401 with an RFC 6750
// challenge and a fixed body, logs the hook's reason and never sends it,
// and hands an accepted request to the next handler with the verified
// tenant and principal in its context, where the SDK adapters read them.
func TestBearerAuthChallengesAndRecordsTheIdentity(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	hook := func(_ context.Context, token string) (string, string, error) {
		switch token {
		case "good":
			return "tenant-a", "alice", nil
		case "no-principal":
			return "tenant-a", "", nil
		}
		return "", "", errors.New("token revoked at row 42 for alice@corp.example")
	}
	var calls atomic.Int32
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		id, ok := bearer.FromContext(r.Context())
		fmt.Fprintf(w, "ok %s %s %v", id.Tenant, id.Principal, ok)
	})
	ts := httptest.NewServer(BearerAuth(hook, WithLogger(logger))(next))
	defer ts.Close()

	const missing = `Bearer realm="mcpwrite"`
	const invalid = `Bearer realm="mcpwrite", error="invalid_token"`
	cases := []struct {
		name, authorization  string
		status               int
		challenge, body, log string
	}{
		{"no header", "", 401, missing, "missing bearer token: send Authorization: Bearer <token>\n", ""},
		{"other scheme", "Basic Zm9vOmJhcg==", 401, missing, "missing bearer token: send Authorization: Bearer <token>\n", ""},
		{"three fields", "Bearer good extra", 401, missing, "missing bearer token: send Authorization: Bearer <token>\n", ""},
		{"refused token", "Bearer stolen", 401, invalid, "invalid bearer token\n", "token revoked at row 42 for alice@corp.example"},
		{"no principal", "Bearer no-principal", 401, invalid, "invalid bearer token\n", "auth hook mapped the token to an empty tenant or principal"},
		{"valid", "bearer good", 200, "", "ok tenant-a alice true", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			logs.Reset()
			calls.Store(0)
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, ts.URL, strings.NewReader("{}"))
			if c.authorization != "" {
				req.Header.Set("Authorization", c.authorization)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.status || string(body) != c.body || resp.Header.Get("WWW-Authenticate") != c.challenge {
				t.Fatalf("status %d WWW-Authenticate %q body %q, want %d %q %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body, c.status, c.challenge, c.body)
			}
			if want := int32(map[bool]int{true: 1}[c.status == 200]); calls.Load() != want {
				t.Fatalf("next handler ran %d times, want %d", calls.Load(), want)
			}
			if c.status == 401 && !resp.Close {
				t.Fatal("a 401 leaves the connection open")
			}
			if c.log == "" && logs.Len() != 0 {
				t.Fatalf("unexpected log: %s", logs.String())
			}
			if c.log != "" && !strings.Contains(logs.String(), "msg=\"mcpwrite: bearer token refused\" error=\""+c.log+"\"") {
				t.Fatalf("log %q lacks the hook's reason %q", logs.String(), c.log)
			}
		})
	}
}

// 100 clients send the headers of a 2 MiB request to Front behind
// BearerAuth without a valid token and hold the body back. Each is
// answered 401 within 2 s, without the server reading a body byte, and
// the connection is closed.
func TestSlowUnauthenticatedBodiesGet401AtOnceBeforeFront(t *testing.T) {
	quiet := WithLogger(slog.New(slog.DiscardHandler))
	var hookCalls, served atomic.Int64
	hook := func(ctx context.Context, token string) (string, string, error) {
		hookCalls.Add(1)
		return testAuthHook(ctx, token)
	}
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served.Add(1) })
	addr := serveOn(t, BearerAuth(hook, quiet)(Front(h, quiet)), quiet)
	const clients = 100
	var wg sync.WaitGroup
	errs := make(chan string, clients)
	for i := range clients {
		wg.Go(func() {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				errs <- err.Error()
				return
			}
			defer conn.Close()
			auth := ""
			if i%2 == 1 {
				auth = "Authorization: Bearer not-a-token\r\n"
			}
			head := "POST / HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n" +
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
			want := "missing bearer token: send Authorization: Bearer <token>\n"
			if auth != "" {
				want = "invalid bearer token\n"
			}
			if resp.StatusCode != http.StatusUnauthorized || string(body) != want || !resp.Close || elapsed > 2*time.Second {
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
	if got := hookCalls.Load(); got != clients/2 {
		t.Errorf("auth hook called %d times, want %d (once per request with a token)", got, clients/2)
	}
	if served.Load() != 0 {
		t.Errorf("the handler behind Front ran %d times, want 0", served.Load())
	}
}
