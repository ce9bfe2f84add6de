package schemadoc

import (
	"encoding/json"
	"testing"
)

// A service entry's version is the first 8 bytes of the SHA-256 of its JSON
// with the version left empty, whether computed from the entry (Version)
// or from those bytes (VersionOf), and a set SchemaVersion does not count.
func TestVersionOfTheEntrysBytes(t *testing.T) {
	s := Service{Name: "acme.v1.Orders", SchemaVersion: "sha256:0000000000000000", Tools: []Tool{{Name: "createOrder", Description: "Creates <an> order & more"}}}
	entry := s
	entry.SchemaVersion = ""
	b, err := json.Marshal(entry)
	if err != nil {
		t.Fatal(err)
	}
	const want = "sha256:3192b2dbe1cfe216" // sha256sum of the entry's json.Marshal bytes
	if got := VersionOf(b); got != Version(s) {
		t.Fatalf("VersionOf = %s, Version = %s", got, Version(s))
	}
	if got := Version(s); got != want {
		t.Fatalf("Version = %s, want %s", got, want)
	}
}
