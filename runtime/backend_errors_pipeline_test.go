package runtime

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// A backend's transient and connection errors reach the agent as fixed
// text with a trace_id, their original text in the log under that
// trace_id; business errors keep their message with addresses, DSNs and
// credentials redacted.
func TestBackendErrorsAreFixedOrRedacted(t *testing.T) {
	const hint = `"suggestions":{"hint":"This is a temporary problem, not a problem with the arguments. Retry in a few seconds with the same arguments; quote the trace_id if it persists."}`
	const zero = `"trace_id":"00000000000000000000000000000000"`
	refused := &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 7), Port: 5432}, Err: syscall.ECONNREFUSED}
	leakyInfo, _ := status.New(codes.FailedPrecondition, "replica 10.0.0.9:5432 is read-only").WithDetails(
		&errdetails.ErrorInfo{Reason: "READ_ONLY", Domain: "orders", Metadata: map[string]string{"dsn": "postgres://app:hunter2@10.0.0.9/orders"}})
	tests := []struct {
		name, want, logged string
		err                error
		class              errClass
	}{
		{"unavailable with a DSN and password", `{"code":"UNAVAILABLE","message":"service unavailable; retry later",` + zero + `,` + hint + `}`,
			"postgres://app:hunter2@10.0.0.9:5432/orders", status.Error(codes.Unavailable, "cannot reach postgres://app:hunter2@10.0.0.9:5432/orders"), classTransient},
		{"unavailable connection refused", `{"code":"UNAVAILABLE","message":"service unavailable; retry later",` + zero + `,` + hint + `}`,
			"dial tcp 127.0.0.1:43263: connect: connection refused",
			status.Error(codes.Unavailable, "connection error: desc = \"transport: Error while dialing: dial tcp 127.0.0.1:43263: connect: connection refused\""), classTransient},
		{"cancelled", `{"code":"UNAVAILABLE","message":"the request was cancelled",` + zero + `,` + hint + `}`,
			"stream reset by 10.1.1.1", status.Error(codes.Canceled, "stream reset by 10.1.1.1"), classTransient},
		{"a network error that is no status", `{"code":"UNAVAILABLE","message":"service unavailable; retry later",` + zero + `,` + hint + `}`,
			"dial tcp 10.0.0.7:5432: connection refused", fmt.Errorf("load: %w", refused), classTransient},
		{"the adapter's deadline", `{"code":"UNAVAILABLE","message":"the backend did not answer within 2s","details":{"retry_after_seconds":1},` + zero + `,` + hint + `}`,
			"backend did not answer within 2s: rpc error: code = DeadlineExceeded desc = context deadline exceeded",
			&impl.BackendTimeout{After: 2 * time.Second, Cause: status.Error(codes.DeadlineExceeded, "context deadline exceeded")}, classTransient},
		{"not found keeps its message, redacted", `{"code":"NOT_FOUND","message":"order o-1 not found on [address]"}`, "",
			status.Error(codes.NotFound, "order o-1 not found on 10.0.0.9:5432"), classBusiness},
		{"invalid argument with a credential", `{"code":"VALIDATION_ERROR","message":"webhook rejected: token=[redacted]"}`, "",
			status.Error(codes.InvalidArgument, "webhook rejected: token=abc123secret"), classBusiness},
		{"failed precondition and its metadata", `{"code":"CONFLICT","message":"replica [address] is read-only","details":{"domain":"orders","metadata":{"dsn":"[dsn]"},"reason":"READ_ONLY"}}`, "",
			leakyInfo.Err(), classBusiness},
		{"aborted keeps its message, redacted", `{"code":"CONFLICT","message":"row locked by [dsn]"}`, "",
			status.Error(codes.Aborted, "row locked by host=db1 port=5432"), classTransient},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			a := &answers{cfg: newConfig([]Option{WithRand(zeroReader{}), WithLogger(slog.New(slog.NewTextHandler(&logs, nil)))})}
			es, class := a.classify(context.Background(), "create_order", tt.err)
			if len(es) != 1 {
				t.Fatalf("%d entries", len(es))
			}
			got, _ := marshalJSON(entryJSON(es[0]))
			if string(got) != tt.want || class != tt.class {
				t.Fatalf("got %s class %d\nwant %s class %d", got, class, tt.want, tt.class)
			}
			if tt.logged != "" && (!strings.Contains(logs.String(), tt.logged) || !strings.Contains(logs.String(), "trace_id=00000000000000000000000000000000")) {
				t.Fatalf("the original text is not logged with the trace_id:\n%s", logs.String())
			}
		})
	}
}
