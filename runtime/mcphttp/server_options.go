package mcphttp

import (
	"log/slog"
	"net/netip"
	"time"
)

// Defaults of the HTTP bounds. Every one can be changed with its Option;
// none can be switched off, so a server is never unbounded by omission.
const (
	// DefaultSessionIdleTimeout closes a streamable HTTP session that received
	// no request for this long (a request in flight, such as a call waiting
	// for confirmation, keeps it open). The client starts a new session.
	DefaultSessionIdleTimeout = 30 * time.Minute
	// DefaultMaxSessions is how many streamable HTTP sessions a server holds
	// at once; a new session beyond it is refused with 503 until one closes.
	DefaultMaxSessions = 1000
	// DefaultMaxSessionsPerIdentity is how many of those one authenticated
	// identity (tenant and principal) may hold, so that one token cannot
	// take every session; a new one beyond it is refused with 429.
	DefaultMaxSessionsPerIdentity = 100
	// DefaultMaxSessionsPerTenant is how many of them the identities of one
	// tenant may hold together, so that one tenant cannot take every
	// session; a new one beyond it is refused with 429.
	DefaultMaxSessionsPerTenant = 250
	// DefaultReadHeaderTimeout is how long a client has to send the request
	// line and headers.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultRequestReadTimeout is how long a client has to send a request
	// body, counted from the end of its headers.
	DefaultRequestReadTimeout = 30 * time.Second
	// DefaultIdleTimeout closes a keep-alive connection with no request
	// for this long.
	DefaultIdleTimeout = 2 * time.Minute
	// DefaultMaxHeaderBytes bounds the request line and headers.
	DefaultMaxHeaderBytes = 64 << 10
	// DefaultMaxRequestBodyBytes bounds one request body: twice the default
	// argument payload limit (Limits.MaxBytes), so an oversized argument is
	// answered by the decoder with a structured error and anything larger by
	// the transport with 413.
	DefaultMaxRequestBodyBytes = 2 << 20
)

// Option configures Handler, BearerAuth, NewServer and
// ServeLoopback. Each reads the options that concern it and ignores the rest.
type Option func(*httpConfig)

type httpConfig struct {
	sessionIdleTimeout     time.Duration
	stateless              bool
	maxSessions            int
	maxSessionsPerIdentity int
	maxSessionsPerTenant   int
	readHeaderTimeout      time.Duration
	requestReadTimeout     time.Duration
	idleTimeout            time.Duration
	maxHeaderBytes         int
	maxBodyBytes           int64
	maxConns               int
	maxConnsPerAddr        int
	maxPendingConns        int
	trustedProxies         []netip.Prefix
	logger                 *slog.Logger
}

func newHTTPConfig(opts []Option) httpConfig {
	c := httpConfig{
		sessionIdleTimeout:     DefaultSessionIdleTimeout,
		maxSessions:            DefaultMaxSessions,
		maxSessionsPerIdentity: DefaultMaxSessionsPerIdentity,
		maxSessionsPerTenant:   DefaultMaxSessionsPerTenant,
		readHeaderTimeout:      DefaultReadHeaderTimeout,
		requestReadTimeout:     DefaultRequestReadTimeout,
		idleTimeout:            DefaultIdleTimeout,
		maxHeaderBytes:         DefaultMaxHeaderBytes,
		maxBodyBytes:           DefaultMaxRequestBodyBytes,
		maxConns:               DefaultMaxConnections,
		maxConnsPerAddr:        DefaultMaxConnectionsPerAddress,
		maxPendingConns:        DefaultMaxPendingConnections,
	}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	return c
}

func positive[T int | int64 | time.Duration](dst *T, v T) {
	if v > 0 {
		*dst = v
	}
}

// WithSessionIdleTimeout sets how long a streamable HTTP session may go
// without a request before it is closed (default 30 min; non-positive keeps
// the default).
func WithSessionIdleTimeout(d time.Duration) Option {
	return func(c *httpConfig) { positive(&c.sessionIdleTimeout, d) }
}

// WithStateless serves streamable HTTP without sessions: every request
// stands alone, so a load balancer may send each to any instance (the
// server keeps no per-client state; proposals, idempotency and signed
// confirmation state live in shared stores). Server-to-client requests
// within a call (in-call elicitation) are unavailable; confirmations use the
// input-request round trip or proposals.
func WithStateless() Option {
	return func(c *httpConfig) { c.stateless = true }
}

// WithMaxSessions sets how many streamable HTTP sessions are held at once
// (default 1000; non-positive keeps the default). A request that would open
// one more is answered 503 with Retry-After; existing sessions are never
// evicted for it.
func WithMaxSessions(n int) Option {
	return func(c *httpConfig) { positive(&c.maxSessions, n) }
}

// WithMaxSessionsPerIdentity sets how many streamable HTTP sessions one
// authenticated identity (tenant and principal, from BearerAuth) holds at once
// (default 100; non-positive keeps the default). A request that would open
// one more is answered 429 with Retry-After.
func WithMaxSessionsPerIdentity(n int) Option {
	return func(c *httpConfig) { positive(&c.maxSessionsPerIdentity, n) }
}

// WithMaxSessionsPerTenant sets how many streamable HTTP sessions the
// identities of one tenant (from BearerAuth) hold together (default 250;
// non-positive keeps the default). A request that would open one more is
// answered 429 with Retry-After.
func WithMaxSessionsPerTenant(n int) Option {
	return func(c *httpConfig) { positive(&c.maxSessionsPerTenant, n) }
}

// WithReadHeaderTimeout sets how long a client has to send its request
// headers (default 10 s; non-positive keeps the default).
func WithReadHeaderTimeout(d time.Duration) Option {
	return func(c *httpConfig) { positive(&c.readHeaderTimeout, d) }
}

// WithRequestReadTimeout sets how long a client has to send a request body
// after its headers (default 30 s; non-positive keeps the default). It bounds
// reading only: a response stream (SSE) may stay open for as long as the
// session lives.
func WithRequestReadTimeout(d time.Duration) Option {
	return func(c *httpConfig) { positive(&c.requestReadTimeout, d) }
}

// WithIdleTimeout sets how long an idle keep-alive connection stays open
// (default 2 min; non-positive keeps the default).
func WithIdleTimeout(d time.Duration) Option {
	return func(c *httpConfig) { positive(&c.idleTimeout, d) }
}

// WithMaxHeaderBytes bounds the request line and headers (default 64 KiB;
// non-positive keeps the default).
func WithMaxHeaderBytes(n int) Option {
	return func(c *httpConfig) { positive(&c.maxHeaderBytes, n) }
}

// WithMaxRequestBodyBytes bounds one request body (default 2 MiB;
// non-positive keeps the default); a larger body is answered 413.
func WithMaxRequestBodyBytes(n int64) Option {
	return func(c *httpConfig) { positive(&c.maxBodyBytes, n) }
}

// WithLogger receives what the HTTP layer refuses and why (a rejected
// bearer token with the auth hook's error, a refused session). Default:
// slog.Default(), which writes to stderr unless the program changed it.
func WithLogger(l *slog.Logger) Option {
	return func(c *httpConfig) {
		if l != nil {
			c.logger = l
		}
	}
}

// Defaults of the connection caps of NewServer.
const (
	// DefaultMaxConnections is how many connections a server built by
	// NewServer holds open at once. A new connection beyond it closes the
	// oldest pending connection (see DefaultMaxPendingConnections); when
	// none is pending, its request is answered 503 and the connection
	// closed. An authenticated connection is never closed to make room.
	DefaultMaxConnections = 1024
	// DefaultMaxConnectionsPerAddress is how many of them one client
	// address holds: an IPv4 address, or an IPv6 /64 (one client commonly
	// holds a whole /64). The connections of a trusted proxy
	// (WithTrustedProxies) are not counted per address; each request is,
	// under the client address the proxy forwarded, as requests in flight.
	DefaultMaxConnectionsPerAddress = 256
	// DefaultMaxPendingConnections is how many pending connections the
	// server holds: connections that have not yet finished the headers of
	// their first request and, behind BearerAuth, connections whose token
	// has not been accepted yet (a refused token is answered 401 and the
	// connection closed). A new connection beyond it closes the
	// oldest pending connection of the address holding the most, so
	// clients that never finish their headers take at most this share of
	// DefaultMaxConnections and cannot lock out the clients that do.
	DefaultMaxPendingConnections = 256
)

// WithMaxConnections sets how many connections NewServer's server holds at
// once (default 1024; non-positive keeps the default).
func WithMaxConnections(n int) Option {
	return func(c *httpConfig) { positive(&c.maxConns, n) }
}

// WithMaxConnectionsPerAddress sets how many connections one client
// address (IPv4, or IPv6 /64) holds at once, and how many requests one
// client behind a trusted proxy has in flight (default 256; non-positive
// keeps the default).
func WithMaxConnectionsPerAddress(n int) Option {
	return func(c *httpConfig) { positive(&c.maxConnsPerAddr, n) }
}

// WithMaxPendingConnections sets how many pending connections (the
// headers of the first request not finished, or behind BearerAuth no token
// accepted yet) NewServer's server holds before a new
// one closes the oldest of them (default 256, at most WithMaxConnections;
// non-positive keeps the default).
func WithMaxPendingConnections(n int) Option {
	return func(c *httpConfig) { positive(&c.maxPendingConns, n) }
}

// WithTrustedProxies names the proxies (load balancers) in front of
// NewServer's server. For a connection whose peer is within one of the
// prefixes, the client address is read from the request's Forwarded (for=)
// or, without it, X-Forwarded-For header: the rightmost address that is not
// itself a trusted proxy (docs/production.md, "Connections"); it becomes
// the request's RemoteAddr and the address the per-address cap counts. The
// headers of any other peer are ignored. Default: no trusted proxy.
func WithTrustedProxies(prefixes ...netip.Prefix) Option {
	return func(c *httpConfig) {
		for _, p := range prefixes {
			if p.IsValid() {
				c.trustedProxies = append(c.trustedProxies, p.Masked())
			}
		}
	}
}
