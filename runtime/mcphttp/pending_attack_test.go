package mcphttp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ensureFiles raises the open-file limit to at least n when the hard limit
// allows it, and fails with what to change when it does not.
func ensureFiles(t *testing.T, n uint64) {
	t.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatalf("getrlimit: %v", err)
	}
	if lim.Cur >= n {
		return
	}
	if lim.Max < n {
		t.Fatalf("this test holds about %d open files; the hard limit is %d: raise it (ulimit -Hn %d)", n, lim.Max, n)
	}
	old := lim
	lim.Cur = n
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatalf("setrlimit %d: %v", n, err)
	}
	t.Cleanup(func() { _ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old) })
}

// whoamiCall is a stateless tools/call of whoami.
const whoamiCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`

// tenantCall makes one tool call with a valid token on a connection of
// its own and reports whether it was answered (200 with the tool's result)
// within limit.
func tenantCall(addr string, limit time.Duration) bool {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr, strings.NewReader(whoamiCall))
	req.Header.Set("Authorization", "Bearer tok-a-alice")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return err == nil && resp.StatusCode == http.StatusOK && strings.Contains(string(body), `\"tenant\":\"tenant-a\"`)
}

// attack holds n connections from the loopback addresses from that send a
// request line and one header and never finish; each is opened again as
// soon as the server closes it, until stop. It returns once all n are open.
type attack struct {
	stop    chan struct{}
	wg      sync.WaitGroup
	opens   atomic.Int64 // connections opened, reopens included
	open    atomic.Int64 // connections open now
	mu      sync.Mutex
	stopped bool
	conns   map[net.Conn]bool
	failed  atomic.Int64 // dials that failed
}

func startAttack(t *testing.T, addr string, from []string, n int) *attack {
	t.Helper()
	a := &attack{stop: make(chan struct{}), conns: map[net.Conn]bool{}}
	var ready sync.WaitGroup
	ready.Add(n)
	for i := range n {
		a.wg.Go(func() {
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from[i%len(from)])}, Timeout: time.Second}
			first := true
			for {
				select {
				case <-a.stop:
					if first {
						ready.Done()
					}
					return
				default:
				}
				conn, err := d.Dial("tcp", addr)
				if err == nil {
					_, err = io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n")
				}
				if first {
					ready.Done()
					first = false
				}
				if err != nil {
					a.failed.Add(1)
					if conn != nil {
						conn.Close()
					}
					time.Sleep(10 * time.Millisecond)
					continue
				}
				a.opens.Add(1)
				a.open.Add(1)
				a.mu.Lock()
				if a.stopped {
					a.mu.Unlock()
					conn.Close()
					a.open.Add(-1)
					return
				}
				a.conns[conn] = true
				a.mu.Unlock()
				_, _ = conn.Read(make([]byte, 1)) // blocks until the server closes it (or stop does)
				a.mu.Lock()
				delete(a.conns, conn)
				a.mu.Unlock()
				conn.Close()
				a.open.Add(-1)
			}
		})
	}
	ready.Wait()
	return a
}

func (a *attack) end() {
	close(a.stop)
	a.mu.Lock()
	a.stopped = true
	for c := range a.conns {
		c.Close()
	}
	a.mu.Unlock()
	a.wg.Wait()
}

// 1,025 connections from five loopback addresses (205 each, under the
// per-address cap) send a request line and one header without a token and
// never finish, and are opened again as soon as they close. A tenant with a
// valid token, opening a connection per call, has at least 95% of its calls
// answered within 1 s, and its authenticated keep-alive connection, opened
// before the attack, is never closed to make room.
func TestHalfOpenConnectionsDoNotLockTenantsOut(t *testing.T) {
	ensureFiles(t, 4096)
	quiet := WithLogger(slog.New(slog.DiscardHandler))
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "t"}, nil)
	s.AddTool(&mcp.Tool{Name: "whoami", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		rc, _ := RequestContextFromCall(ctx, req)
		b, _ := json.Marshal(map[string]string{"tenant": rc.TenantID})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
	})
	addr := serveOn(t, BearerAuth(testAuthHook, quiet)(Handler(s, quiet, WithStateless())), quiet)

	// An authenticated keep-alive connection, before the attack.
	kept, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer kept.Close()
	keptReader := bufio.NewReader(kept)
	keptCall := func() string {
		req := "POST / HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer tok-a-alice\r\nContent-Type: application/json\r\n" +
			"Accept: application/json, text/event-stream\r\nContent-Length: " + itoa(len(whoamiCall)) + "\r\n\r\n" + whoamiCall
		_ = kept.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.WriteString(kept, req); err != nil {
			return "write: " + err.Error()
		}
		resp, err := http.ReadResponse(keptReader, nil)
		if err != nil {
			return "read: " + err.Error()
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.Status
	}
	if got := keptCall(); got != "200 OK" {
		t.Fatalf("keep-alive call before the attack: %s", got)
	}

	t0 := time.Now()
	a := startAttack(t, addr, []string{"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6"}, 1025)
	t.Logf("attack up in %s", time.Since(t0))
	defer func() { t1 := time.Now(); a.end(); t.Logf("attack down in %s", time.Since(t1)) }()
	const calls = 40
	answered := 0
	start := time.Now()
	var slowest time.Duration
	for range calls {
		c0 := time.Now()
		if tenantCall(addr, time.Second) {
			answered++
		}
		slowest = max(slowest, time.Since(c0))
	}
	during := time.Since(start)
	keptAfter := keptCall()
	opens, open, failed := a.opens.Load(), a.open.Load(), a.failed.Load()
	t.Logf("slowest tenant call %s", slowest.Round(time.Millisecond))
	t.Logf("tenant calls answered within 1 s: %d of %d in %s; attack: %d connections opened (%d reopens), %d open at the end, %d dials failed",
		answered, calls, during.Round(time.Millisecond), opens, opens-1025, open, failed)
	if answered*100 < calls*95 {
		t.Errorf("the tenant had %d of %d calls answered within 1 s during the attack, want at least 95%%", answered, calls)
	}
	if keptAfter != "200 OK" {
		t.Errorf("the authenticated keep-alive connection after the attack: %s, want 200 OK", keptAfter)
	}
	if opens < 1025 {
		t.Errorf("the attack opened %d connections, want at least 1025", opens)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
