package runtime_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/secret"
)

// Three instances whose signing key comes from the same -signing-key-file
// accept each other's confirmation round trips; an instance with another
// key, or with none (a random key of its process), refuses them.
func TestInstancesSharingTheSigningKeyFileAcceptEachOthersConfirmations(t *testing.T) {
	dir := t.TempDir()
	shared, other := filepath.Join(dir, "shared"), filepath.Join(dir, "other")
	for p, v := range map[string]string{
		shared: "6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b\n",
		other:  "d4735e3a265e16eee03f59718b9b5d03019c07d8b6c51f90da3a666eec13ab35\n",
	} {
		if err := os.WriteFile(p, []byte(v), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	keyFrom := func(file string) runtime.Option {
		t.Helper()
		f := &secret.Flags{SigningKeyFile: file}
		opt, err := f.RuntimeOption(func(string) string { return "" }, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		return opt
	}
	altered := invalidEntry("altered", "The confirmation state does not verify: it was altered, or issued for another tool, caller or client_request_id. Nothing was written.")
	first := manualRoundTrip(t, keyFrom(shared))
	first.seedNote("n1")
	for i, tc := range []struct {
		name string
		opt  runtime.Option
		want string
	}{
		{"second instance, same file", keyFrom(shared), deletedN1},
		{"third instance, same file", keyFrom(shared), deletedN1},
		{"another key file", keyFrom(other), altered},
		{"no key: random per process", nil, altered},
	} {
		// Each instance answers the confirmation the first one asked for.
		state := first.ask(alice, "delete_note", `{"id":"n1"}`, deleteN1Message)
		inst := manualRoundTrip(t, tc.opt)
		inst.seedNote("n1")
		if got := text(t, inst.rawCall(alice, "delete_note", `{"id":"n1"}`, state, yes)); got != tc.want {
			t.Fatalf("%d %s: got\n%s\nwant\n%s", i, tc.name, got, tc.want)
		}
	}
	if first.dom.count("delete_note") != 0 {
		t.Fatal("the first instance wrote")
	}
}
