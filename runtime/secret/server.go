package secret

import (
	"flag"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// Environment variables of the runtime's secrets.
const (
	EnvIDSecret   = "MCPWRITE_ID_SECRET"
	EnvSigningKey = "MCPWRITE_SIGNING_KEY"
)

// Flags are the runtime's secret flags a server offers: the file holding
// the id secret and the file holding the confirmation signing key.
type Flags struct {
	IDSecretFile, SigningKeyFile string
}

// Register adds -id-secret-file and -signing-key-file to fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.IDSecretFile, "id-secret-file", "", "file holding the secret (at least 32 random bytes) that keys request-scoped ids (default: $"+EnvIDSecret+", else random per process)")
	fs.StringVar(&f.SigningKeyFile, "signing-key-file", "", "file holding the key (at least 32 random bytes) that signs confirmation round trips, the same on every instance (default: $"+EnvSigningKey+", else random per process)")
}

// Specs are the two secrets as Load reads them; required, when not empty,
// says why both must be given.
func (f *Flags) Specs(required string) (idSecret, signingKey Spec) {
	return Spec{
			Name: "ID secret", FileFlag: "-id-secret-file", File: f.IDSecretFile, Env: EnvIDSecret, Required: required,
			Fallback: "request-scoped ids are keyed with a random secret of this process, so a retry that reaches another instance, or this one after a restart, without its idempotency record gets a new id",
		}, Spec{
			Name: "signing key", FileFlag: "-signing-key-file", File: f.SigningKeyFile, Env: EnvSigningKey, Required: required,
			Fallback: "confirmation round trips are signed with a random key of this process, so another instance (or this one after a restart) refuses their confirmations",
		}
}

// RuntimeOption loads both secrets (Load) and returns the runtime.WithSecrets
// option that sets those given; notice receives the start-up message of
// each missing one (nil: discarded). required, when not empty, refuses a
// missing secret with that reason (stateless serving, several instances).
func (f *Flags) RuntimeOption(getenv func(string) string, required string, notice func(string)) (runtime.Option, error) {
	idSpec, keySpec := f.Specs(required)
	id, n1, err := Load(idSpec, getenv)
	if err != nil {
		return nil, err
	}
	key, n2, err := Load(keySpec, getenv)
	if err != nil {
		return nil, err
	}
	for _, n := range []string{n1, n2} {
		if n != "" && notice != nil {
			notice(n)
		}
	}
	return runtime.WithSecrets(id, key), nil
}
