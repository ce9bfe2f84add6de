package httpfront

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
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

// serveLoopbackOnFreePort runs ServeLoopback on a free 127.0.0.1 port until
// the test ends and returns the address once it accepts connections.
func serveLoopbackOnFreePort(t *testing.T, h http.Handler, opts ...Option) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeLoopback(ctx, addr, h, opts...) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeLoopback: %v", err)
		}
	})
	for deadline := time.Now().Add(5 * time.Second); ; {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("ServeLoopback did not listen on %s", addr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A client that trickles its request at 1 byte/s, in the headers or in the
// body, is cut off by the server once the configured read timeout passes.
func TestServeLoopbackHTTPServerClosesSlowLorisConnections(t *testing.T) {
	const timeout = 2 * time.Second
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) })
	addr := serveLoopbackOnFreePort(t, ok, WithReadHeaderTimeout(timeout), WithRequestReadTimeout(timeout))
	cases := []struct {
		name, head, trickle, want string
	}{
		// Headers never end: the server closes without an answer.
		{"headers", "POST / HTTP/1.1\r\nHost: " + addr + "\r\nX-Slow: ", strings.Repeat("a", 60), ""},
		// Headers complete, the body trickles: 408, then close.
		{"body", "POST / HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nContent-Length: 60\r\n\r\n", strings.Repeat(" ", 60),
			"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			start := time.Now()
			if _, err := io.WriteString(conn, c.head); err != nil {
				t.Fatal(err)
			}
			stop := make(chan struct{})
			defer close(stop)
			go func() {
				for i := range len(c.trickle) {
					select {
					case <-stop:
						return
					case <-time.After(time.Second):
					}
					if _, err := conn.Write([]byte{c.trickle[i]}); err != nil {
						return
					}
				}
			}()
			conn.SetReadDeadline(time.Now().Add(3 * timeout))
			got, err := io.ReadAll(conn)
			elapsed := time.Since(start)
			// The server closes; a byte still trickling in may turn that
			// into a reset after its answer was read.
			if errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("connection still open after %s", elapsed)
			}
			if err != nil && !errors.Is(err, syscall.ECONNRESET) {
				t.Fatalf("after %s: %v", elapsed, err)
			}
			if elapsed < timeout-100*time.Millisecond || elapsed > timeout+time.Second {
				t.Fatalf("closed after %s, want about %s", elapsed, timeout)
			}
			head, _, _ := strings.Cut(string(got), "Date:")
			if head != c.want {
				t.Fatalf("answer %q, want %q", got, c.want)
			}
		})
	}
}

func TestServeLoopbackHTTPServerRefusesOversizedBodies(t *testing.T) {
	// The server never reads a body itself: the handler reads it, and when
	// that read fails and the handler answers nothing, the server answers.
	var served int
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		served++
		fmt.Fprintf(w, "%d", len(b))
	})
	addr := serveLoopbackOnFreePort(t, h, WithMaxRequestBodyBytes(1024))
	for _, c := range []struct {
		size         int
		status       int
		body         string
		chunked      bool
		servedBefore int
	}{
		{1024, 200, "1024", false, 1},
		{1025, 413, "request body exceeds 1024 bytes\n", false, 1},
		{5000, 413, "request body exceeds 1024 bytes\n", true, 1},
	} {
		var body io.Reader = strings.NewReader(strings.Repeat("x", c.size))
		if c.chunked {
			body = io.MultiReader(body) // unknown length: sent chunked
		}
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, "http://"+addr+"/", body)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || string(got) != c.body || served != c.servedBefore {
			t.Fatalf("%d bytes (chunked %v): status %d body %q handler runs %d, want %d %q %d", c.size, c.chunked, resp.StatusCode, got, served, c.status, c.body, c.servedBefore)
		}
	}
}

func TestNewServerDefaults(t *testing.T) {
	srv := NewServer(http.NotFoundHandler())
	if srv.ReadHeaderTimeout != 10*time.Second || srv.IdleTimeout != 2*time.Minute || srv.MaxHeaderBytes != 64<<10 ||
		srv.ReadTimeout != 0 || srv.WriteTimeout != 0 {
		t.Fatalf("ReadHeaderTimeout %s IdleTimeout %s MaxHeaderBytes %d ReadTimeout %s WriteTimeout %s",
			srv.ReadHeaderTimeout, srv.IdleTimeout, srv.MaxHeaderBytes, srv.ReadTimeout, srv.WriteTimeout)
	}
	c := newConfig(nil)
	if c.RequestReadTimeout != 30*time.Second || c.MaxBodyBytes != 2<<20 {
		t.Fatalf("request read timeout %s, max body %d", c.RequestReadTimeout, c.MaxBodyBytes)
	}
	srv = NewServer(http.NotFoundHandler(), WithReadHeaderTimeout(time.Second), WithIdleTimeout(3*time.Second), WithMaxHeaderBytes(4096))
	if srv.ReadHeaderTimeout != time.Second || srv.IdleTimeout != 3*time.Second || srv.MaxHeaderBytes != 4096 {
		t.Fatalf("options not applied: %s %s %d", srv.ReadHeaderTimeout, srv.IdleTimeout, srv.MaxHeaderBytes)
	}
}
