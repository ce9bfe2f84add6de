package mcphttp

import (
	"fmt"
	"log/slog"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/callmeta"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/httpbase"
)

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

func newSessionCap(next http.Handler, s *mcp.Server, cfg handlerConfig) *sessionCap {
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
		httpbase.RefuseUnread(w)
		w.Header().Set("Retry-After", "60")
		http.Error(w, fmt.Sprintf("too many sessions: the server holds its limit of %d; retry later, or end an unused session with DELETE and its Mcp-Session-Id", c.max), http.StatusServiceUnavailable)
		return
	}
	if identity != "" && mine >= c.perIdentity {
		c.mu.Unlock()
		c.logger.WarnContext(r.Context(), "mcpwrite: new session refused: per-identity session limit reached", "limit", c.perIdentity, "identity", identity, "remote", r.RemoteAddr)
		httpbase.RefuseUnread(w)
		w.Header().Set("Retry-After", "60")
		http.Error(w, fmt.Sprintf("too many sessions for this identity: it holds its limit of %d; end an unused session with DELETE and its Mcp-Session-Id, or reuse one", c.perIdentity), http.StatusTooManyRequests)
		return
	}
	if who.tenant != "" && tenants >= c.perTenant {
		c.mu.Unlock()
		c.logger.WarnContext(r.Context(), "mcpwrite: new session refused: per-tenant session limit reached", "limit", c.perTenant, "tenant", who.tenant, "remote", r.RemoteAddr)
		httpbase.RefuseUnread(w)
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
