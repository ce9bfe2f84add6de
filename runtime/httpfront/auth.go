package httpfront

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/bearer"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/httpbase"
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

// BearerAuth is HTTP middleware in front of an SDK's MCP handler: it
// authenticates the bearer token with hook and records tenant and principal
// in the request's context, where the SDK adapters take them from
// (runtime/mcpgo for each call; runtime/mcphttp's Handler binds go-sdk
// sessions to them). A request without a token, or whose token hook
// refuses, is answered 401 with an RFC 6750 challenge
// (WWW-Authenticate: Bearer realm="mcpwrite", plus error="invalid_token" when
// a token was sent) and a fixed body, before any body byte is read; hook's
// error goes to the logger (WithLogger).
func BearerAuth(hook AuthHook, opts ...Option) func(http.Handler) http.Handler {
	cfg := newConfig(opts)
	return func(next http.Handler) http.Handler {
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
				cfg.Logger.WarnContext(r.Context(), "mcpwrite: bearer token refused", "error", err, "remote", r.RemoteAddr, "path", r.URL.Path)
				unauthorized(w, `Bearer realm="`+bearerRealm+`", error="invalid_token"`, msgInvalidBearer)
				return
			}
			tokenAccepted(r.Context())
			ctx := bearer.NewContext(r.Context(), bearer.Identity{Tenant: tenant, Principal: principal})
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

// bearerToken reads the token as go-sdk's middleware does: exactly
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
	httpbase.RefuseUnread(w)
	w.Header().Set("WWW-Authenticate", challenge)
	http.Error(w, body, http.StatusUnauthorized)
}
