// Package httpbase is what runtime/httpfront (the HTTP front of any SDK's
// MCP handler) and runtime/mcphttp (go-sdk's handler behind that front)
// share: the options' values, reading a request body within its bounds,
// and refusing a request without reading its body.
package httpbase

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"time"
)

// Config holds what the options set. A zero field is unset: the package
// that reads it applies its default (httpfront.Default*, mcphttp.Default*),
// so each default is stated once, beside its option.
type Config struct {
	ReadHeaderTimeout  time.Duration
	RequestReadTimeout time.Duration
	IdleTimeout        time.Duration
	MaxHeaderBytes     int
	MaxBodyBytes       int64
	MaxConns           int
	MaxConnsPerAddr    int
	MaxPendingConns    int
	TrustedProxies     []netip.Prefix
	Logger             *slog.Logger

	// The streamable HTTP sessions of go-sdk's handler (mcphttp.Handler).
	SessionIdleTimeout     time.Duration
	Stateless              bool
	MaxSessions            int
	MaxSessionsPerIdentity int
	MaxSessionsPerTenant   int
}

// Apply is the configuration opts set, in order; nil options are skipped.
func Apply[O ~func(*Config)](opts []O) Config {
	var c Config
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// Positive sets *dst to v when v is positive: a non-positive value keeps
// what was there (the default, or an earlier option's value).
func Positive[T int | int64 | time.Duration](dst *T, v T) {
	if v > 0 {
		*dst = v
	}
}

// Or is v, or def when v is unset (zero).
func Or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// LoggerOr is l, or slog.Default() when l is nil.
func LoggerOr(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.Default()
	}
	return l
}

// RefuseUnread makes the answer about to be written the connection's last
// and stops the server from reading what remains of the request body.
func RefuseUnread(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
}

// ReadBodyWithin reads the whole request body (at most max bytes) before h
// runs, with a read deadline of timeout from now, then lifts the deadline so
// a response stream is not cut. A slow body is answered 408, an oversized
// one 413, and the connection is closed. The fronts place it after the
// middleware that wraps them (BearerAuth), so no body is read before the
// caller is authenticated.
func ReadBodyWithin(h http.Handler, timeout time.Duration, max int64) http.Handler {
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
