package impl

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// DefaultBackendTimeout bounds a call a generated client adapter forwards
// to its gRPC or Connect backend, unless the adapter was given another
// (runtime.WithBackendTimeout) or the tool call's own deadline is earlier.
const DefaultBackendTimeout = 10 * time.Second

// Forwarder is the deadline of a generated client adapter's forwarded
// calls: Start bounds the call, Err turns the adapter's own deadline into
// BackendTimeout.
type Forwarder struct{ timeout time.Duration }

// ForwardOption configures a Forwarder.
type ForwardOption func(*Forwarder)

// WithForwardTimeout sets the deadline of every forwarded call;
// non-positive keeps the default.
func WithForwardTimeout(d time.Duration) ForwardOption {
	return func(f *Forwarder) {
		if d > 0 {
			f.timeout = d
		}
	}
}

// NewForwarder returns a Forwarder with DefaultBackendTimeout changed by
// opts.
func NewForwarder(opts ...ForwardOption) Forwarder {
	f := Forwarder{timeout: DefaultBackendTimeout}
	for _, o := range opts {
		if o != nil {
			o(&f)
		}
	}
	return f
}

// Timeout is the deadline of a forwarded call.
func (f Forwarder) Timeout() time.Duration {
	if f.timeout <= 0 {
		return DefaultBackendTimeout
	}
	return f.timeout
}

// errForwardDeadline is the cause of a forwarded call's context when the
// adapter's own deadline ended it.
var errForwardDeadline = errors.New("the backend did not answer within the adapter's deadline")

// deadlineGrain is the coarsest unit a call's deadline crosses the wire in:
// Connect sends it in whole milliseconds (Connect-Timeout-Ms, rounded
// down), gRPC in milliseconds beyond 100 s (grpc-timeout). A backend that
// gives up at the deadline it was sent can so answer up to this much
// before the adapter's own.
const deadlineGrain = time.Millisecond

// Start returns ctx bounded by the forwarding deadline (an earlier deadline
// of ctx stays) and its cancel function.
func (f Forwarder) Start(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, f.Timeout(), errForwardDeadline)
}

// Err returns err, or a *BackendTimeout wrapping it when the forwarding
// deadline of ctx (from Start) ended the call.
func (f Forwarder) Err(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if d, ok := ctx.Deadline(); ok && ctx.Err() == nil && time.Until(d) <= deadlineGrain {
		// The deadline is due (within the grain it crossed the wire in)
		// but its timer has not fired yet: the backend, holding the same
		// deadline, answered first (a server that gives up at the
		// deadline with an error of its own). Wait for the timer, at most
		// the grain, to learn whose deadline it was.
		<-ctx.Done()
	}
	if errors.Is(context.Cause(ctx), errForwardDeadline) {
		return &BackendTimeout{After: f.Timeout(), Cause: err}
	}
	return err
}

// BackendTimeout is a forwarded call its backend did not answer within
// After. The runtime answers it UNAVAILABLE with a retry hint; Cause (the
// client's own error) goes to the log.
type BackendTimeout struct {
	After time.Duration
	Cause error
}

func (e *BackendTimeout) Error() string {
	return fmt.Sprintf("backend did not answer within %s: %v", e.After, e.Cause)
}

func (e *BackendTimeout) Unwrap() error { return e.Cause }
