package impl

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/callmeta"
)

// counter yields 0x00, 0x01, 0x02, ... so random IDs are predictable.
type counter struct{ next byte }

func (c *counter) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = c.next
		c.next++
	}
	return len(b), nil
}

var fixedNow = time.Date(2024, 5, 1, 12, 0, 0, 123456000, time.UTC)

func fixedCall() *Call {
	return &Call{
		Ctx:   context.Background(),
		Tool:  "create_element",
		RC:    callmeta.RequestMetadata{TenantID: "tenant-a", PrincipalID: "user-1"},
		HasRC: true,
		Clock: func() time.Time { return fixedNow },
		Rand:  &counter{},
	}
}

func TestCallGeneratesExactIDsFromClockAndRand(t *testing.T) {
	c := fixedCall()
	got := []string{c.UUIDv4(), c.UUIDv7(), c.ULID()}
	want := []string{
		"00010203-0405-4607-8809-0a0b0c0d0e0f", // bytes 0..15, version 4, variant 10
		"018f3406-9e7b-7011-9213-141516171819", // 1714564800123 ms, then bytes 16..25
		"01HWT0D7KV38DHR78Y3WG228H3",           // same ms, then bytes 26..35
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ids:\n got %q\nwant %q", got, want)
	}
}

func TestCallNowIsFixedForTheCall(t *testing.T) {
	ticks := 0
	c := &Call{Clock: func() time.Time { ticks++; return fixedNow.Add(time.Duration(ticks) * time.Hour) }}
	first := c.Now()
	if second := c.Now(); !second.Equal(first) || ticks != 1 {
		t.Errorf("Now moved: %v then %v (%d clock reads)", first, second, ticks)
	}
	if want := fixedNow.Add(time.Hour); !first.Equal(want) {
		t.Errorf("Now = %v, want %v", first, want)
	}
	if real := (&Call{}).Now(); time.Since(real) > time.Minute || real.IsZero() {
		t.Errorf("nil Clock gave %v", real)
	}
}

func TestCallRandomFallsBackWhenRandFails(t *testing.T) {
	c := &Call{Rand: eofReader{}}
	a, b := c.UUIDv4(), c.UUIDv4()
	if a == b || a == "00000000-0000-4000-8000-000000000000" {
		t.Errorf("fallback ids %q %q", a, b)
	}
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, errors.New("exhausted") }

func TestRequestScopedIDIsStableAndScoped(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	idOf := func(tenant, principal, tool, key string) string {
		c := &Call{Tool: tool, ClientRequestID: key, RC: callmeta.RequestMetadata{TenantID: tenant, PrincipalID: principal}, HasRC: tenant != "", Rand: &counter{}, IDSecret: secret}
		return c.RequestScopedID()
	}
	id := func(tenant, tool, key string) string { return idOf(tenant, "", tool, key) }
	base := id("tenant-a", "create_element", "req-1")
	// HMAC-SHA256(secret, len|"mcpwrite/request-scoped-id/v1", len|"tenant-a",
	// len|"" (the principal), len|"create_element", len|"req-1"), first 16
	// bytes, version 8.
	if base != "2f86fdf1-7287-8636-8556-eb0f9809cd3d" {
		t.Errorf("RequestScopedID = %q", base)
	}
	if again := id("tenant-a", "create_element", "req-1"); again != base {
		t.Errorf("not stable: %q vs %q", again, base)
	}
	others := map[string]string{
		"tenant": id("tenant-b", "create_element", "req-1"),
		"tool":   id("tenant-a", "update_element", "req-1"),
		"key":    id("tenant-a", "create_element", "req-2"),
		// the key's scope is the tenant and principal: another principal
		// of the tenant reusing the key gets an ID of its own
		"principal": idOf("tenant-a", "user-2", "create_element", "req-1"),
		// length prefixes keep ("tenant-a", "create_element") from equalling ("tenant-ac", "reate_element")
		"split": id("tenant-ac", "reate_element", "req-1"),
		// and a separator byte inside a part from shifting the boundary
		"nul": id("tenant-a\x00create_element", "", "req-1"),
	}
	for what, o := range others {
		if o == base {
			t.Errorf("changing the %s did not change the id", what)
		}
	}
	if got := id("", "create_element", "req-1"); got != "4034694c-6f57-893b-8e23-7c4e8e6ef8fb" {
		t.Errorf("without tenant = %q", got)
	}
}

// The attack: a tenant that knows another tenant's name, the tool and a
// key it guessed or saw must not be able to compute that tenant's ID. The
// former UUIDv5 of tenant, tool and key was public; the ID is now keyed.
func TestRequestScopedIDIsNotTheComputableUUIDv5(t *testing.T) {
	c := &Call{Tool: "create_element", ClientRequestID: "req-1", RC: callmeta.RequestMetadata{TenantID: "tenant-a"}, HasRC: true}
	if got := c.RequestScopedID(); got == "4682ffac-f8de-597e-9ee9-31861b8fb346" {
		t.Fatalf("RequestScopedID is the public UUIDv5 of tenant, tool and key: %s", got)
	}
	if got := c.RequestScopedID(); got[14] != '8' {
		t.Errorf("RequestScopedID = %q, want a version 8 UUID", got)
	}
}

func TestRequestScopedIDDependsOnTheSecret(t *testing.T) {
	id := func(secret []byte) string {
		c := &Call{Tool: "create_element", ClientRequestID: "req-1", RC: callmeta.RequestMetadata{TenantID: "tenant-a"}, HasRC: true, IDSecret: secret}
		return c.RequestScopedID()
	}
	a := []byte("0123456789abcdef0123456789abcdef")
	b := []byte("0123456789abcdef0123456789abcdeF")
	if id(a) == id(b) {
		t.Errorf("two secrets gave the same id %s", id(a))
	}
	if id(a) != id(append([]byte(nil), a...)) {
		t.Errorf("the same secret gave different ids")
	}
	// Without a configured secret, the process's random secret: stable within
	// the process, and not the id of any fixed secret.
	if first, again := id(nil), id(nil); first != again {
		t.Errorf("the process secret is not stable: %q then %q", first, again)
	}
	if id(nil) == id(a) || id(nil) == id(make([]byte, MinIDSecretLength)) {
		t.Errorf("the process secret is predictable")
	}
}

func TestRequestScopedIDWithoutKeyIsUUIDv7(t *testing.T) {
	c := fixedCall()
	if got := c.RequestScopedID(); got != "018f3406-9e7b-7001-8203-040506070809" {
		t.Errorf("RequestScopedID = %q", got)
	}
}

func TestContentHashIsDeterministicAndLengthPrefixed(t *testing.T) {
	c := fixedCall()
	tests := []struct {
		parts []string
		want  string
	}{
		{[]string{"OrderService", "ApplicationComponent"}, "80e7d671-823b-8707-a3d0-464ef034a357"},
		{nil, "e3b0c442-98fc-8c14-9afb-f4c8996fb924"}, // SHA-256 of nothing
	}
	for _, tt := range tests {
		if got := c.ContentHash(tt.parts...); got != tt.want {
			t.Errorf("ContentHash(%q) = %q, want %q", tt.parts, got, tt.want)
		}
	}
	if c.ContentHash("ab", "c") == c.ContentHash("a", "bc") {
		t.Error(`("ab","c") and ("a","bc") collide`)
	}
	if c.ContentHash("x") != (&Call{}).ContentHash("x") {
		t.Error("ContentHash depends on the call")
	}
}

func TestContextValue(t *testing.T) {
	full := callmeta.RequestMetadata{TenantID: "t1", PrincipalID: "p1", CorrelationID: "corr", CausationID: "cause", TraceParent: "00-abc-def-01", SessionID: "s1"}
	tests := []struct {
		name  string
		call  *Call
		key   callmeta.ContextKey
		want  string
		entry *ErrorEntry
	}{
		{"tenant", &Call{RC: full, HasRC: true}, callmeta.ContextTenantID, "t1", nil},
		{"principal", &Call{RC: full, HasRC: true}, callmeta.ContextPrincipalID, "p1", nil},
		{"correlation", &Call{RC: full, HasRC: true}, callmeta.ContextCorrelationID, "corr", nil},
		{"causation", &Call{RC: full, HasRC: true}, callmeta.ContextCausationID, "cause", nil},
		{"traceparent", &Call{RC: full, HasRC: true}, callmeta.ContextTraceParent, "00-abc-def-01", nil},
		{"session", &Call{RC: full, HasRC: true}, callmeta.ContextSessionID, "s1", nil},
		{"client request id", &Call{ClientRequestID: "req-9"}, callmeta.ContextClientRequestID, "req-9", nil},
		{"tool name", &Call{Tool: "create_element"}, callmeta.ContextToolName, "create_element", nil},
		{"empty causation is allowed", &Call{HasRC: true}, callmeta.ContextCausationID, "", nil},
		{"from the context when the pipeline set none", &Call{Ctx: callmeta.WithRequestMetadata(context.Background(), full)}, callmeta.ContextTenantID, "t1", nil},
		{"no request context: tenant denied", &Call{Ctx: context.Background()}, callmeta.ContextTenantID, "", &ErrorEntry{
			Code: CodePermissionDenied, Field: "tenant_id", Message: "cannot fill tenant_id: the request carries no authenticated tenant",
			Suggestions: &Suggestions{Hint: "The tenant comes from the authenticated connection, never from tool arguments; reconnect with credentials that carry it."},
		}},
		{"empty principal denied", &Call{RC: callmeta.RequestMetadata{TenantID: "t1"}, HasRC: true}, callmeta.ContextPrincipalID, "", &ErrorEntry{
			Code: CodePermissionDenied, Field: "tenant_id", Message: "cannot fill tenant_id: the request carries no authenticated principal",
			Suggestions: &Suggestions{Hint: "The principal comes from the authenticated connection, never from tool arguments; reconnect with credentials that carry it."},
		}},
		{"unknown key", &Call{}, callmeta.ContextKey(42), "", &ErrorEntry{Code: CodeInternal, Field: "tenant_id", Message: "unknown context key 42 for tenant_id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.call.ContextValue(tt.key, "tenant_id")
			if got != tt.want {
				t.Errorf("value = %q, want %q", got, tt.want)
			}
			if tt.entry == nil {
				if err != nil {
					t.Errorf("err = %v", err)
				}
				return
			}
			var e *ErrorEntry
			if !errors.As(err, &e) || !reflect.DeepEqual(e, tt.entry) {
				t.Errorf("err = %#v, want %#v", err, tt.entry)
			}
		})
	}
}

func TestMissingCorrelationIDIsGeneratedOncePerCall(t *testing.T) {
	c := &Call{RC: callmeta.RequestMetadata{TenantID: "t1"}, HasRC: true, Rand: &counter{}}
	a, _ := c.ContextValue(callmeta.ContextCorrelationID, "correlation_id")
	b, _ := c.ContextValue(callmeta.ContextCorrelationID, "meta.correlation_id")
	if a != "00010203-0405-4607-8809-0a0b0c0d0e0f" || b != a || c.RC.CorrelationID != a {
		t.Errorf("correlation ids %q %q, stored %q", a, b, c.RC.CorrelationID)
	}
}

var errSentinel = &ErrorEntry{Code: CodeNotFound, Message: "team not found"}

func TestResolverError(t *testing.T) {
	c := &Call{}
	if c.ResolverError("owner", nil) != nil {
		t.Error("nil error wrapped")
	}

	got := c.ResolverError("owner", fmt.Errorf("lookup: %w", errSentinel))
	if want := (&ErrorEntry{Code: CodeNotFound, Message: "team not found", Field: "owner"}); !reflect.DeepEqual(got, want) {
		t.Errorf("entry = %#v", got)
	}
	if errSentinel.Field != "" {
		t.Error("the shared entry was modified")
	}
	kept := &ErrorEntry{Code: CodeConflict, Message: "busy", Field: "owner.team"}
	if got := c.ResolverError("owner", kept); !reflect.DeepEqual(got, kept) {
		t.Errorf("field overwritten: %#v", got)
	}
	list := c.ResolverError("owner", Errors{{Code: CodeNotFound, Message: "a"}, {Code: CodeNotFound, Message: "b", Field: "x"}})
	if want := (Errors{{Code: CodeNotFound, Message: "a", Field: "owner"}, {Code: CodeNotFound, Message: "b", Field: "x"}}); !reflect.DeepEqual(list, want) {
		t.Errorf("list = %#v", list)
	}

	st := status.Error(codes.NotFound, "no such team")
	if got := c.ResolverError("owner", st); got != st {
		t.Errorf("status error replaced by %v", got)
	}
	if got := c.ResolverError("owner", context.DeadlineExceeded); got != context.DeadlineExceeded {
		t.Errorf("deadline replaced by %v", got)
	}

	cause := errors.New("dial tcp 10.0.0.7:5432: connection refused")
	err := c.ResolverError("owner", cause)
	var e *ErrorEntry
	if !errors.As(err, &e) || !reflect.DeepEqual(e, &ErrorEntry{Code: CodeInternal, Message: "could not resolve owner", Field: "owner"}) {
		t.Errorf("internal entry = %#v", e)
	}
	if !errors.Is(err, cause) || err.Error() != "could not resolve owner: dial tcp 10.0.0.7:5432: connection refused" {
		t.Errorf("cause lost: %v", err)
	}
}
