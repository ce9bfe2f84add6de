package mcphttp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/callmeta"
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
	c := newHTTPConfig(opts)
	cc := newConnCap(c)
	return &http.Server{
		Handler:           cc.guard(bodyWithin(h, c.requestReadTimeout, c.maxBodyBytes)),
		ReadHeaderTimeout: c.readHeaderTimeout,
		IdleTimeout:       c.idleTimeout,
		MaxHeaderBytes:    c.maxHeaderBytes,
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

// readBodyWithin reads the whole request body (at most max bytes) before h
// runs, with a read deadline of timeout from now, then lifts the deadline so
// a response stream is not cut. A slow body is answered 408, an oversized
// one 413, and the connection is closed. Handler places it after the
// middleware that wraps it (BearerAuth), so no body is read before the
// caller is authenticated.
func readBodyWithin(h http.Handler, timeout time.Duration, max int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			h.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		deadline := rc.SetReadDeadline(time.Now().Add(timeout)) == nil
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
		if err != nil {
			w.Header().Set("Connection", "close")
			if mbe, ok := errors.AsType[*http.MaxBytesError](err); ok {
				http.Error(w, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, fmt.Sprintf("request body not received within %s", timeout), http.StatusRequestTimeout)
			return
		}
		if deadline {
			_ = rc.SetReadDeadline(time.Time{})
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		h.ServeHTTP(w, r)
	})
}

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

// sessionCap refuses a request that would open a new session of s while s
// already holds max sessions, or while its identity (the bearer token's
// tenant and principal) holds perIdentity. Sessions being opened count too,
// so concurrent initializations cannot overshoot.
type sessionCap struct {
	next        http.Handler
	server      *mcp.Server
	max         int
	perIdentity int
	perTenant   int
	logger      *slog.Logger

	mu      sync.Mutex
	opening map[sessionOwner]int    // who -> sessions being opened
	owner   map[string]sessionOwner // session id -> who, for sessions opened here
}

// sessionOwner is who opened a session: the identity (tenant and principal)
// and its tenant; both empty without authentication.
type sessionOwner struct{ identity, tenant string }

func newSessionCap(next http.Handler, s *mcp.Server, cfg httpConfig) *sessionCap {
	return &sessionCap{
		next: next, server: s, max: cfg.maxSessions, perIdentity: cfg.maxSessionsPerIdentity, perTenant: cfg.maxSessionsPerTenant, logger: cfg.logger,
		opening: map[sessionOwner]int{}, owner: map[string]sessionOwner{},
	}
}

func (c *sessionCap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
		c.next.ServeHTTP(w, r)
		return
	}
	var who sessionOwner
	if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
		who.identity = ti.UserID
		who.tenant, _ = ti.Extra[callmeta.TokenTenantKey].(string)
	}
	identity := who.identity
	c.mu.Lock()
	held, mine, tenants := c.countLocked(who)
	if held >= c.max {
		c.mu.Unlock()
		c.logger.WarnContext(r.Context(), "mcpwrite: new session refused: session limit reached", "limit", c.max, "remote", r.RemoteAddr)
		refuseUnread(w)
		w.Header().Set("Retry-After", "60")
		http.Error(w, fmt.Sprintf("too many sessions: the server holds its limit of %d; retry later, or end an unused session with DELETE and its Mcp-Session-Id", c.max), http.StatusServiceUnavailable)
		return
	}
	if identity != "" && mine >= c.perIdentity {
		c.mu.Unlock()
		c.logger.WarnContext(r.Context(), "mcpwrite: new session refused: per-identity session limit reached", "limit", c.perIdentity, "identity", identity, "remote", r.RemoteAddr)
		refuseUnread(w)
		w.Header().Set("Retry-After", "60")
		http.Error(w, fmt.Sprintf("too many sessions for this identity: it holds its limit of %d; end an unused session with DELETE and its Mcp-Session-Id, or reuse one", c.perIdentity), http.StatusTooManyRequests)
		return
	}
	if who.tenant != "" && tenants >= c.perTenant {
		c.mu.Unlock()
		c.logger.WarnContext(r.Context(), "mcpwrite: new session refused: per-tenant session limit reached", "limit", c.perTenant, "tenant", who.tenant, "remote", r.RemoteAddr)
		refuseUnread(w)
		w.Header().Set("Retry-After", "60")
		http.Error(w, fmt.Sprintf("too many sessions for your tenant: it holds its limit of %d; end unused sessions with DELETE and their Mcp-Session-Id, or reuse one", c.perTenant), http.StatusTooManyRequests)
		return
	}
	c.opening[who]++
	c.mu.Unlock()
	// The session counts as opening until its response headers go out: by
	// then it is live in the server (or the request failed), and the client
	// may already be opening its next session before this handler returns.
	ow := &openingWriter{ResponseWriter: w, done: func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.opening[who]--; c.opening[who] == 0 {
			delete(c.opening, who)
		}
		if id := w.Header().Get("Mcp-Session-Id"); id != "" {
			c.owner[id] = who
		}
	}}
	defer ow.finish()
	c.next.ServeHTTP(ow, r)
}

// openingWriter calls done once, when the response headers are written or,
// failing that, when the handler returns.
type openingWriter struct {
	http.ResponseWriter
	done     func()
	finished bool
}

func (w *openingWriter) finish() {
	if !w.finished {
		w.finished = true
		w.done()
	}
}

func (w *openingWriter) WriteHeader(code int) {
	w.finish()
	w.ResponseWriter.WriteHeader(code)
}

func (w *openingWriter) Write(b []byte) (int, error) {
	w.finish()
	return w.ResponseWriter.Write(b)
}

func (w *openingWriter) Flush() {
	w.finish()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *openingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// countLocked returns how many sessions s holds or is opening, how many of
// them belong to me's identity and how many to me's tenant; it forgets
// sessions that have closed.
func (c *sessionCap) countLocked(me sessionOwner) (held, mine, tenant int) {
	live := map[string]bool{}
	for ss := range c.server.Sessions() {
		live[ss.ID()] = true
	}
	count := func(who sessionOwner, n int) {
		if who.identity == me.identity {
			mine += n
		}
		if me.tenant != "" && who.tenant == me.tenant {
			tenant += n
		}
	}
	for id, who := range c.owner {
		if !live[id] {
			delete(c.owner, id)
			continue
		}
		count(who, 1)
	}
	held = len(live)
	for who, n := range c.opening {
		held += n
		count(who, n)
	}
	return held, mine, tenant
}
