package impl

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The adapter's deadline defaults to 10 s, is changed by
// WithForwardTimeout (non-positive keeps the default), keeps an earlier
// deadline of the call, and only its own expiry becomes BackendTimeout.
func TestForwarderDeadline(t *testing.T) {
	if d := NewForwarder().Timeout(); d != 10*time.Second || DefaultBackendTimeout != 10*time.Second {
		t.Fatalf("default %s", d)
	}
	if d := NewForwarder(WithForwardTimeout(-1), nil).Timeout(); d != 10*time.Second {
		t.Fatalf("non-positive: %s", d)
	}
	f := NewForwarder(WithForwardTimeout(20 * time.Millisecond))
	ctx, cancel := f.Start(context.Background())
	defer cancel()
	<-ctx.Done()
	cause := errors.New("rpc error: code = DeadlineExceeded")
	var bt *BackendTimeout
	if err := f.Err(ctx, cause); !errors.As(err, &bt) || bt.After != 20*time.Millisecond || !errors.Is(err, cause) ||
		err.Error() != "backend did not answer within 20ms: rpc error: code = DeadlineExceeded" {
		t.Fatalf("own deadline: %v", err)
	}
	if err := f.Err(ctx, nil); err != nil {
		t.Fatalf("nil error: %v", err)
	}
	// The call's own earlier deadline stays, and is not the adapter's.
	parent, cancelParent := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancelParent()
	ctx, cancel = NewForwarder().Start(parent)
	defer cancel()
	if dl, _ := ctx.Deadline(); time.Until(dl) > 10*time.Millisecond {
		t.Fatalf("deadline %s away, want the parent's", time.Until(dl))
	}
	<-ctx.Done()
	if err := NewForwarder().Err(ctx, cause); err != cause {
		t.Fatalf("the caller's deadline: %v, want the error unchanged", err)
	}
}
