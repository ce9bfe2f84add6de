package httpfront

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// NewServer returns an http.Server for h with the bounds of opts: header
// and body read timeouts, keep-alive idle timeout, header and body size
// limits, and caps on concurrent connections in total (WithMaxConnections)
// and per client address (WithMaxConnectionsPerAddress; an IPv6 client by
// its /64, a client behind a trusted proxy by the forwarded address,
// WithTrustedProxies), answered 503 past them. Connections that have not
// finished the headers of their first request, or whose token BearerAuth
// has not accepted yet, have a budget of their own
// (WithMaxPendingConnections): a new connection past it or past the total
// closes the oldest of them, never an authenticated one. It sets no ReadTimeout or WriteTimeout, which would cut the long
// response streams of streamable HTTP: the body read deadline is set per
// request instead and lifted once the body is read. It never reads a body
// itself, so middleware such as BearerAuth answers before any body byte is
// read. Set Addr, or call Serve with a listener.
func NewServer(h http.Handler, opts ...Option) *http.Server {
	c := newConfig(opts)
	cc := newConnCap(c)
	return &http.Server{
		Handler:           cc.guard(bodyWithin(h, c.RequestReadTimeout, c.MaxBodyBytes)),
		ReadHeaderTimeout: c.ReadHeaderTimeout,
		IdleTimeout:       c.IdleTimeout,
		MaxHeaderBytes:    c.MaxHeaderBytes,
		ConnContext:       cc.connContext,
		ConnState:         cc.connState,
	}
}

// bodyWithin gives the request body a read deadline of timeout from the end
// of its headers and a size limit of max, without reading it: h reads it
// when (and if) it wants it, which lifts the deadline at the end of the body
// so a response stream is not cut. If h's read failed and h answered
// nothing, a slow body is answered 408 and an oversized one 413, and the
// connection is closed.
func bodyWithin(h http.Handler, timeout time.Duration, max int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			h.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		b := &deadlineBody{src: http.MaxBytesReader(w, r.Body, max), rc: rc}
		b.deadline = rc.SetReadDeadline(time.Now().Add(timeout)) == nil
		r.Body = b
		tw := &trackingWriter{ResponseWriter: w}
		h.ServeHTTP(tw, r)
		if tw.wrote || b.err == nil || errors.Is(b.err, io.EOF) {
			return
		}
		w.Header().Set("Connection", "close")
		if mbe, ok := errors.AsType[*http.MaxBytesError](b.err); ok {
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, fmt.Sprintf("request body not received within %s", timeout), http.StatusRequestTimeout)
	})
}

// deadlineBody lifts the connection's read deadline once the body has been
// read to its end, and remembers the first read error.
type deadlineBody struct {
	src      io.ReadCloser
	rc       *http.ResponseController
	deadline bool
	err      error
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.src.Read(p)
	if err != nil && b.err == nil {
		b.err = err
		if errors.Is(err, io.EOF) && b.deadline {
			_ = b.rc.SetReadDeadline(time.Time{})
		}
	}
	return n, err
}

func (b *deadlineBody) Close() error { return b.src.Close() }

// trackingWriter records whether the handler answered.
type trackingWriter struct {
	http.ResponseWriter
	wrote bool
}

func (w *trackingWriter) WriteHeader(code int) {
	w.wrote = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *trackingWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

func (w *trackingWriter) Flush() {
	w.wrote = true
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *trackingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// ServeLoopback serves h on addr until ctx is done, then shuts down
// gracefully (5 s) and returns nil. It refuses any address that is not
// loopback: a write server reachable from the network belongs behind a proxy
// that terminates TLS and authenticates. The server has the bounds of
// NewServer: headers within 10 s, a body within 30 s after them, at most
// 64 KiB of headers and 2 MiB of body, keep-alive connections idle at most
// 2 min (defaults; see the Option functions).
func ServeLoopback(ctx context.Context, addr string, h http.Handler, opts ...Option) error {
	if err := CheckLoopback(addr); err != nil {
		return err
	}
	srv := NewServer(h, opts...)
	srv.Addr = addr
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = srv.Shutdown(shutdown)
		case <-done:
		}
	}()
	defer close(done)
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// CheckLoopback reports an error unless addr is host:port with a loopback
// host (127.0.0.0/8, ::1 or localhost).
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("address %q: only loopback addresses are served; put a TLS-terminating, authenticating proxy in front for anything else", addr)
	}
	return nil
}
