package runtime

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"syscall"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// errClass tells the pipeline what an error means for idempotency and
// proposals: business errors are outcomes of the write (stored and replayed),
// transient and internal ones are not (the claim is released so a retry runs).
type errClass uint8

const (
	classBusiness errClass = iota
	classTransient
	classInternal
)

// userCodes maps the gRPC codes whose status message is written for the
// caller to envelope codes.
var userCodes = map[codes.Code]string{
	codes.NotFound:           CodeNotFound,
	codes.AlreadyExists:      CodeAlreadyExists,
	codes.FailedPrecondition: impl.CodeConflict,
	codes.Aborted:            impl.CodeConflict,
	codes.PermissionDenied:   impl.CodePermissionDenied,
	codes.Unauthenticated:    impl.CodeUnauthenticated,
	codes.InvalidArgument:    CodeValidation,
	codes.OutOfRange:         impl.CodeConstraintViolation,
	codes.ResourceExhausted:  impl.CodeResourceExhausted,
	codes.Unavailable:        impl.CodeUnavailable,
	codes.DeadlineExceeded:   impl.CodeDeadlineExceeded,
	codes.Canceled:           impl.CodeUnavailable,
}

// transientCodes may succeed when retried unchanged, so their outcome is not
// recorded under the idempotency key.
var transientCodes = map[codes.Code]bool{
	codes.Aborted:           true,
	codes.ResourceExhausted: true,
	codes.Unavailable:       true,
	codes.DeadlineExceeded:  true,
	codes.Canceled:          true,
}

// classify turns an error from enrichment or a handler into envelope
// entries. Errors the domain wrote for agents (*ErrorEntry, Errors) pass
// unchanged; gRPC statuses with user-facing codes keep their message;
// everything else becomes INTERNAL with a fresh trace_id and is logged, never
// shown.
func (a *answers) classify(ctx context.Context, tool string, err error) (impl.Errors, errClass) {
	if list, _, _ := impl.EntriesOf(err); len(list) > 0 {
		// Entries may be shared sentinels: copy before adding trace IDs or hints.
		out, class := make(impl.Errors, 0, len(list)), classBusiness
		for _, e := range list {
			if e == nil {
				continue
			}
			e = cloneEntry(e)
			if e.Code == impl.CodeInternal {
				class = classInternal
				if e.TraceID == "" {
					e.TraceID = a.traceID()
				}
				a.cfg.logger.ErrorContext(ctx, "mcpwrite: internal error", "tool", tool, "trace_id", e.TraceID, "error", err)
				noteCause(ctx, e.TraceID, err)
			}
			out = append(out, e)
		}
		if len(out) > 0 {
			return out, class
		}
	}
	var timeout *impl.BackendTimeout
	if errors.As(err, &timeout) {
		e := a.transient(ctx, tool, impl.CodeUnavailable, fmt.Sprintf("the backend did not answer within %s", timeout.After), err)
		addDetail(e, "retry_after_seconds", 1.0)
		return impl.Errors{e}, classTransient
	}
	st, ok := status.FromError(err)
	if !ok {
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			return impl.Errors{a.transient(ctx, tool, impl.CodeDeadlineExceeded, msgTooLong, err)}, classTransient
		case errors.Is(err, context.Canceled):
			return impl.Errors{a.transient(ctx, tool, impl.CodeUnavailable, msgCancelled, err)}, classTransient
		case connectionError(err):
			return impl.Errors{a.transient(ctx, tool, impl.CodeUnavailable, msgUnavailable, err)}, classTransient
		}
		return impl.Errors{a.internal(ctx, tool, err)}, classInternal
	}
	code, user := userCodes[st.Code()]
	if !user {
		return impl.Errors{a.internal(ctx, tool, err)}, classInternal
	}
	if fixed, ok := fixedMessages[st.Code()]; ok {
		e := a.transient(ctx, tool, code, fixed, err)
		for _, d := range st.Details() {
			if d, ok := d.(*errdetails.RetryInfo); ok && d.GetRetryDelay() != nil {
				addDetail(e, "retry_after_seconds", d.GetRetryDelay().AsDuration().Seconds())
			}
		}
		return impl.Errors{e}, classTransient
	}
	class := classBusiness
	if transientCodes[st.Code()] {
		class = classTransient
	}
	return a.statusEntries(st, code), class
}

// statusEntries are the entries of a status whose message was written for
// the caller, with what its details add; every text passes through redact.
func (a *answers) statusEntries(st *status.Status, code string) impl.Errors {
	base := &impl.ErrorEntry{Code: code, Message: redact(st.Message())}
	var es impl.Errors
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.BadRequest:
			for _, v := range d.GetFieldViolations() {
				e := &impl.ErrorEntry{Code: CodeValidation, Message: redact(v.GetDescription()), Field: v.GetField()}
				if v.GetReason() != "" {
					e.Details = map[string]any{"reason": v.GetReason()}
				}
				es = append(es, e)
			}
		case *errdetails.ErrorInfo:
			addDetail(base, "reason", d.GetReason())
			addDetail(base, "domain", d.GetDomain())
			if len(d.GetMetadata()) > 0 {
				md := make(map[string]string, len(d.GetMetadata()))
				for k, v := range d.GetMetadata() {
					md[k] = redact(v)
				}
				addDetail(base, "metadata", md)
			}
		case *errdetails.ResourceInfo:
			addDetail(base, "resource_type", d.GetResourceType())
			addDetail(base, "resource_name", redact(d.GetResourceName()))
			addDetail(base, "owner", redact(d.GetOwner()))
		case *errdetails.PreconditionFailure:
			var vs []map[string]string
			for _, v := range d.GetViolations() {
				vs = append(vs, map[string]string{"type": v.GetType(), "subject": redact(v.GetSubject()), "description": redact(v.GetDescription())})
			}
			if len(vs) > 0 {
				addDetail(base, "precondition_failures", vs)
			}
		case *errdetails.RetryInfo:
			if rd := d.GetRetryDelay(); rd != nil {
				addDetail(base, "retry_after_seconds", rd.AsDuration().Seconds())
			}
		case *errdetails.Help:
			for _, l := range d.GetLinks() {
				base.Suggestions = mergeHint(base.Suggestions, l.GetDescription()+": "+l.GetUrl())
			}
		case *errdetails.LocalizedMessage:
			if d.GetMessage() != "" {
				base.Message = redact(d.GetMessage())
			}
		}
	}
	if len(es) > 0 {
		return es
	}
	if base.Message == "" {
		base.Message = defaultMessages[code]
	}
	return impl.Errors{base}
}

// Fixed answers of transient and connection errors: what the backend or
// the client library said goes to the log and the trace, never to the
// agent, since it names hosts, ports, sockets and at times credentials.
const (
	msgUnavailable = "service unavailable; retry later"
	msgTooLong     = "the request took too long and was stopped"
	msgCancelled   = "the request was cancelled"
	hintTransient  = "This is a temporary problem, not a problem with the arguments. Retry in a few seconds with the same arguments; quote the trace_id if it persists."
)

// fixedMessages are the status codes answered with fixed text.
// ABORTED and RESOURCE_EXHAUSTED are transient too, but their messages are
// written for the caller (which version changed, which quota): they keep
// them, redacted.
var fixedMessages = map[codes.Code]string{
	codes.Unavailable:      msgUnavailable,
	codes.DeadlineExceeded: msgTooLong,
	codes.Canceled:         msgCancelled,
}

// transient logs err under a fresh trace_id (and hands it to the observer)
// and returns an entry with the fixed message msg, the trace_id and a retry
// hint.
func (a *answers) transient(ctx context.Context, tool, code, msg string, err error) *impl.ErrorEntry {
	id := a.traceID()
	a.cfg.logger.WarnContext(ctx, "mcpwrite: transient error", "tool", tool, "code", code, "trace_id", id, "error", err)
	noteCause(ctx, id, err)
	return &impl.ErrorEntry{Code: code, Message: msg, TraceID: id, Suggestions: &impl.Suggestions{Hint: hintTransient}}
}

// connectionError reports whether err is a network failure (refused,
// reset, unreachable, a dial or read that failed): the call may succeed
// when retried, and its text names addresses.
func connectionError(err error) bool {
	var ne net.Error
	var oe *net.OpError
	return errors.As(err, &oe) || errors.As(err, &ne) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EHOSTUNREACH) ||
		errors.Is(err, syscall.ENETUNREACH) || errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrUnexpectedEOF)
}

// defaultMessages stand in when a status carries no message.
var defaultMessages = map[string]string{
	CodeNotFound:                 "not found",
	CodeAlreadyExists:            "already exists",
	impl.CodeConflict:            "the write conflicts with the current state",
	impl.CodePermissionDenied:    "permission denied",
	impl.CodeUnauthenticated:     "authentication required",
	CodeValidation:               "invalid request",
	impl.CodeConstraintViolation: "value out of range",
	impl.CodeResourceExhausted:   "rate limited; retry later",
	impl.CodeUnavailable:         "service unavailable; retry later",
	impl.CodeDeadlineExceeded:    "the request took too long and was stopped",
}

func addDetail(e *impl.ErrorEntry, k string, v any) {
	if s, ok := v.(string); ok && s == "" {
		return
	}
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[k] = v
}

func mergeHint(s *impl.Suggestions, hint string) *impl.Suggestions {
	if s == nil {
		s = &impl.Suggestions{}
	}
	if s.Hint == "" {
		s.Hint = hint
	} else {
		s.Hint += "; " + hint
	}
	return s
}

// cloneEntry copies e and its suggestions, so hooks and hints never modify
// an entry the domain keeps.
func cloneEntry(e *impl.ErrorEntry) *impl.ErrorEntry {
	cp := *e
	if e.Suggestions != nil {
		s := *e.Suggestions
		cp.Suggestions = &s
	}
	if e.Details != nil {
		cp.Details = make(map[string]any, len(e.Details))
		for k, v := range e.Details {
			cp.Details[k] = v
		}
	}
	return &cp
}

// internal logs err under a fresh trace_id and returns an entry that reveals
// nothing but the trace_id: messages of unexpected errors carry SQL, paths
// and personal data.
func (a *answers) internal(ctx context.Context, tool string, err error) *impl.ErrorEntry {
	id := a.traceID()
	a.cfg.logger.ErrorContext(ctx, "mcpwrite: internal error", "tool", tool, "trace_id", id, "error", err)
	noteCause(ctx, id, err)
	return &impl.ErrorEntry{
		Code: impl.CodeInternal, Message: "internal error", TraceID: id,
		Suggestions: &impl.Suggestions{Hint: "This is a server problem, not a problem with the arguments. Retry later; quote the trace_id when reporting it."},
	}
}

// storeUnavailable is the answer when the idempotency store fails before
// the handler ran: nothing was written, and the same key may be retried.
// The cause is logged with the entry's trace_id and the key's tenant and
// client key.
func (a *answers) storeUnavailable(ctx context.Context, tool, op string, k idempotency.Key, clientKey string, err error) *impl.ErrorEntry {
	id := a.traceID()
	a.cfg.logger.ErrorContext(ctx, "mcpwrite: idempotency store failed", "tool", tool, "op", op,
		"tenant", k.Tenant, "client_request_id", clientKey, "trace_id", id, "error", err)
	noteCause(ctx, id, err)
	return &impl.ErrorEntry{
		Code: impl.CodeUnavailable, Field: a.control().clientRequestID, TraceID: id,
		Message:     "the idempotency store is unavailable, so nothing was run or written",
		Suggestions: &impl.Suggestions{Hint: fmt.Sprintf("Retry in a few seconds with the same %s and arguments.", a.control().clientRequestID)},
	}
}

// traceID returns 16 random bytes in hex, the W3C trace-id form.
func (a *answers) traceID() string {
	var b [16]byte
	if _, err := io.ReadFull(a.cfg.rand, b[:]); err != nil {
		return "00000000000000000000000000000000"
	}
	return hex.EncodeToString(b[:])
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
