package neotoma_test

import "testing"

// The same file stored by two tenants (with the same user name) gets the
// same content hash but unrelated source ids, each the documented
// tenant-scoped id; stored again in one tenant it gets the same id.
func TestSourceIDsAreScopedToTheTenant(t *testing.T) {
	_, a, b := isoServer(t)
	const file = `{"file_content":"Q2FsbCBBZGEgYWJvdXQgdGhlIFEzIGludm9pY2Uu","mime_type":"text/plain","interpret":false}`
	first := mustSucceed(t, a, "store", file)
	again := mustSucceed(t, a, "store", file)
	other := mustSucceed(t, b, "store", file)
	hash, _ := first["content_hash"].(string)
	if hash == "" || other["content_hash"] != hash {
		t.Fatalf("content hashes %v and %v, want the content's SHA-256 in both tenants", first["content_hash"], other["content_hash"])
	}
	if want := userSourceID(isoA.TenantID, isoA.PrincipalID, hash); first["source_id"] != want || again["source_id"] != want || again["deduplicated"] != true {
		t.Errorf("tenant A: source ids %v then %v (deduplicated %v), want %s both times", first["source_id"], again["source_id"], again["deduplicated"], want)
	}
	if want := userSourceID(isoB.TenantID, isoB.PrincipalID, hash); other["source_id"] != want || other["source_id"] == first["source_id"] {
		t.Errorf("tenant B: source id %v, want %s (not A's %v)", other["source_id"], want, first["source_id"])
	}
}
