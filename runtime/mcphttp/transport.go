package mcphttp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/callmeta"
)

// AuthHook maps a bearer token to the tenant and principal acting. Return an
// error to refuse the token: the request gets 401 and the error is logged,
// never sent to the client.
type AuthHook func(ctx context.Context, token string) (tenant, principal string, err error)

// Bodies of the 401 answers of BearerAuth. They say what to fix and nothing
// about why a token was refused: that goes to the log.
const (
	msgMissingBearer = "missing bearer token: send Authorization: Bearer <token>"
	msgInvalidBearer = "invalid bearer token"
)

// bearerRealm names the protection space in WWW-Authenticate challenges.
const bearerRealm = "mcpwrite"

type verifiedTokenKey struct{}

// BearerAuth is HTTP middleware for the streamable HTTP transport: it
// authenticates the bearer token with hook and records tenant and principal
// where RequestContextFromCall finds them. A request without a token, or
// whose token hook refuses, is answered 401 with an RFC 6750 challenge
// (WWW-Authenticate: Bearer realm="mcpwrite", plus error="invalid_token" when
// a token was sent) and a fixed body; hook's error goes to the logger
// (WithLogger). A session is bound to tenant and principal together: a
// request in a session opened by another identity, even a principal of the
// same name in another tenant, is refused with 403.
func BearerAuth(hook AuthHook, opts ...Option) func(http.Handler) http.Handler {
	cfg := newHTTPConfig(opts)
	// The go-sdk middleware puts the token info where the transport binds
	// sessions to it; it only ever sees a token verified below.
	verified := func(_ context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		if ti, ok := r.Context().Value(verifiedTokenKey{}).(*auth.TokenInfo); ok {
			return ti, nil
		}
		return nil, auth.ErrInvalidToken
	}
	return func(next http.Handler) http.Handler {
		inner := auth.RequireBearerToken(verified, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			token, ok := bearerToken(r)
			if !ok {
				unauthorized(w, `Bearer realm="`+bearerRealm+`"`, msgMissingBearer)
				return
			}
			// Until the token is accepted the connection is pending
			// (NewServer's budget), so a slow refusal holds no established
			// connection.
			verifyingToken(r.Context())
			tenant, principal, err := hook(r.Context(), token)
			if err == nil && (tenant == "" || principal == "") {
				err = errors.New("auth hook mapped the token to an empty tenant or principal")
			}
			if err != nil {
				cfg.logger.WarnContext(r.Context(), "mcpwrite: bearer token refused", "error", err, "remote", r.RemoteAddr, "path", r.URL.Path)
				unauthorized(w, `Bearer realm="`+bearerRealm+`", error="invalid_token"`, msgInvalidBearer)
				return
			}
			tokenAccepted(r.Context())
			ti := &auth.TokenInfo{
				UserID: SessionUserID(tenant, principal),
				Extra:  map[string]any{callmeta.TokenTenantKey: tenant, callmeta.TokenPrincipalKey: principal},
			}
			inner.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), verifiedTokenKey{}, ti)))
		})
	}
}

// SessionUserID is the user a streamable HTTP session is bound to: tenant and
// principal encoded unambiguously (a JSON array), so no other pair, such as
// tenant "a:b" with principal "c" against tenant "a" with principal "b:c",
// yields the same value.
func SessionUserID(tenant, principal string) string {
	if plainJSON(tenant) && plainJSON(principal) {
		return `["` + tenant + `","` + principal + `"]`
	}
	b, _ := json.Marshal([2]string{tenant, principal}) // strings always marshal
	return string(b)
}

// plainJSON reports whether encoding/json writes s between quotes as it is:
// printable ASCII without a quote, a backslash or an HTML character.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= 0x7f, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// bearerToken reads the token as the go-sdk middleware does: exactly
// "Bearer <token>", scheme case-insensitive.
func bearerToken(r *http.Request) (string, bool) {
	fields := strings.Fields(r.Header.Get("Authorization"))
	if len(fields) != 2 || !strings.EqualFold(fields[0], "bearer") {
		return "", false
	}
	return fields[1], true
}

// unauthorized answers 401 at once, without reading the request body, and
// closes the connection: the body still on the wire is never read (an
// expired read deadline stops the server from draining it).
func unauthorized(w http.ResponseWriter, challenge, body string) {
	refuseUnread(w)
	w.Header().Set("WWW-Authenticate", challenge)
	http.Error(w, body, http.StatusUnauthorized)
}

// TraceHeaders is HTTP middleware that gives every request a W3C traceparent
// and a correlation id when the client sent none, and echoes both in the
// response so callers can correlate logs. Generated values are only a
// fallback: a call's _meta trace fields take precedence over them
// (RequestContextFromCall), while headers the client sent take precedence
// over _meta.
func TraceHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Only this middleware sets the generated headers.
		r.Header.Del(callmeta.HeaderGeneratedTraceParent)
		r.Header.Del(callmeta.HeaderGeneratedCorrelationID)
		tp := r.Header.Get(callmeta.HeaderTraceParent)
		if !callmeta.ValidTraceParent(tp) {
			r.Header.Del(callmeta.HeaderTraceParent)
			tp = newTraceParent()
			r.Header.Set(callmeta.HeaderGeneratedTraceParent, tp)
		}
		corr := r.Header.Get(callmeta.HeaderCorrelationID)
		if !callmeta.ValidTraceID(corr) {
			// An invalid id (control bytes, too long, ...) is neither used
			// nor echoed: a generated one replaces it.
			if corr != "" {
				slog.Default().WarnContext(r.Context(), "mcpwrite: invalid X-Correlation-Id header replaced by a server id", "length", len(corr), "allowed", callmeta.TraceIDCharset)
			}
			r.Header.Del(callmeta.HeaderCorrelationID)
			corr = randomHex(16)
			r.Header.Set(callmeta.HeaderGeneratedCorrelationID, corr)
		}
		if c := r.Header.Get(callmeta.HeaderCausationID); c != "" && !callmeta.ValidTraceID(c) {
			r.Header.Del(callmeta.HeaderCausationID)
		}
		w.Header().Set(callmeta.HeaderTraceParent, tp)
		w.Header().Set(callmeta.HeaderCorrelationID, corr)
		next.ServeHTTP(w, r)
	})
}

// newTraceParent is a random W3C traceparent: a 16-byte trace id and an
// 8-byte parent id, from one read of the random source.
func newTraceParent() string {
	var b [24]byte
	rand.Read(b[:]) // never fails: crypto/rand aborts the process instead
	var out [3 + 32 + 1 + 16 + 3]byte
	copy(out[:], "00-")
	hex.Encode(out[3:35], b[:16])
	out[35] = '-'
	hex.Encode(out[36:52], b[16:])
	copy(out[52:], "-01")
	return string(out[:])
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails: crypto/rand aborts the process instead
	return hex.EncodeToString(b)
}

// Handler serves s over MCP streamable HTTP with what a write
// server needs in front: cross-origin requests refused (Origin checks),
// resumable response streams, trace headers (TraceHeaders) and bounded
// resources: a session idle for WithSessionIdleTimeout (default 30 min) is
// closed, at most WithMaxSessions (default 1000) sessions of s are held (a new
// one beyond is answered 503), at most WithMaxSessionsPerIdentity (default
// 100) by one authenticated identity (else 429), and a request body is at most
// WithMaxRequestBodyBytes (default 2 MiB, else 413). Wrap it with BearerAuth
// to authenticate callers, and register the tools with
// WithRequestContextFunc(RequestContextFromCall).
func Handler(s *mcp.Server, opts ...Option) http.Handler {
	cfg := newHTTPConfig(opts)
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{
		EventStore:          mcp.NewMemoryEventStore(nil),
		SessionTimeout:      cfg.sessionIdleTimeout,
		MaxRequestBodyBytes: cfg.maxBodyBytes,
		Logger:              cfg.logger,
		Stateless:           cfg.stateless,
	})
	// The body is read here, inside whatever authenticates the request
	// (BearerAuth wraps Handler), never before.
	h := readBodyWithin(sdk, cfg.requestReadTimeout, cfg.maxBodyBytes)
	if cfg.stateless {
		return TraceHeaders(http.NewCrossOriginProtection().Handler(h))
	}
	return TraceHeaders(http.NewCrossOriginProtection().Handler(newSessionCap(h, s, cfg)))
}

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
