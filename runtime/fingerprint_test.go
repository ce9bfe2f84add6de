package runtime

import (
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// fingerprintInputs are arguments whose fingerprint from the parsed tree
// must equal idempotency.Fingerprint of their bytes.
var fingerprintInputs = []string{
	``,
	`null`,
	`{}`,
	` { } `,
	`{"name":"OrderService","type":"ApplicationComponent"}`,
	`{"type":"ApplicationComponent","name":"OrderService"}`,
	`{"client_request_id":"k-1","dry_run":false,"name":"x"}`,
	`{"nested":{"client_request_id":"kept inside","b":1,"a":2}}`,
	`{"n":1.0,"m":1e0,"o":-0,"p":12345678901234567890,"q":1.5E-3}`,
	`{"s":"quote \" backslash \\ slash \/ tab \t nl \n cr \r bs \b ff \f ctl \u0001 del \u007f"}`,
	`{"u":"héllo \u00e9 \ud83d\ude00 ✓","\u00e9":"key escaped","e":"key raw"}`,
	`{"list":[3,1,{"z":null,"a":[true,false]}],"empty":[],"obj":{}}`,
	`{"b":true,"a":false,"c":null}`,
	`{"Name":"case","name":"differs"}`,
	"{\"ws\" :\n\t[ 1 , 2 ] }",
}

func TestFingerprintFromTheParsedArgumentsEqualsTheBytes(t *testing.T) {
	for _, raw := range fingerprintInputs {
		checkFingerprint(t, raw)
	}
}

func FuzzFingerprintFromTheParsedArguments(f *testing.F) {
	for _, raw := range fingerprintInputs {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := &registry{cfg: &config{limits: impl.Limits{}}}
		obj, es := r.parseArgs([]byte(raw), nil)
		if len(es) > 0 {
			return // refused before any fingerprint is taken
		}
		want, err := idempotency.Fingerprint([]byte(raw))
		if err != nil {
			t.Fatalf("the parser accepted %q but the fingerprint refuses it: %v", raw, err)
		}
		if got := argumentsFingerprint(obj); got != want {
			t.Fatalf("%q: fingerprint from the tree %s, from the bytes %s", raw, got, want)
		}
	})
}

func checkFingerprint(t *testing.T, raw string) {
	t.Helper()
	r := &registry{cfg: &config{limits: impl.Limits{}}}
	obj, es := r.parseArgs([]byte(raw), nil)
	if len(es) > 0 {
		t.Fatalf("%q: %v", raw, es)
	}
	want, err := idempotency.Fingerprint([]byte(raw))
	if err != nil {
		t.Fatalf("%q: %v", raw, err)
	}
	if got := argumentsFingerprint(obj); got != want {
		t.Errorf("%q: fingerprint from the tree %s, from the bytes %s", raw, got, want)
	}
}
