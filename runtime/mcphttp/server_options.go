package mcphttp

import (
	"log/slog"
	"net/netip"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/httpfront"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/httpbase"
)

// Defaults of the session bounds of Handler. Every one can be changed with
// its Option; none can be switched off, so a server is never unbounded by
// omission.
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
)

// Defaults of the HTTP front (package httpfront), here for the servers
// written against this package.
const (
	DefaultReadHeaderTimeout        = httpfront.DefaultReadHeaderTimeout
	DefaultRequestReadTimeout       = httpfront.DefaultRequestReadTimeout
	DefaultIdleTimeout              = httpfront.DefaultIdleTimeout
	DefaultMaxHeaderBytes           = httpfront.DefaultMaxHeaderBytes
	DefaultMaxRequestBodyBytes      = httpfront.DefaultMaxRequestBodyBytes
	DefaultMaxConnections           = httpfront.DefaultMaxConnections
	DefaultMaxConnectionsPerAddress = httpfront.DefaultMaxConnectionsPerAddress
	DefaultMaxPendingConnections    = httpfront.DefaultMaxPendingConnections
)

// Option configures Handler, BearerAuth, NewServer and ServeLoopback. Each
// reads the options that concern it and ignores the rest. The front's
// options (WithReadHeaderTimeout ... WithTrustedProxies) are httpfront's,
// converted: httpfront.Option has the same underlying type.
type Option func(*httpConfig)

// httpConfig is what the options set.
type httpConfig struct{ base httpbase.Config }

// fromFront is an httpfront option as Option.
func fromFront(o httpfront.Option) Option { return func(c *httpConfig) { o(&c.base) } }

// frontOptions are opts as httpfront takes them.
func frontOptions(opts []Option) []httpfront.Option {
	out := make([]httpfront.Option, len(opts))
	for i, o := range opts {
		o := o
		out[i] = func(c *httpbase.Config) {
			hc := httpConfig{base: *c}
			o(&hc)
			*c = hc.base
		}
	}
	return out
}

// handlerConfig is what Handler reads of its options, defaults applied.
type handlerConfig struct {
	sessionIdleTimeout     time.Duration
	stateless              bool
	maxSessions            int
	maxSessionsPerIdentity int
	maxSessionsPerTenant   int
	requestReadTimeout     time.Duration
	maxBodyBytes           int64
	logger                 *slog.Logger
}

func newHTTPConfig(opts []Option) handlerConfig {
	var hc httpConfig
	for _, o := range opts {
		if o != nil {
			o(&hc)
		}
	}
	c := hc.base
	return handlerConfig{
		sessionIdleTimeout:     httpbase.Or(c.SessionIdleTimeout, DefaultSessionIdleTimeout),
		stateless:              c.Stateless,
		maxSessions:            httpbase.Or(c.MaxSessions, DefaultMaxSessions),
		maxSessionsPerIdentity: httpbase.Or(c.MaxSessionsPerIdentity, DefaultMaxSessionsPerIdentity),
		maxSessionsPerTenant:   httpbase.Or(c.MaxSessionsPerTenant, DefaultMaxSessionsPerTenant),
		requestReadTimeout:     httpbase.Or(c.RequestReadTimeout, DefaultRequestReadTimeout),
		maxBodyBytes:           httpbase.Or(c.MaxBodyBytes, DefaultMaxRequestBodyBytes),
		logger:                 httpbase.LoggerOr(c.Logger),
	}
}

// WithSessionIdleTimeout sets how long a streamable HTTP session may go
// without a request before it is closed (default 30 min; non-positive keeps
// the default).
func WithSessionIdleTimeout(d time.Duration) Option {
	return func(c *httpConfig) { httpbase.Positive(&c.base.SessionIdleTimeout, d) }
}

// WithStateless serves streamable HTTP without sessions: every request
// stands alone, so a load balancer may send each to any instance (the
// server keeps no per-client state; proposals, idempotency and signed
// confirmation state live in shared stores). Server-to-client requests
// within a call (in-call elicitation) are unavailable; confirmations use the
// input-request round trip or proposals.
func WithStateless() Option {
	return func(c *httpConfig) { c.base.Stateless = true }
}

// WithMaxSessions sets how many streamable HTTP sessions are held at once
// (default 1000; non-positive keeps the default). A request that would open
// one more is answered 503 with Retry-After; existing sessions are never
// evicted for it.
func WithMaxSessions(n int) Option {
	return func(c *httpConfig) { httpbase.Positive(&c.base.MaxSessions, n) }
}

// WithMaxSessionsPerIdentity sets how many streamable HTTP sessions one
// authenticated identity (tenant and principal, from BearerAuth) holds at once
// (default 100; non-positive keeps the default). A request that would open
// one more is answered 429 with Retry-After.
func WithMaxSessionsPerIdentity(n int) Option {
	return func(c *httpConfig) { httpbase.Positive(&c.base.MaxSessionsPerIdentity, n) }
}

// WithMaxSessionsPerTenant sets how many streamable HTTP sessions the
// identities of one tenant (from BearerAuth) hold together (default 250;
// non-positive keeps the default). A request that would open one more is
// answered 429 with Retry-After.
func WithMaxSessionsPerTenant(n int) Option {
	return func(c *httpConfig) { httpbase.Positive(&c.base.MaxSessionsPerTenant, n) }
}

// The options of the HTTP front, as httpfront has them.

// WithReadHeaderTimeout is httpfront.WithReadHeaderTimeout.
func WithReadHeaderTimeout(d time.Duration) Option {
	return fromFront(httpfront.WithReadHeaderTimeout(d))
}

// WithRequestReadTimeout is httpfront.WithRequestReadTimeout.
func WithRequestReadTimeout(d time.Duration) Option {
	return fromFront(httpfront.WithRequestReadTimeout(d))
}

// WithIdleTimeout is httpfront.WithIdleTimeout.
func WithIdleTimeout(d time.Duration) Option { return fromFront(httpfront.WithIdleTimeout(d)) }

// WithMaxHeaderBytes is httpfront.WithMaxHeaderBytes.
func WithMaxHeaderBytes(n int) Option { return fromFront(httpfront.WithMaxHeaderBytes(n)) }

// WithMaxRequestBodyBytes is httpfront.WithMaxRequestBodyBytes: it bounds
// the body Handler reads too.
func WithMaxRequestBodyBytes(n int64) Option { return fromFront(httpfront.WithMaxRequestBodyBytes(n)) }

// WithLogger is httpfront.WithLogger; Handler logs its refused sessions
// there too.
func WithLogger(l *slog.Logger) Option { return fromFront(httpfront.WithLogger(l)) }

// WithMaxConnections is httpfront.WithMaxConnections.
func WithMaxConnections(n int) Option { return fromFront(httpfront.WithMaxConnections(n)) }

// WithMaxConnectionsPerAddress is httpfront.WithMaxConnectionsPerAddress.
func WithMaxConnectionsPerAddress(n int) Option {
	return fromFront(httpfront.WithMaxConnectionsPerAddress(n))
}

// WithMaxPendingConnections is httpfront.WithMaxPendingConnections.
func WithMaxPendingConnections(n int) Option {
	return fromFront(httpfront.WithMaxPendingConnections(n))
}

// WithTrustedProxies is httpfront.WithTrustedProxies.
func WithTrustedProxies(prefixes ...netip.Prefix) Option {
	return fromFront(httpfront.WithTrustedProxies(prefixes...))
}
