// Package secret reads the secrets of a server (the id secret, the
// confirmation signing key, a domain's URL-signing key) from a file named by
// a flag or from an environment variable, with one rule for all of them:
// surrounding white space is removed (a file's final newline); a secret that
// is only white space, shorter than MinLength bytes or of trivially low
// entropy is refused with the reason; a missing one is either refused
// (Required: instances must share it) or reported with the fix, and the
// caller falls back to a random key of its process.
package secret

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// MinLength is the shortest secret accepted, in bytes.
const MinLength = impl.MinIDSecretLength

// Spec is one secret and where it may come from.
type Spec struct {
	// Name is what the secret is, for messages ("ID secret").
	Name string
	// FileFlag is the flag that names a file holding it ("-id-secret-file")
	// and File the flag's value ("" when not given).
	FileFlag, File string
	// Env is the environment variable that may hold it.
	Env string
	// Required, when not empty, says why the secret must be given (e.g.
	// "-stateless: every instance must verify what another signed"): a
	// missing secret is then an error instead of a notice.
	Required string
	// Fallback says what happens without the secret, for the notice
	// ("each process signs with its own random key, so ...").
	Fallback string
}

// ErrMissing is what Load's error wraps when a Required secret is not given.
var ErrMissing = errors.New("secret not given")

// Load returns the secret of s, read from s.File if set, else from the
// environment variable s.Env (getenv, os.Getenv when nil). Given both, it
// refuses: one place, so no one wonders which applies. When neither is
// set it returns nil and a notice with the fix, or an error wrapping
// ErrMissing when s.Required. A given secret that breaks the rule (Check)
// is an error naming where it came from and why.
func Load(s Spec, getenv func(string) string) (value []byte, notice string, err error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	env := getenv(s.Env)
	fix := fmt.Sprintf("write at least %d random bytes (e.g. `openssl rand -hex 32`) to a file and pass %s <file>, or set %s", MinLength, s.FileFlag, s.Env)
	var raw, from string
	switch {
	case s.File != "" && env != "":
		return nil, "", fmt.Errorf("%s: both %s and %s are set; set one", s.Name, s.FileFlag, s.Env)
	case s.File != "":
		b, err := os.ReadFile(s.File)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %s: %w", s.Name, s.FileFlag, err)
		}
		raw, from = string(b), s.FileFlag+" "+s.File
	case env != "":
		raw, from = env, s.Env
	default:
		if s.Required != "" {
			return nil, "", fmt.Errorf("%s: %w (%s): %s", s.Name, ErrMissing, s.Required, fix)
		}
		return nil, fmt.Sprintf("%s not set: %s; to share one, %s", s.Name, s.Fallback, fix), nil
	}
	v := []byte(strings.TrimSpace(raw))
	if err := Check(raw); err != nil {
		return nil, "", fmt.Errorf("%s from %s refused: %w; %s", s.Name, from, err, fix)
	}
	return v, "", nil
}

// Check reports why raw (before surrounding white space is removed) is not
// an acceptable secret, or nil: only white space, or, once trimmed, what
// impl.CheckSecret refuses (shorter than MinLength bytes, fewer
// than 8 distinct byte values, a short pattern repeated). runtime.WithSecrets
// applies the same rule.
func Check(raw string) error {
	v := strings.TrimSpace(raw)
	if raw != "" && v == "" {
		return errors.New("it is only white space")
	}
	return impl.CheckSecret([]byte(v))
}
