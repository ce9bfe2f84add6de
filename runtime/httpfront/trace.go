package httpfront

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/callmeta"
)

// TraceHeaders is HTTP middleware that gives every request a W3C traceparent
// and a correlation id when the client sent none, and echoes both in the
// response so callers can correlate logs. Generated values are only a
// fallback: a call's _meta trace fields take precedence over them (the
// request context functions of the SDK adapters), while headers the client
// sent take precedence over _meta.
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
