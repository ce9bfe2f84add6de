package idempotency

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Key rule, exported for tool schemas and documentation.
const (
	// KeyField is the tool argument that carries the idempotency key.
	KeyField = "client_request_id"
	// DryRunField is the tool argument that asks for validation only; it does
	// not change what the call would write, so it is not part of the fingerprint.
	DryRunField = "dry_run"
	// KeyFieldJSON and DryRunFieldJSON are the same arguments in a service
	// whose agents see protojson field names (field_naming: JSON_NAME);
	// either spelling is accepted in every service.
	KeyFieldJSON    = "clientRequestId"
	DryRunFieldJSON = "dryRun"
	// MaxKeyLength is the longest accepted key, in characters.
	MaxKeyLength = 255
	// KeyRule is the human-readable rule, used in schema descriptions and errors.
	KeyRule = "1-255 characters of A-Z a-z 0-9 _ -"
	// KeyPattern is the rule as a JSON Schema "pattern".
	KeyPattern = "^[A-Za-z0-9_-]{1,255}$"
)

// ErrInvalidKey is matched (errors.Is) by every error ValidateKey returns.
var ErrInvalidKey = errors.New("idempotency: invalid key")

type keyError struct{ msg string }

func (e *keyError) Error() string { return e.msg }
func (e *keyError) Unwrap() error { return ErrInvalidKey }

// ValidateKey checks a client idempotency key against KeyRule. The error names
// exactly what is wrong, because an agent reads it and has to fix the key;
// positions count characters from 1.
func ValidateKey(key string) error {
	if key == "" {
		return keyErrorf("got an empty string")
	}
	if n := utf8.RuneCountInString(key); n > MaxKeyLength {
		return keyErrorf("got %d characters", n)
	}
	pos := 0
	for i := 0; i < len(key); {
		r, size := utf8.DecodeRuneInString(key[i:])
		pos++
		if r == utf8.RuneError && size == 1 {
			return keyErrorf("byte 0x%02x at position %d is not valid UTF-8", key[i], pos)
		}
		if !keyChar(r) {
			return keyErrorf("character %q at position %d is not allowed", r, pos)
		}
		i += size
	}
	return nil
}

func keyErrorf(format string, args ...any) error {
	return &keyError{msg: KeyField + " must be " + KeyRule + " (" + fmt.Sprintf(format, args...) + ")"}
}

func keyChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-'
}

// ScopedKey is the store key of a client key sent by principal of tenant to
// tool. Keys are scoped by tenant and principal: the same client key from a
// colleague in the same tenant is another key, so one principal's retry can
// never receive another principal's result. The principal is length-prefixed
// so that no principal and key pair can spell another pair's key.
func ScopedKey(tenant, principal, tool, key string) Key {
	return Key{Tenant: tenant, Tool: tool, Key: strconv.Itoa(len(principal)) + ":" + principal + ":" + key}
}

// IsControlField reports whether a top-level argument is the key or the
// dry-run switch, in either spelling: arguments the fingerprint leaves out.
func IsControlField(k string) bool {
	return k == KeyField || k == DryRunField || k == KeyFieldJSON || k == DryRunFieldJSON
}
