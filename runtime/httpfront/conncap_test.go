package httpfront

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// IPv4 addresses are counted one by one, IPv6 ones by their /64.
func TestAddrKeyCountsIPv6ByItsSlash64(t *testing.T) {
	for in, want := range map[string]string{
		"192.0.2.7":                   "192.0.2.7",
		"::ffff:192.0.2.7":            "192.0.2.7",
		"2001:db8:1:2:aaaa::1":        "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff:ffff::9":   "2001:db8:1:2::/64",
		"2001:db8:1:3::1":             "2001:db8:1:3::/64",
		"fe80::1%eth0":                "fe80::/64",
		"::1":                         "::/64",
		"2001:db8:abcd:12:1:2:3:4567": "2001:db8:abcd:12::/64",
	} {
		if got := addrKey(netip.MustParseAddr(in)); got != want {
			t.Errorf("addrKey(%s) = %s, want %s", in, got, want)
		}
	}
}

// The client address behind trusted proxies is the rightmost forwarded
// address that is not a trusted proxy.
func TestForwardedClientTakesTheRightmostUntrustedAddress(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8:ff::/48")}
	peer := netip.MustParseAddr("10.0.0.1")
	tests := []struct {
		name string
		h    http.Header
		want string
	}{
		{"no header: the peer", http.Header{}, "10.0.0.1"},
		{"one hop", http.Header{"X-Forwarded-For": {"198.51.100.7"}}, "198.51.100.7"},
		{"a spoofed left part is never read", http.Header{"X-Forwarded-For": {"1.2.3.4, 198.51.100.7"}}, "198.51.100.7"},
		{"trusted hops are skipped", http.Header{"X-Forwarded-For": {"1.2.3.4, 198.51.100.7, 10.1.1.1, 10.2.2.2"}}, "198.51.100.7"},
		{"several header lines, in order", http.Header{"X-Forwarded-For": {"1.2.3.4, 198.51.100.7", "10.1.1.1"}}, "198.51.100.7"},
		{"every hop trusted: the leftmost", http.Header{"X-Forwarded-For": {"10.3.3.3, 10.1.1.1"}}, "10.3.3.3"},
		{"a hop that does not parse stops the walk", http.Header{"X-Forwarded-For": {"198.51.100.7, garbage, 10.1.1.1"}}, "10.1.1.1"},
		{"a port is allowed", http.Header{"X-Forwarded-For": {"198.51.100.7:4711"}}, "198.51.100.7"},
		{"Forwarded wins over X-Forwarded-For", http.Header{"Forwarded": {`for=192.0.2.60;proto=http;by=10.0.0.1`}, "X-Forwarded-For": {"198.51.100.7"}}, "192.0.2.60"},
		{"Forwarded with IPv6 and port", http.Header{"Forwarded": {`for=192.0.2.1, for="[2001:db8:cafe::17]:4711"`}}, "2001:db8:cafe::17"},
		{"Forwarded skips trusted IPv6 hops", http.Header{"Forwarded": {`for=192.0.2.60, For="[2001:db8:ff::1]"`}}, "192.0.2.60"},
		{"Forwarded unknown stops the walk", http.Header{"Forwarded": {`for=192.0.2.60, for=unknown`}}, "10.0.0.1"},
		{"Forwarded element without for", http.Header{"Forwarded": {`proto=https`}}, "10.0.0.1"},
	}
	for _, tt := range tests {
		if got := forwardedClient(tt.h, trusted, peer); got.String() != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}

// pendingFrom opens a connection from local that sends a request line and
// one header and never finishes; the server has accepted it when it
// returns.
func pendingFrom(t *testing.T, local, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // the server counts it at accept
	return conn
}

// closedByServer reports whether the server closed conn (within 2 s).
func closedByServer(conn net.Conn) bool {
	_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	_, err := conn.Read(make([]byte, 1))
	return err == io.EOF || (err != nil && !isTimeout(err))
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// again makes one more request on conn, which answered one before.
func again(t *testing.T, conn net.Conn) (int, string) {
	t.Helper()
	if _, err := io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		return 0, err.Error()
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// At the total, a new connection closes the oldest pending connection and
// is served; connections that finished their headers are never closed for
// it. Past the pending budget, the oldest pending connection of the
// address holding the most pending connections is closed.
func TestNewConnectionsClosePendingOnesNeverEstablishedOnes(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	quiet := WithLogger(slog.New(slog.DiscardHandler))

	t.Run("total", func(t *testing.T) {
		addr := serveOn(t, ok, quiet, WithMaxConnections(3))
		est1, s1, _ := dialFrom(t, "127.0.0.1", addr)
		est2, s2, _ := dialFrom(t, "127.0.0.1", addr)
		half := pendingFrom(t, "127.0.0.2", addr)
		if s1 != 200 || s2 != 200 {
			t.Fatalf("established: %d %d", s1, s2)
		}
		if _, status, body := dialFrom(t, "127.0.0.3", addr); status != 200 || body != "ok" {
			t.Fatalf("a new connection at the total: %d %q, want 200 ok", status, body)
		}
		if !closedByServer(half) {
			t.Fatal("the pending connection was not closed")
		}
		for i, c := range []net.Conn{est1, est2} {
			if status, body := again(t, c); status != 200 || body != "ok" {
				t.Fatalf("established connection %d after the eviction: %d %q", i, status, body)
			}
		}
	})

	t.Run("pending budget", func(t *testing.T) {
		addr := serveOn(t, ok, quiet, WithMaxConnections(10), WithMaxPendingConnections(3))
		a1 := pendingFrom(t, "127.0.0.2", addr)
		b1 := pendingFrom(t, "127.0.0.3", addr)
		a2 := pendingFrom(t, "127.0.0.2", addr)
		c1 := pendingFrom(t, "127.0.0.4", addr) // past the budget: 127.0.0.2 holds the most
		if !closedByServer(a1) {
			t.Fatal("the oldest pending connection of the address holding the most was not closed")
		}
		// The others are still open: they answer once their headers end.
		for name, c := range map[string]net.Conn{"b1": b1, "a2": a2, "c1": c1} {
			if _, err := io.WriteString(c, "\r\n"); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("%s: %v %v", name, resp, err)
			}
			resp.Body.Close()
		}
	})
}

// Behind a trusted proxy, the per-address cap counts requests in flight
// per forwarded client; the forwarding headers of any other peer are
// ignored.
func TestTrustedProxyCapsPerForwardedClient(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var seen []string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.RemoteAddr)
		mu.Unlock()
		if r.URL.Path == "/hold" {
			<-release
		}
		io.WriteString(w, "ok")
	})
	quiet := WithLogger(slog.New(slog.DiscardHandler))
	addr := serveOn(t, h, quiet, WithMaxConnectionsPerAddress(2), WithTrustedProxies(netip.MustParsePrefix("127.0.0.1/32")))
	send := func(local, path, xff string) (*http.Response, string) {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
		conn, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		if _, err := io.WriteString(conn, "GET "+path+" HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: "+xff+"\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		if path == "/hold" {
			return nil, ""
		}
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	// Three proxy connections: more than the per-address cap of 2, all served.
	send("127.0.0.1", "/hold", "203.0.113.9, 198.51.100.7")
	send("127.0.0.1", "/hold", "198.51.100.7")
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(seen) == 2 })
	resp, body := send("127.0.0.1", "/", "198.51.100.7")
	const perClient = "too many requests in flight from your address: it holds its limit of 2; retry later\n"
	if resp.StatusCode != 503 || body != perClient || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("third request of 198.51.100.7: %d %q", resp.StatusCode, body)
	}
	if resp, body := send("127.0.0.1", "/", "198.51.100.8"); resp.StatusCode != 200 || body != "ok" {
		t.Fatalf("another client behind the proxy: %d %q", resp.StatusCode, body)
	}
	// An untrusted peer's X-Forwarded-For is ignored.
	if resp, body := send("127.0.0.2", "/", "198.51.100.9"); resp.StatusCode != 200 || body != "ok" {
		t.Fatalf("untrusted peer: %d %q", resp.StatusCode, body)
	}
	close(release)
	mu.Lock()
	defer mu.Unlock()
	want := []string{"198.51.100.7:0", "198.51.100.7:0", "198.51.100.8:0", "127.0.0.2:"}
	if len(seen) != 4 {
		t.Fatalf("the handler saw %v", seen)
	}
	for i, w := range want {
		if seen[i] != w && !(strings.HasSuffix(w, ":") && strings.HasPrefix(seen[i], w)) {
			t.Fatalf("RemoteAddr %d = %s, want %s", i, seen[i], w)
		}
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 3 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Behind BearerAuth a connection stays pending until its token is
// accepted: clients whose headers carry a token the auth hook is slow to
// refuse hold pending connections, and a tenant's new connection at the
// total closes one of them, never the tenant's authenticated one.
func TestUnacceptedTokensHoldPendingConnections(t *testing.T) {
	release := make(chan struct{})
	var inHook atomic.Int32
	hook := func(ctx context.Context, token string) (string, string, error) {
		if token == "slow" {
			inHook.Add(1)
			select {
			case <-release:
			case <-ctx.Done():
			}
			return "", "", errors.New("refused after a while")
		}
		return testAuthHook(ctx, token)
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	quiet := WithLogger(slog.New(slog.DiscardHandler))
	addr := serveOn(t, BearerAuth(hook, quiet)(ok), quiet, WithMaxConnections(3))
	defer close(release)
	request := func(token string) string {
		return "GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token + "\r\n\r\n"
	}
	dial := func(local string) net.Conn {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
		conn, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn
	}
	answer := func(conn net.Conn, token string) (int, string) {
		if _, err := io.WriteString(conn, request(token)); err != nil {
			return 0, err.Error()
		}
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	tenant := dial("127.0.0.1")
	if status, body := answer(tenant, "tok-a-alice"); status != 200 || body != "ok" {
		t.Fatalf("tenant before: %d %q", status, body)
	}
	slow1, slow2 := dial("127.0.0.2"), dial("127.0.0.2")
	for _, c := range []net.Conn{slow1, slow2} {
		if _, err := io.WriteString(c, request("slow")); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, func() bool { return inHook.Load() == 2 })
	// The total (3) is held: the tenant's new connection closes the oldest
	// connection waiting on the hook.
	if status, body := answer(dial("127.0.0.1"), "tok-a-alice"); status != 200 || body != "ok" {
		t.Fatalf("tenant's new connection at the total: %d %q, want 200 ok", status, body)
	}
	// Which of the two waits longest on the hook is up to the scheduler:
	// one of them, not both, was closed.
	if a, b := closedByServer(slow1), closedByServer(slow2); a == b {
		t.Fatalf("connections waiting on the hook closed: %v %v, want exactly one", a, b)
	}
	if status, body := answer(tenant, "tok-a-alice"); status != 200 || body != "ok" {
		t.Fatalf("tenant's authenticated connection after: %d %q", status, body)
	}
}
