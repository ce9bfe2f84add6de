package httpfront

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
)

// StaticTokens parses "token=tenant:principal,..." (a development or test
// server's -tokens flag) into an AuthHook for BearerAuth: each token acts as
// its tenant and principal, any other token is refused. Tokens are compared
// in constant time. Production servers verify tokens with their identity
// provider instead.
func StaticTokens(spec string) (AuthHook, error) {
	type identity struct{ tenant, principal string }
	var tokens []string
	var ids []identity
	for _, entry := range strings.Split(spec, ",") {
		token, who, ok := strings.Cut(strings.TrimSpace(entry), "=")
		tenant, principal, ok2 := strings.Cut(who, ":")
		if !ok || !ok2 || token == "" || tenant == "" || principal == "" {
			return nil, fmt.Errorf("tokens: %q is not token=tenant:principal", entry)
		}
		for _, t := range tokens {
			if t == token {
				return nil, fmt.Errorf("tokens: token %q is given twice", token)
			}
		}
		tokens, ids = append(tokens, token), append(ids, identity{tenant, principal})
	}
	return func(_ context.Context, token string) (string, string, error) {
		found := -1
		for i, t := range tokens {
			if subtle.ConstantTimeCompare([]byte(t), []byte(token)) == 1 {
				found = i
			}
		}
		if found < 0 {
			return "", "", errors.New("unknown token")
		}
		return ids[found].tenant, ids[found].principal, nil
	}, nil
}
