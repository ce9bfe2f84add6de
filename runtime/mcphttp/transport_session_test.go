package mcphttp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/callmeta"
)

// Three identities: two principals of tenant A and a principal of tenant B
// with the same name as one in A.
var testTokens = map[string][2]string{
	"tok-a-alice": {"tenant-a", "alice"},
	"tok-a-bob":   {"tenant-a", "bob"},
	"tok-b-alice": {"tenant-b", "alice"},
}

func testAuthHook(_ context.Context, token string) (string, string, error) {
	id, ok := testTokens[token]
	if !ok {
		return "", "", fmt.Errorf("token %q is not in the test table", token)
	}
	return id[0], id[1], nil
}

// newTestHTTPServer serves an MCP server with two tools over the full HTTP
// stack: "confirm" asks the caller to confirm (elicitation) and answers with
// the action it received; "whoami" answers with the request context of the
// call as JSON.
func newTestHTTPServer(t *testing.T, opts ...Option) (*mcp.Server, *httptest.Server) {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "t"}, nil)
	object := map[string]any{"type": "object"}
	s.AddTool(&mcp.Tool{Name: "confirm", InputSchema: object}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
			Message:         "Delete element e-1?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}},
		})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Action}}}, nil
	})
	s.AddTool(&mcp.Tool{Name: "whoami", InputSchema: object}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		rc, _ := RequestContextFromCall(ctx, req)
		b, _ := json.Marshal(map[string]string{
			"tenant": rc.TenantID, "principal": rc.PrincipalID, "traceparent": rc.TraceParent,
			"correlation": rc.CorrelationID, "causation": rc.CausationID,
		})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
	})
	quiet := WithLogger(slog.New(slog.DiscardHandler))
	ts := httptest.NewServer(BearerAuth(testAuthHook, quiet)(Handler(s, append([]Option{quiet}, opts...)...)))
	t.Cleanup(ts.Close)
	return s, ts
}

// peer speaks streamable HTTP by hand, so a test can replay what an attacker
// holding a leaked session id would send.
type peer struct {
	t       *testing.T
	url     string
	token   string
	session string
}

func (p *peer) send(method, body string, header map[string]string) *http.Response {
	p.t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, p.url, strings.NewReader(body))
	if err != nil {
		p.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if p.token != "" {
		req.Header.Set("Authorization", "Bearer "+p.token)
	}
	if p.session != "" {
		req.Header.Set("Mcp-Session-Id", p.session)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	return resp
}

// answer sends a request and returns status and body (closed).
func (p *peer) answer(method, body string) (int, string) {
	p.t.Helper()
	resp := p.send(method, body, nil)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// open initializes a session (declaring elicitation support) and returns its id.
func (p *peer) open() string {
	p.t.Helper()
	resp := p.send(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"peer","version":"1"}}}`, nil)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		p.t.Fatalf("initialize: status %d: %s", resp.StatusCode, b)
	}
	nextMessage(p.t, bufio.NewReader(resp.Body))
	p.session = resp.Header.Get("Mcp-Session-Id")
	if p.session == "" {
		p.t.Fatal("initialize: no Mcp-Session-Id")
	}
	if code, body := p.answer(http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); code != http.StatusAccepted {
		p.t.Fatalf("initialized: status %d: %s", code, body)
	}
	return p.session
}

// nextMessage reads SSE events until one carries a JSON-RPC message (a
// resumable stream starts with an event without data).
func nextMessage(t *testing.T, r *bufio.Reader) map[string]any {
	t.Helper()
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading event stream: %v", err)
		}
		if data, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "data: "); ok && data != "" {
			var m map[string]any
			if err := json.Unmarshal([]byte(data), &m); err != nil {
				t.Fatalf("event data %q: %v", data, err)
			}
			return m
		}
	}
}

func toolText(t *testing.T, m map[string]any) string {
	t.Helper()
	res, ok := m["result"].(map[string]any)
	if !ok {
		t.Fatalf("not a result: %v", m)
	}
	return res["content"].([]any)[0].(map[string]any)["text"].(string)
}

const sessionMismatch = "session user mismatch\n"

// A principal holding another identity's session id (leaked, guessed) can
// neither answer its pending confirmation, call tools in it nor end it: the
// session is bound to tenant and principal, not to the principal's name.
func TestSessionBoundToTenantAndPrincipalOverHTTP(t *testing.T) {
	_, ts := newTestHTTPServer(t)
	victim := &peer{t: t, url: ts.URL, token: "tok-a-alice"}
	sid := victim.open()

	// The victim's call waits for confirmation on its response stream.
	call := victim.send(http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"confirm","arguments":{}}}`, nil)
	defer call.Body.Close()
	stream := bufio.NewReader(call.Body)
	elicit := nextMessage(t, stream)
	if elicit["method"] != "elicitation/create" {
		t.Fatalf("expected the confirmation request, got %v", elicit)
	}
	elicitID, _ := json.Marshal(elicit["id"])

	attackers := map[string]string{
		"same principal name, other tenant": "tok-b-alice",
		"other principal, same tenant":      "tok-a-bob",
	}
	for name, token := range attackers {
		t.Run(name, func(t *testing.T) {
			attacker := &peer{t: t, url: ts.URL, token: token, session: sid}
			cases := []struct{ what, method, body string }{
				{"answer the confirmation", http.MethodPost, `{"jsonrpc":"2.0","id":` + string(elicitID) + `,"result":{"action":"accept","content":{"ok":true}}}`},
				{"call a tool", http.MethodPost, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`},
				{"end the session", http.MethodDelete, ``},
			}
			for _, c := range cases {
				if code, body := attacker.answer(c.method, c.body); code != http.StatusForbidden || body != sessionMismatch {
					t.Errorf("%s: status %d body %q, want 403 %q", c.what, code, body, sessionMismatch)
				}
			}
		})
	}

	// The victim's own answer is the one the call receives.
	if code, body := victim.answer(http.MethodPost, `{"jsonrpc":"2.0","id":`+string(elicitID)+`,"result":{"action":"decline"}}`); code != http.StatusAccepted {
		t.Fatalf("victim's answer: status %d: %s", code, body)
	}
	if got := toolText(t, nextMessage(t, stream)); got != "decline" {
		t.Fatalf("confirmation answered %q, want the victim's decline", got)
	}
	if code, body := victim.answer(http.MethodDelete, ""); code != http.StatusNoContent {
		t.Fatalf("victim's DELETE: status %d: %s", code, body)
	}
	if code, body := victim.answer(http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`); code != http.StatusNotFound || body != "session not found\n" {
		t.Fatalf("after DELETE: status %d body %q", code, body)
	}
}

func TestSessionUserIDIsUnambiguous(t *testing.T) {
	pairs := [][2]string{
		{"a:b", "c"}, {"a", "b:c"}, {"a", "bc"}, {"ab", "c"}, {`a","b`, "c"}, {"a", `b","c`},
		{"a\x00b", "c"}, {"a", "b\x00c"}, {"tenant-a", "alice"}, {"tenant-b", "alice"},
	}
	seen := map[string][2]string{}
	for _, p := range pairs {
		id := SessionUserID(p[0], p[1])
		if q, dup := seen[id]; dup {
			t.Fatalf("SessionUserID(%q, %q) = SessionUserID(%q, %q) = %q", p[0], p[1], q[0], q[1], id)
		}
		seen[id] = p
	}
	if got := SessionUserID("tenant-a", "alice"); got != `["tenant-a","alice"]` {
		t.Fatalf("SessionUserID = %q", got)
	}
}

func TestSessionIdleTimeoutClosesSessions(t *testing.T) {
	s, ts := newTestHTTPServer(t, WithSessionIdleTimeout(300*time.Millisecond))
	p := &peer{t: t, url: ts.URL, token: "tok-a-alice"}
	p.open()
	if n := countSessions(s); n != 1 {
		t.Fatalf("sessions after open: %d, want 1", n)
	}
	waitSessions(t, s, 0) // within 5 s of a 300 ms idle timeout
	// The server forgets the session first and the HTTP handler a moment
	// later: within that moment a request still reaches the closing session.
	// Once the handler has caught up, the session id is refused for good.
	var code int
	var body string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		code, body = p.answer(http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		if code == http.StatusNotFound || time.Now().After(deadline) {
			break
		}
	}
	if code != http.StatusNotFound || body != "session not found\n" {
		t.Fatalf("request in the expired session: status %d body %q", code, body)
	}
	if n := countSessions(s); n != 0 {
		t.Fatalf("a request in the expired session brought it back: %d sessions", n)
	}
}

func TestSessionDefaults(t *testing.T) {
	if c := newHTTPConfig(nil); c.sessionIdleTimeout != 30*time.Minute || c.maxSessions != 1000 || c.maxSessionsPerIdentity != 100 {
		t.Fatalf("defaults: idle %s, max sessions %d, per identity %d", c.sessionIdleTimeout, c.maxSessions, c.maxSessionsPerIdentity)
	}
	if c := newHTTPConfig([]Option{WithSessionIdleTimeout(0), WithMaxSessions(-1)}); c.sessionIdleTimeout != DefaultSessionIdleTimeout || c.maxSessions != DefaultMaxSessions {
		t.Fatalf("non-positive values must keep the defaults: idle %s, max sessions %d", c.sessionIdleTimeout, c.maxSessions)
	}
}

func TestSessionCapRefusesNewSessionsWith503(t *testing.T) {
	s, ts := newTestHTTPServer(t, WithMaxSessions(2))
	first := &peer{t: t, url: ts.URL, token: "tok-a-alice"}
	first.open()
	(&peer{t: t, url: ts.URL, token: "tok-a-bob"}).open()

	third := &peer{t: t, url: ts.URL, token: "tok-b-alice"}
	resp := third.send(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"peer","version":"1"}}}`, nil)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := "too many sessions: the server holds its limit of 2; retry later, or end an unused session with DELETE and its Mcp-Session-Id\n"
	if resp.StatusCode != http.StatusServiceUnavailable || string(body) != want || resp.Header.Get("Retry-After") != "60" {
		t.Fatalf("third session: status %d Retry-After %q body %q", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if n := countSessions(s); n != 2 {
		t.Fatalf("sessions: %d, want 2", n)
	}
	// Requests in existing sessions still work at the cap.
	if code, body := first.answer(http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); code != http.StatusOK {
		t.Fatalf("existing session at the cap: status %d: %s", code, body)
	}
	// A session that ends makes room.
	if code, _ := first.answer(http.MethodDelete, ""); code != http.StatusNoContent {
		t.Fatalf("DELETE: status %d", code)
	}
	waitSessions(t, s, 1)
	third.open()
	if n := countSessions(s); n != 2 {
		t.Fatalf("sessions: %d, want 2", n)
	}
}

// One identity cannot take every session: past its own limit it is refused
// with 429 while others, including a same-named principal of another tenant,
// still open sessions.
func TestSessionCapPerIdentity(t *testing.T) {
	s, ts := newTestHTTPServer(t, WithMaxSessions(10), WithMaxSessionsPerIdentity(2))
	a1 := &peer{t: t, url: ts.URL, token: "tok-a-alice"}
	a1.open()
	(&peer{t: t, url: ts.URL, token: "tok-a-alice"}).open()

	again := &peer{t: t, url: ts.URL, token: "tok-a-alice"}
	resp := again.send(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"peer","version":"1"}}}`, nil)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := "too many sessions for this identity: it holds its limit of 2; end an unused session with DELETE and its Mcp-Session-Id, or reuse one\n"
	if resp.StatusCode != http.StatusTooManyRequests || string(body) != want || resp.Header.Get("Retry-After") != "60" {
		t.Fatalf("third session of one identity: status %d Retry-After %q body %q", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	(&peer{t: t, url: ts.URL, token: "tok-b-alice"}).open()
	(&peer{t: t, url: ts.URL, token: "tok-a-bob"}).open()
	if n := countSessions(s); n != 4 {
		t.Fatalf("sessions: %d, want 4", n)
	}
	if code, _ := a1.answer(http.MethodDelete, ""); code != http.StatusNoContent {
		t.Fatalf("DELETE: status %d", code)
	}
	waitSessions(t, s, 3)
	again.open()
}

// waitSessions waits until s holds n sessions: a session ended by DELETE
// leaves the server's list asynchronously, shortly after the 204.
func waitSessions(t *testing.T, s *mcp.Server, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); countSessions(s) != n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("sessions: %d, want %d", countSessions(s), n)
		}
	}
}

func countSessions(s *mcp.Server) int {
	n := 0
	for range s.Sessions() {
		n++
	}
	return n
}

func TestBearerAuthChallengesWithoutEchoingTheHookError(t *testing.T) {
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
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
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
		{"refused token", "Bearer stolen", 401, invalid, "invalid bearer token\n", "token revoked at row 42 for alice@corp.example"},
		{"no principal", "Bearer no-principal", 401, invalid, "invalid bearer token\n", "auth hook mapped the token to an empty tenant or principal"},
		{"valid", "bearer good", 200, "", "ok", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			logs.Reset()
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
			if c.log == "" && logs.Len() != 0 {
				t.Fatalf("unexpected log: %s", logs.String())
			}
			if c.log != "" && !strings.Contains(logs.String(), "msg=\"mcpwrite: bearer token refused\" error=\""+c.log+"\"") {
				t.Fatalf("log %q lacks the hook's reason %q", logs.String(), c.log)
			}
		})
	}
}

// Over HTTP, a call's _meta trace fields are used when the client sent no
// header for them; a header the client sent wins; without either the
// generated values apply.
func TestTraceMetaReachesTheRequestContextOverHTTP(t *testing.T) {
	_, ts := newTestHTTPServer(t)
	const metaTP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	const headerTP = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	withMeta := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{},"_meta":{"traceparent":"` + metaTP + `","io.mcpwrite/correlation_id":"corr-meta","io.mcpwrite/causation_id":"cause-meta"}}}`
	cases := []struct {
		name    string
		body    string
		header  map[string]string
		want    map[string]string
		echoTP  string // traceparent echoed in the response; "" = generated
		genCorr bool   // correlation id generated
	}{
		{"meta only", withMeta, nil,
			map[string]string{"traceparent": metaTP, "correlation": "corr-meta", "causation": "cause-meta"}, "", false},
		{"client headers win over meta", withMeta,
			map[string]string{"Traceparent": headerTP, "X-Correlation-Id": "corr-header", "X-Causation-Id": "cause-header"},
			map[string]string{"traceparent": headerTP, "correlation": "corr-header", "causation": "cause-header"}, headerTP, false},
		{"invalid header traceparent falls back to meta", withMeta,
			map[string]string{"Traceparent": "00-zz-00-01"},
			map[string]string{"traceparent": metaTP, "correlation": "corr-meta", "causation": "cause-meta"}, "", false},
		{"forged generated headers are ignored", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`,
			map[string]string{callmeta.HeaderGeneratedTraceParent: headerTP, callmeta.HeaderGeneratedCorrelationID: "corr-forged"},
			map[string]string{"causation": ""}, "", true},
		{"neither: generated", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`, nil,
			map[string]string{"causation": ""}, "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &peer{t: t, url: ts.URL, token: "tok-b-alice"}
			p.open()
			resp := p.send(http.MethodPost, c.body, c.header)
			defer resp.Body.Close()
			var rc map[string]string
			if err := json.Unmarshal([]byte(toolText(t, nextMessage(t, bufio.NewReader(resp.Body)))), &rc); err != nil {
				t.Fatal(err)
			}
			if rc["tenant"] != "tenant-b" || rc["principal"] != "alice" {
				t.Fatalf("identity %q/%q, want tenant-b/alice", rc["tenant"], rc["principal"])
			}
			for k, v := range c.want {
				if rc[k] != v {
					t.Errorf("%s = %q, want %q", k, rc[k], v)
				}
			}
			echoTP, echoCorr := resp.Header.Get(callmeta.HeaderTraceParent), resp.Header.Get(callmeta.HeaderCorrelationID)
			if c.echoTP != "" && echoTP != c.echoTP {
				t.Errorf("echoed traceparent %q, want %q", echoTP, c.echoTP)
			}
			if c.echoTP == "" && (!callmeta.ValidTraceParent(echoTP) || echoTP == headerTP || echoTP == metaTP) {
				t.Errorf("echoed traceparent %q, want a generated one", echoTP)
			}
			if c.want["traceparent"] == "" && rc["traceparent"] != echoTP {
				t.Errorf("traceparent %q, want the generated %q", rc["traceparent"], echoTP)
			}
			if c.genCorr && (len(echoCorr) != 32 || rc["correlation"] != echoCorr) {
				t.Errorf("correlation %q, echoed %q: want the same generated 32-hex id", rc["correlation"], echoCorr)
			}
		})
	}
}
