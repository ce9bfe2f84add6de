package mcpwriteimpl

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/callmeta"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

type greeter interface {
	Greet(ctx context.Context, name *string) (*string, error)
}

type hello struct{ prefix string }

func (h hello) Greet(_ context.Context, name *string) (*string, error) {
	s := h.prefix + *name
	return &s, nil
}

// Bind calls the method expression on the handler it was given, and a nil
// handler is only dereferenced by a call.
func TestBindCallsTheMethodOnTheHandler(t *testing.T) {
	name := "Ada"
	got, err := Bind[greeter](hello{prefix: "hi "}, greeter.Greet)(context.Background(), &name)
	if err != nil || *got != "hi Ada" {
		t.Fatalf("Bind: %q, %v; want \"hi Ada\", nil", *got, err)
	}
	var none greeter
	call := Bind(none, greeter.Greet)
	defer func() {
		if recover() == nil {
			t.Fatal("calling a tool bound to a nil handler did not panic")
		}
	}()
	_, _ = call(context.Background(), &name)
}

// BindResolvers passes the bound resolvers and the request, as the root
// and as the message filled.
func TestBindResolversPassesTheRequestAsRootAndMessage(t *testing.T) {
	type resolvers struct{ n int }
	r := &resolvers{n: 7}
	var seen []any
	fill := func(c *Call, b *resolvers, root, m *string) error {
		seen = append(seen, c, b.n, root, m)
		return errors.New("filled")
	}
	c := new(Call)
	req := "request"
	if err := BindResolvers(r, fill)(c, &req); err == nil || err.Error() != "filled" {
		t.Fatalf("error %v, want the fill's", err)
	}
	if want := []any{c, 7, &req, &req}; !reflect.DeepEqual(seen, want) || seen[2] != any(&req) || seen[3] != any(&req) {
		t.Fatalf("fill saw %v, want %v", seen, want)
	}
}

type callOption struct{}

// ForwardGRPC sends the request context as outgoing metadata, returns the
// client's answer, and turns the adapter's own deadline into a
// BackendTimeout with a nil answer.
func TestForwardGRPC(t *testing.T) {
	corr := callmeta.NewTraceID()
	ctx := callmeta.WithRequestMetadata(context.Background(), callmeta.RequestMetadata{CorrelationID: corr})
	in := "in"
	var md metadata.MD
	ok := func(ctx context.Context, req *string, opts ...callOption) (*string, error) {
		md, _ = metadata.FromOutgoingContext(ctx)
		if _, has := ctx.Deadline(); !has || len(opts) != 0 {
			t.Errorf("call without the adapter's deadline (%v) or with options %v", has, opts)
		}
		out := *req + " out"
		return &out, nil
	}
	res, err := ForwardGRPC(ctx, NewForwarder(), &in, ok)
	if err != nil || *res != "in out" {
		t.Fatalf("ForwardGRPC: %v, %v", res, err)
	}
	if got := md.Get("x-correlation-id"); !reflect.DeepEqual(got, []string{corr}) {
		t.Fatalf("outgoing x-correlation-id %q, want [%q]", got, corr)
	}
	slow := func(ctx context.Context, req *string, _ ...callOption) (*string, error) {
		<-ctx.Done()
		out := "late"
		return &out, errors.New("rpc error: code = DeadlineExceeded")
	}
	res, err = ForwardGRPC(ctx, NewForwarder(impl.WithForwardTimeout(10*time.Millisecond)), &in, slow)
	var bt *impl.BackendTimeout
	if res != nil || !errors.As(err, &bt) || err.Error() != "backend did not answer within 10ms: rpc error: code = DeadlineExceeded" {
		t.Fatalf("ForwardGRPC past the deadline: %v, %v; want nil and a BackendTimeout", res, err)
	}
}

type envelope struct{ tenant string }

// FillEnvelope creates an absent envelope, keeps a present one, and names
// the envelope's key in the path of its fill's errors, leaving it after.
func TestFillEnvelope(t *testing.T) {
	c := &Call{Ctx: context.Background()}
	fill := func(c *Call, m *envelope) error {
		v, err := c.ContextValue(ContextTenantID, "tenant_id")
		m.tenant = v
		return err
	}
	var m *envelope
	err := FillEnvelope(c, "meta", &m, fill)
	var entry *ErrorEntry
	if m == nil || !errors.As(err, &entry) || entry.Field != "meta.tenant_id" {
		t.Fatalf("absent envelope: %v, %v; want a new one and the error on meta.tenant_id", m, err)
	}
	if _, err := c.ContextValue(ContextTenantID, "tenant_id"); !errors.As(err, &entry) || entry.Field != "tenant_id" {
		t.Fatalf("after the fill: %v, want the error on tenant_id (the envelope left)", err)
	}
	c = &Call{Ctx: context.Background(), RC: callmeta.RequestMetadata{TenantID: "t1"}, HasRC: true}
	kept := &envelope{}
	m = kept
	if err := FillEnvelope(c, "meta", &m, fill); err != nil || m != kept || m.tenant != "t1" {
		t.Fatalf("present envelope: %v, %+v; want it kept and filled", err, m)
	}
}

type contractResolvers interface {
	ResolveOwner(ctx context.Context, in proto.Message) (string, error)
}

type typedOwner interface {
	ResolveOwnerForStringValue(ctx context.Context, in *wrapperspb.StringValue) (string, error)
}

type contractOnly struct{}

func (contractOnly) ResolveOwner(_ context.Context, in proto.Message) (string, error) {
	return fmt.Sprintf("contract %T", in), nil
}

type withTyped struct{ contractOnly }

func (withTyped) ResolveOwnerForStringValue(_ context.Context, in *wrapperspb.StringValue) (string, error) {
	return "typed " + in.GetValue(), nil
}

// BindResolver takes the typed method when the handler has it, else the
// contract method, which a nil handler only reaches when called.
func TestBindResolverPrefersTheTypedMethod(t *testing.T) {
	in := wrapperspb.String("Ada")
	for _, tc := range []struct {
		h    contractResolvers
		want string
	}{
		{withTyped{}, "typed Ada"},
		{contractOnly{}, "contract *wrapperspb.StringValue"},
	} {
		r := BindResolver(any(tc.h), typedOwner.ResolveOwnerForStringValue, tc.h, contractResolvers.ResolveOwner)
		if got, err := r(context.Background(), in); err != nil || got != tc.want {
			t.Fatalf("%T: %q, %v; want %q", tc.h, got, err, tc.want)
		}
	}
	var none contractResolvers
	unbound := BindResolver(any(none), typedOwner.ResolveOwnerForStringValue, none, contractResolvers.ResolveOwner)
	defer func() {
		if recover() == nil {
			t.Fatal("a resolver bound to a nil handler did not panic when called")
		}
	}()
	_, _ = unbound(context.Background(), in)
}

// Resolve sets the field to the resolver's answer for the request, or
// leaves it and answers the resolver error of the field's key.
func TestResolveSetsTheFieldOrNamesIt(t *testing.T) {
	c := &Call{Ctx: context.Background()}
	root := wrapperspb.String("req")
	var seen proto.Message
	ok := func(_ context.Context, in *wrapperspb.StringValue) (int32, error) {
		seen = in
		return 7, nil
	}
	field := int32(1)
	if err := Resolve(c, ok, root, "version", &field); err != nil || field != 7 || seen != root {
		t.Fatalf("Resolve: %v, field %d, resolver saw %v; want nil, 7, the request", err, field, seen)
	}
	failing := func(context.Context, *wrapperspb.StringValue) (int32, error) { return 9, errors.New("no version") }
	err := Resolve(c, failing, root, "version", &field)
	want := c.ResolverError("version", errors.New("no version"))
	if field != 7 || err == nil || err.Error() != want.Error() {
		t.Fatalf("failing Resolve: %v, field %d; want %v and the field unchanged", err, field, want)
	}
}
