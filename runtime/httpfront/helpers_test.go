package httpfront

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// dialFrom opens a connection to addr from the loopback address local and
// makes one request on it, so the server has accepted it; it returns the
// connection (left open) and the answer's status and body.
func dialFrom(t *testing.T, local, addr string) (net.Conn, int, string) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "1" {
		t.Errorf("503 without Retry-After: 1: %v", resp.Header)
	}
	return conn, resp.StatusCode, string(body)
}

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
