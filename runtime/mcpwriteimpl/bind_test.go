package mcpwriteimpl

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"google.golang.org/grpc/metadata"

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
