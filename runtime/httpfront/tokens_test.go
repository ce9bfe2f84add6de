package httpfront

import (
	"context"
	"testing"
)

func TestStaticTokens(t *testing.T) {
	hook, err := StaticTokens("tok-a=tenant-a:alice, tok-b=tenant-b:bob")
	if err != nil {
		t.Fatal(err)
	}
	for token, want := range map[string][2]string{"tok-a": {"tenant-a", "alice"}, "tok-b": {"tenant-b", "bob"}} {
		tenant, principal, err := hook(context.Background(), token)
		if err != nil || tenant != want[0] || principal != want[1] {
			t.Fatalf("%s: %s %s %v", token, tenant, principal, err)
		}
	}
	if _, _, err := hook(context.Background(), "tok-c"); err == nil || err.Error() != "unknown token" {
		t.Fatalf("unknown token: %v", err)
	}
	for spec, want := range map[string]string{
		"tok":         `tokens: "tok" is not token=tenant:principal`,
		"t=a":         `tokens: "t=a" is not token=tenant:principal`,
		"t=a:b,t=c:d": `tokens: token "t" is given twice`,
		"t=:b":        `tokens: "t=:b" is not token=tenant:principal`,
	} {
		if _, err := StaticTokens(spec); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %q", spec, err, want)
		}
	}
}
