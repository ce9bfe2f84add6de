package runtime

// Confirmation state that travels through the client between the input
// request and the retry: bound to tool, caller and key, signed and opened.

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"google.golang.org/protobuf/proto"
)

// errStateAltered: the state is malformed or its signature does not match
// this call.
var errStateAltered = errors.New("confirmation state altered")

// stateBinding is what the signature binds besides the payload.
func stateBinding(tool string, rc RequestContext, key string) []string {
	return []string{"confirm", tool, rc.TenantID, rc.PrincipalID, key}
}

// signState returns "mcpw1.<payload>.<mac>", both base64url.
func (cfg *config) signState(st confirmState, binding []string) (string, error) {
	b, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	payload := statePrefix + base64.RawURLEncoding.EncodeToString(b)
	mac, err := cfg.stateMAC(payload, binding)
	if err != nil {
		return "", err
	}
	return payload + "." + base64.RawURLEncoding.EncodeToString(mac), nil
}

// openState verifies token for binding and returns its payload.
func (cfg *config) openState(token string, binding []string) (confirmState, error) {
	var st confirmState
	if len(token) > maxStateLen || !strings.HasPrefix(token, statePrefix) {
		return st, errStateAltered
	}
	i := strings.LastIndexByte(token, '.')
	if i < len(statePrefix) {
		return st, errStateAltered
	}
	payload := token[:i]
	got, err := base64.RawURLEncoding.DecodeString(token[i+1:])
	if err != nil {
		return st, errStateAltered
	}
	want, err := cfg.stateMAC(payload, binding)
	if err != nil {
		return st, err
	}
	if !hmac.Equal(got, want) {
		return st, errStateAltered
	}
	b, err := base64.RawURLEncoding.DecodeString(payload[len(statePrefix):])
	if err != nil || json.Unmarshal(b, &st) != nil || st.Nonce == "" {
		return confirmState{}, errStateAltered
	}
	return st, nil
}

// stateMAC is HMAC-SHA256 over the payload and the JSON-encoded binding (JSON
// keeps the fields unambiguous whatever they contain).
func (cfg *config) stateMAC(payload string, binding []string) ([]byte, error) {
	if cfg.signingKeyErr != nil {
		return nil, cfg.signingKeyErr
	}
	bind, err := json.Marshal(binding)
	if err != nil {
		return nil, err
	}
	mac := hmac.New(sha256.New, cfg.signingKey)
	mac.Write([]byte(payload))
	mac.Write([]byte{'\n'})
	mac.Write(bind)
	return mac.Sum(nil), nil
}

// requestDigest identifies what the user confirms: the enriched request
// without per-call values, so a resolver answering differently on the retry
// (a new version, another model) is noticed.
func requestDigest(wt *boundTool, m proto.Message) (string, error) {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(comparableRequest(wt, m))
	if err != nil {
		return "", fmt.Errorf("digest request: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16]), nil
}

// nonce is 16 random bytes in hex, from the configured source (tests pin it)
// or crypto/rand when that fails.
func (cfg *config) nonce() string {
	var b [16]byte
	if _, err := io.ReadFull(cfg.rand, b[:]); err != nil {
		_, _ = rand.Read(b[:])
	}
	return hex.EncodeToString(b[:])
}

const (
	// statePrefix versions the request state format.
	statePrefix = "mcpw1."
	// maxStateLen bounds what is parsed from the client; real states are
	// about 200 bytes.
	maxStateLen = 2048
	// confirmField is the boolean the confirmation form asks for.
	confirmField = "confirm"
)
