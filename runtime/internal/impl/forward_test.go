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

// A backend that gives up at the deadline it was sent, rounded down to the
// millisecond on the wire (Connect), answers up to a millisecond before
// the adapter's own deadline: its error is the adapter's BackendTimeout.
// An error that comes earlier stays the backend's.
func TestForwarderDeadlineSentInWholeMilliseconds(t *testing.T) {
	f := NewForwarder(WithForwardTimeout(50 * time.Millisecond))
	cause := errors.New("unavailable: stalled")
	ctx, cancel := f.Start(context.Background())
	defer cancel()
	d, _ := ctx.Deadline()
	time.Sleep(time.Until(d.Add(-10 * time.Millisecond)))
	for time.Until(d) > deadlineGrain/2 { // a sleep could overshoot the deadline
	}
	var bt *BackendTimeout
	if err := f.Err(ctx, cause); !errors.As(err, &bt) || !errors.Is(err, cause) || time.Now().Before(d) {
		t.Fatalf("an answer %s before the deadline: %v (at %s past it)", deadlineGrain/2, err, time.Since(d))
	}
	ctx, cancel = f.Start(context.Background())
	defer cancel()
	d, _ = ctx.Deadline()
	time.Sleep(time.Until(d.Add(-20 * time.Millisecond)))
	if err := f.Err(ctx, cause); err != cause || !time.Now().Before(d) {
		t.Fatalf("an answer 20ms before the deadline: %v, want the error unchanged, at once", err)
	}
}
