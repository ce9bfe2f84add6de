package httpfront

import (
	"log/slog"
	"net/netip"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/httpbase"
)

// Defaults of the HTTP bounds. Every one can be changed with its Option;
// none can be switched off, so a server is never unbounded by omission.
const (
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

// Option configures BearerAuth, Front, NewServer and ServeLoopback. Each
// reads the options that concern it and ignores the rest; runtime/mcphttp's
// options for go-sdk's handler are of this type too.
type Option func(*httpbase.Config)

// newConfig is the configuration of opts with every default of this
// package applied.
func newConfig(opts []Option) httpbase.Config {
	c := httpbase.Apply(opts)
	c.ReadHeaderTimeout = httpbase.Or(c.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	c.RequestReadTimeout = httpbase.Or(c.RequestReadTimeout, DefaultRequestReadTimeout)
	c.IdleTimeout = httpbase.Or(c.IdleTimeout, DefaultIdleTimeout)
	c.MaxHeaderBytes = httpbase.Or(c.MaxHeaderBytes, DefaultMaxHeaderBytes)
	c.MaxBodyBytes = httpbase.Or(c.MaxBodyBytes, DefaultMaxRequestBodyBytes)
	c.MaxConns = httpbase.Or(c.MaxConns, DefaultMaxConnections)
	c.MaxConnsPerAddr = httpbase.Or(c.MaxConnsPerAddr, DefaultMaxConnectionsPerAddress)
	c.MaxPendingConns = httpbase.Or(c.MaxPendingConns, DefaultMaxPendingConnections)
	c.Logger = httpbase.LoggerOr(c.Logger)
	return c
}

// WithReadHeaderTimeout sets how long a client has to send its request
// headers (default 10 s; non-positive keeps the default).
func WithReadHeaderTimeout(d time.Duration) Option {
	return func(c *httpbase.Config) { httpbase.Positive(&c.ReadHeaderTimeout, d) }
}

// WithRequestReadTimeout sets how long a client has to send a request body
// after its headers (default 30 s; non-positive keeps the default). It bounds
// reading only: a response stream (SSE) may stay open for as long as the
// session lives.
func WithRequestReadTimeout(d time.Duration) Option {
	return func(c *httpbase.Config) { httpbase.Positive(&c.RequestReadTimeout, d) }
}

// WithIdleTimeout sets how long an idle keep-alive connection stays open
// (default 2 min; non-positive keeps the default).
func WithIdleTimeout(d time.Duration) Option {
	return func(c *httpbase.Config) { httpbase.Positive(&c.IdleTimeout, d) }
}

// WithMaxHeaderBytes bounds the request line and headers (default 64 KiB;
// non-positive keeps the default).
func WithMaxHeaderBytes(n int) Option {
	return func(c *httpbase.Config) { httpbase.Positive(&c.MaxHeaderBytes, n) }
}

// WithMaxRequestBodyBytes bounds one request body (default 2 MiB;
// non-positive keeps the default); a larger body is answered 413.
func WithMaxRequestBodyBytes(n int64) Option {
	return func(c *httpbase.Config) { httpbase.Positive(&c.MaxBodyBytes, n) }
}

// WithLogger receives what the HTTP layer refuses and why (a rejected
// bearer token with the auth hook's error, a refused connection or
// session). Default: slog.Default(), which writes to stderr unless the
// program changed it.
func WithLogger(l *slog.Logger) Option {
	return func(c *httpbase.Config) {
		if l != nil {
			c.Logger = l
		}
	}
}

// WithMaxConnections sets how many connections NewServer's server holds at
// once (default 1024; non-positive keeps the default).
func WithMaxConnections(n int) Option {
	return func(c *httpbase.Config) { httpbase.Positive(&c.MaxConns, n) }
}

// WithMaxConnectionsPerAddress sets how many connections one client
// address (IPv4, or IPv6 /64) holds at once, and how many requests one
// client behind a trusted proxy has in flight (default 256; non-positive
// keeps the default).
func WithMaxConnectionsPerAddress(n int) Option {
	return func(c *httpbase.Config) { httpbase.Positive(&c.MaxConnsPerAddr, n) }
}

// WithMaxPendingConnections sets how many pending connections (the
// headers of the first request not finished, or behind BearerAuth no token
// accepted yet) NewServer's server holds before a new
// one closes the oldest of them (default 256, at most WithMaxConnections;
// non-positive keeps the default).
func WithMaxPendingConnections(n int) Option {
	return func(c *httpbase.Config) { httpbase.Positive(&c.MaxPendingConns, n) }
}

// WithTrustedProxies names the proxies (load balancers) in front of
// NewServer's server. For a connection whose peer is within one of the
// prefixes, the client address is read from the request's Forwarded (for=)
// or, without it, X-Forwarded-For header: the rightmost address that is not
// itself a trusted proxy (docs/production.md, "Connections"); it becomes
// the request's RemoteAddr and the address the per-address cap counts. The
// headers of any other peer are ignored. Default: no trusted proxy.
func WithTrustedProxies(prefixes ...netip.Prefix) Option {
	return func(c *httpbase.Config) {
		for _, p := range prefixes {
			if p.IsValid() {
				c.TrustedProxies = append(c.TrustedProxies, p.Masked())
			}
		}
	}
}
