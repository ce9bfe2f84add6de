package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// zeroReader makes every trace_id 32 zeros.
type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func withDetails(c codes.Code, msg string, ds ...*errdetails.ErrorInfo) error {
	st := status.New(c, msg)
	for _, d := range ds {
		st, _ = st.WithDetails(d)
	}
	return st.Err()
}

func TestDomainErrorsMapToEnvelopeEntries(t *testing.T) {
	notFound, _ := status.New(codes.NotFound, "element elem-1 not found").WithDetails(
		&errdetails.ResourceInfo{ResourceType: "element", ResourceName: "elem-1"})
	retry, _ := status.New(codes.Unavailable, "").WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(2 * time.Second)})
	precondition, _ := status.New(codes.FailedPrecondition, "element is locked").WithDetails(&errdetails.PreconditionFailure{
		Violations: []*errdetails.PreconditionFailure_Violation{{Type: "LOCK", Subject: "elem-1", Description: "locked by bob"}}})
	domainEntry := &ErrorEntry{Code: "ELEMENT_NOT_FOUND", Message: "Element 'elem-123' not found", Field: "source_id",
		Suggestions: &Suggestions{Hint: "Use semanticSearch", Extra: map[string]any{"similar_elements": []string{"elem-456"}}}}
	tests := []struct {
		name      string
		err       error
		want      string
		wantClass errClass
	}{
		{"not found with resource info", notFound.Err(),
			`{"code":"NOT_FOUND","message":"element elem-1 not found","details":{"resource_name":"elem-1","resource_type":"element"}}`, classBusiness},
		{"already exists", status.Error(codes.AlreadyExists, "name taken"), `{"code":"ALREADY_EXISTS","message":"name taken"}`, classBusiness},
		{"failed precondition is a conflict", precondition.Err(),
			`{"code":"CONFLICT","message":"element is locked","details":{"precondition_failures":[{"description":"locked by bob","subject":"elem-1","type":"LOCK"}]}}`, classBusiness},
		{"aborted is a transient conflict", status.Error(codes.Aborted, "version changed"), `{"code":"CONFLICT","message":"version changed"}`, classTransient},
		{"permission denied", status.Error(codes.PermissionDenied, "not yours"), `{"code":"PERMISSION_DENIED","message":"not yours"}`, classBusiness},
		{"unauthenticated", status.Error(codes.Unauthenticated, "log in"), `{"code":"UNAUTHENTICATED","message":"log in"}`, classBusiness},
		{"resource exhausted", status.Error(codes.ResourceExhausted, "slow down"), `{"code":"RESOURCE_EXHAUSTED","message":"slow down"}`, classTransient},
		{"unavailable without message gets a default and retry delay", retry.Err(),
			`{"code":"UNAVAILABLE","message":"service unavailable; retry later","details":{"retry_after_seconds":2},"trace_id":"00000000000000000000000000000000","suggestions":{"hint":"This is a temporary problem, not a problem with the arguments. Retry in a few seconds with the same arguments; quote the trace_id if it persists."}}`, classTransient},
		{"deadline", status.Error(codes.DeadlineExceeded, "too slow"), `{"code":"DEADLINE_EXCEEDED","message":"the request took too long and was stopped","trace_id":"00000000000000000000000000000000","suggestions":{"hint":"This is a temporary problem, not a problem with the arguments. Retry in a few seconds with the same arguments; quote the trace_id if it persists."}}`, classTransient},
		{"error info", withDetails(codes.InvalidArgument, "bad name", &errdetails.ErrorInfo{Reason: "NAME_RESERVED", Domain: "archimate"}),
			`{"code":"VALIDATION_ERROR","message":"bad name","details":{"domain":"archimate","reason":"NAME_RESERVED"}}`, classBusiness},
		{"context deadline", fmt.Errorf("query: %w", context.DeadlineExceeded),
			`{"code":"DEADLINE_EXCEEDED","message":"the request took too long and was stopped","trace_id":"00000000000000000000000000000000","suggestions":{"hint":"This is a temporary problem, not a problem with the arguments. Retry in a few seconds with the same arguments; quote the trace_id if it persists."}}`, classTransient},
		{"domain entry passes unchanged", fmt.Errorf("wrapped: %w", domainEntry),
			`{"code":"ELEMENT_NOT_FOUND","message":"Element 'elem-123' not found","field":"source_id","suggestions":{"hint":"Use semanticSearch","similar_elements":["elem-456"]}}`, classBusiness},
		{"internal status hides its message", status.Error(codes.Internal, "SELECT * FROM secrets"),
			`{"code":"INTERNAL","message":"internal error","trace_id":"00000000000000000000000000000000","suggestions":{"hint":"This is a server problem, not a problem with the arguments. Retry later; quote the trace_id when reporting it."}}`, classInternal},
		{"unknown status hides its message", status.Error(codes.Unknown, "SELECT * FROM secrets"),
			`{"code":"INTERNAL","message":"internal error","trace_id":"00000000000000000000000000000000","suggestions":{"hint":"This is a server problem, not a problem with the arguments. Retry later; quote the trace_id when reporting it."}}`, classInternal},
		{"resolver failure shows its entry and logs the cause", (&impl.Call{}).ResolverError("model_id", errors.New("SELECT * FROM secrets")),
			`{"code":"INTERNAL","message":"could not resolve model_id","field":"model_id","trace_id":"00000000000000000000000000000000"}`, classInternal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			a := &answers{cfg: newConfig([]Option{WithRand(zeroReader{}), WithLogger(slog.New(slog.NewTextHandler(&logs, nil)))})}
			es, class := a.classify(context.Background(), "create_element", tt.err)
			if len(es) != 1 {
				t.Fatalf("%d entries", len(es))
			}
			got, _ := marshalJSON(entryJSON(es[0]))
			if string(got) != tt.want || class != tt.wantClass {
				t.Fatalf("got %s class %d\nwant %s class %d", got, class, tt.want, tt.wantClass)
			}
			if class == classInternal && !strings.Contains(logs.String(), "SELECT * FROM secrets") {
				t.Fatalf("cause not logged: %s", logs.String())
			}
		})
	}
	if domainEntry.TraceID != "" || domainEntry.Suggestions.Hint != "Use semanticSearch" {
		t.Fatalf("the domain's entry was modified: %+v", domainEntry)
	}
}
