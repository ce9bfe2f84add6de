package runtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Headers and _meta keys that carry trace metadata. Tenant and principal are
// never read from headers or _meta: they come from authentication only.
const (
	HeaderTraceParent   = "Traceparent"
	HeaderCorrelationID = "X-Correlation-Id"
	HeaderCausationID   = "X-Causation-Id"
	MetaTraceParent     = "traceparent"
	MetaCorrelationID   = "io.mcpwrite/correlation_id"
	MetaCausationID     = "io.mcpwrite/causation_id"
	tokenTenantKey      = "mcpwrite/tenant_id"
)

// AuthHook maps a bearer token to the tenant and principal acting. Return an
// error to refuse the token (the request gets 401).
type AuthHook func(ctx context.Context, token string) (tenant, principal string, err error)

// BearerAuth is HTTP middleware for the streamable HTTP transport: it
// authenticates the bearer token with hook and records tenant and principal
// where RequestContextFromCall finds them.
func BearerAuth(hook AuthHook) func(http.Handler) http.Handler {
	verify := func(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		tenant, principal, err := hook(ctx, token)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
		}
		if tenant == "" || principal == "" {
			return nil, fmt.Errorf("%w: token maps to no tenant or principal", auth.ErrInvalidToken)
		}
		return &auth.TokenInfo{UserID: principal, Extra: map[string]any{tokenTenantKey: tenant}, Expiration: time.Now().Add(time.Hour)}, nil
	}
	return auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})
}

// TraceHeaders is HTTP middleware that gives every request a W3C traceparent
// and a correlation id when the client sent none, and echoes both in the
// response so callers can correlate logs.
func TraceHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !validTraceParent(r.Header.Get(HeaderTraceParent)) {
			r.Header.Set(HeaderTraceParent, newTraceParent())
		}
		if r.Header.Get(HeaderCorrelationID) == "" {
			r.Header.Set(HeaderCorrelationID, randomHex(16))
		}
		w.Header().Set(HeaderTraceParent, r.Header.Get(HeaderTraceParent))
		w.Header().Set(HeaderCorrelationID, r.Header.Get(HeaderCorrelationID))
		next.ServeHTTP(w, r)
	})
}

// RequestContextFromCall is the standard WithRequestContextFunc: it starts
// from the context the embedding server attached in process
// (WithRequestContext), takes tenant and principal from the authenticated
// bearer token (BearerAuth), trace and correlation from the HTTP headers, and
// fills what is still missing from the call's _meta (trace fields only) and
// the session id. It reports false when no tenant or principal is known.
func RequestContextFromCall(ctx context.Context, req *mcp.CallToolRequest) (RequestContext, bool) {
	rc, _ := RequestContextFrom(ctx)
	if req != nil {
		if ti := req.Extra; ti != nil {
			if ti.TokenInfo != nil {
				if t, ok := ti.TokenInfo.Extra[tokenTenantKey].(string); ok && t != "" {
					rc.TenantID = t
					rc.PrincipalID = ti.TokenInfo.UserID
				}
			}
			if h := ti.Header; h != nil {
				setIfEmpty(&rc.TraceParent, h.Get(HeaderTraceParent))
				setIfEmpty(&rc.CorrelationID, h.Get(HeaderCorrelationID))
				setIfEmpty(&rc.CausationID, h.Get(HeaderCausationID))
			}
		}
		if req.Params != nil {
			meta := req.Params.GetMeta()
			if s, ok := meta[MetaTraceParent].(string); ok && validTraceParent(s) {
				setIfEmpty(&rc.TraceParent, s)
			}
			if s, ok := meta[MetaCorrelationID].(string); ok {
				setIfEmpty(&rc.CorrelationID, s)
			}
			if s, ok := meta[MetaCausationID].(string); ok {
				setIfEmpty(&rc.CausationID, s)
			}
		}
		if req.Session != nil {
			setIfEmpty(&rc.SessionID, req.Session.ID())
		}
	}
	return rc, rc.TenantID != "" && rc.PrincipalID != ""
}

// StaticRequestContext is a WithRequestContextFunc for single-user servers
// (local stdio tools, development): every call acts as rc, with trace fields
// still taken from the call as RequestContextFromCall does.
func StaticRequestContext(rc RequestContext) func(context.Context, *mcp.CallToolRequest) (RequestContext, bool) {
	return func(ctx context.Context, req *mcp.CallToolRequest) (RequestContext, bool) {
		got, _ := RequestContextFromCall(WithRequestContext(ctx, rc), req)
		got.TenantID, got.PrincipalID = rc.TenantID, rc.PrincipalID
		return got, rc.TenantID != "" && rc.PrincipalID != ""
	}
}

func setIfEmpty(dst *string, v string) {
	if *dst == "" && len(v) <= 512 {
		*dst = v
	}
}

// validTraceParent checks the W3C version-00 shape: 00-<32 hex>-<16 hex>-<2 hex>.
func validTraceParent(s string) bool {
	parts := strings.Split(s, "-")
	if len(parts) != 4 || len(parts[0]) != 2 || len(parts[1]) != 32 || len(parts[2]) != 16 || len(parts[3]) != 2 {
		return false
	}
	for _, p := range parts {
		if _, err := hex.DecodeString(p); err != nil {
			return false
		}
	}
	return parts[1] != strings.Repeat("0", 32) && parts[2] != strings.Repeat("0", 16)
}

func newTraceParent() string { return "00-" + randomHex(16) + "-" + randomHex(8) + "-01" }

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails: crypto/rand aborts the process instead
	return hex.EncodeToString(b)
}

// StreamableHTTPHandler serves s over MCP streamable HTTP with what a write
// server needs in front: cross-origin requests refused (Origin checks),
// resumable response streams, and trace headers (TraceHeaders). Wrap it with
// BearerAuth to authenticate callers, and register the tools with
// WithRequestContextFunc(RequestContextFromCall).
func StreamableHTTPHandler(s *mcp.Server) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{
		CrossOriginProtection: http.NewCrossOriginProtection(),
		EventStore:            mcp.NewMemoryEventStore(nil),
	})
	return TraceHeaders(h)
}

// ServeLoopback serves h on addr until ctx is done, then shuts down
// gracefully (5 s) and returns nil. It refuses any address that is not
// loopback: a write server reachable from the network belongs behind a proxy
// that terminates TLS and authenticates.
func ServeLoopback(ctx context.Context, addr string, h http.Handler) error {
	if err := CheckLoopback(addr); err != nil {
		return err
	}
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
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
