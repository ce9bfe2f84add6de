package mcphttp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
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
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/call", strings.NewReader(whoamiCall))
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
	return err == nil && resp.StatusCode == http.StatusOK && string(body) == `{"tenant":"tenant-a"}`
}

// attack holds n connections from the loopback addresses from that send a
// request line and one header and never finish; each is opened again as
// soon as the server closes it, until stop. It returns once all n are open.
// At most dialsInFlight connections are being opened at once: the attack
// is the connections held, not a flood of connects, which queues every
// client's connect behind it in the kernel's accept queue whatever the
// server counts (that is for SYN cookies and a firewall's rate limit).
// The attack runs in a process of its own (attackProcess), as an attacker
// does: its goroutines do not queue in the server's scheduler.
type attack struct {
	dialing chan struct{}
	stop    chan struct{}
	wg      sync.WaitGroup
	opens   atomic.Int64 // connections opened, reopens included
	open    atomic.Int64 // connections open now
	mu      sync.Mutex
	stopped bool
	conns   map[net.Conn]bool
	failed  atomic.Int64 // dials that failed
}

// dialsInFlight bounds the connects an attack has under way.
const dialsInFlight = 32

func startAttack(addr string, from []string, n int) *attack {
	a := &attack{dialing: make(chan struct{}, dialsInFlight), stop: make(chan struct{}), conns: map[net.Conn]bool{}}
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
				a.dialing <- struct{}{}
				conn, err := d.Dial("tcp", addr)
				if err == nil {
					_, err = io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n")
				}
				<-a.dialing
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
	mcpHandler := Handler(s, quiet, WithStateless())
	// Calls during the attack are answered by the token check and a
	// handler that names the caller's tenant; the keep-alive connection
	// makes MCP tool calls.
	addr := serveOn(t, BearerAuth(testAuthHook, quiet)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/mcp" {
			mcpHandler.ServeHTTP(w, r)
			return
		}
		tenant, _, _ := TokenIdentity(auth.TokenInfoFromContext(r.Context()))
		io.WriteString(w, `{"tenant":"`+tenant+`"}`)
	})), quiet)

	// An authenticated keep-alive connection, before the attack.
	kept, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer kept.Close()
	keptReader := bufio.NewReader(kept)
	keptCall := func() string {
		req := "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer tok-a-alice\r\nContent-Type: application/json\r\n" +
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
	stop := attackProcess(t, addr, []string{"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6"}, 1025)
	t.Logf("attack up in %s", time.Since(t0))
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
	opens, failed := stop()
	t.Logf("tenant calls answered within 1 s: %d of %d in %s (slowest %s); attack: %d connections opened (%d reopens), %d dials failed",
		answered, calls, during.Round(time.Millisecond), slowest.Round(time.Millisecond), opens, opens-1025, failed)
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

// attackEnv, when set to "addr n from,from,...", makes the test binary an
// attacker process instead of running tests (TestMain): it holds the
// attack, writes "ready" once all n connections are open, and on the end
// of its standard input writes "opens <n> failed <n>" and exits.
const attackEnv = "MCPHTTP_TEST_ATTACK"

func TestMain(m *testing.M) {
	if spec := os.Getenv(attackEnv); spec != "" {
		os.Exit(runAttacker(spec))
	}
	os.Exit(m.Run())
}

func runAttacker(spec string) int {
	f := strings.Fields(spec)
	if len(f) != 3 {
		fmt.Fprintf(os.Stderr, "%s: want \"addr n from,...\", got %q\n", attackEnv, spec)
		return 2
	}
	n, err := strconv.Atoi(f[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	a := startAttack(f[0], strings.Split(f[2], ","), n)
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	a.end()
	fmt.Printf("opens %d failed %d\n", a.opens.Load(), a.failed.Load())
	return 0
}

// attackProcess runs the attack in a process of its own until the test
// ends; stop ends it and returns its counts.
func attackProcess(t *testing.T, addr string, from []string, n int) (stop func() (opens, failed int64)) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), attackEnv+"="+addr+" "+strconv.Itoa(n)+" "+strings.Join(from, ","))
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := bufio.NewScanner(out)
	ready := make(chan bool, 1)
	go func() { ready <- lines.Scan() && lines.Text() == "ready" }()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatalf("the attacker process did not start: %v", lines.Err())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the attacker process did not open its connections within 30 s")
	}
	return func() (int64, int64) {
		in.Close()
		var opens, failed int64
		if !lines.Scan() {
			t.Fatalf("no counts from the attacker process: %v", lines.Err())
		}
		if _, err := fmt.Sscanf(lines.Text(), "opens %d failed %d", &opens, &failed); err != nil {
			t.Fatalf("attacker counts %q: %v", lines.Text(), err)
		}
		_ = cmd.Wait()
		return opens, failed
	}
}
