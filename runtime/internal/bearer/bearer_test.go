package bearer

import (
	"context"
	"testing"
)

func TestFromContextReturnsTheStoredIdentity(t *testing.T) {
	ctx := NewContext(context.Background(), Identity{Tenant: "t1", Principal: "p1"})
	id, ok := FromContext(ctx)
	if !ok || id != (Identity{Tenant: "t1", Principal: "p1"}) {
		t.Fatalf("FromContext = %+v, %v; want {t1 p1}, true", id, ok)
	}
}

func TestFromContextRefusesAMissingOrPartialIdentity(t *testing.T) {
	for name, ctx := range map[string]context.Context{
		"none":         context.Background(),
		"no tenant":    NewContext(context.Background(), Identity{Principal: "p1"}),
		"no principal": NewContext(context.Background(), Identity{Tenant: "t1"}),
	} {
		if id, ok := FromContext(ctx); ok {
			t.Errorf("%s: FromContext = %+v, true; want false", name, id)
		}
	}
}
