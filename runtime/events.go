package runtime

// Bottom layer: the observer's public types (Observer, CallStart, CallEnd)
// and the outcome and event names calls report.

import (
	"context"
	"time"
)

// Observer sees every tool call the runtime registers: write tools, service
// tools (validate, schema, apply, discard) and discovery tools. Telemetry
// lives behind it, so the runtime itself depends on no telemetry library;
// runtime/otelmcp implements it with OpenTelemetry. Without WithObserver
// nothing is measured and nothing is parsed.
type Observer interface {
	// CallStarted runs before the tool; the context it returns (carrying a
	// span, say) is the one the tool runs with.
	CallStarted(ctx context.Context, call CallStart) context.Context
	// CallEnded runs after the tool answered, with what happened.
	CallEnded(ctx context.Context, call CallEnd)
}

// CallStart is a tool call about to run.
type CallStart struct {
	Tool string
	// RequestContext is the caller as the runtime resolved it (tenant,
	// principal, correlation, the incoming traceparent); HasRequestContext
	// is false when the call has none.
	RequestContext    RequestContext
	HasRequestContext bool
}

const outcomeSuccess = "success" // the write (or read) succeeded

const proposalCreated = "created"

// CallEnd is a finished tool call.
type CallEnd struct {
	Tool string
	// Outcome is "success" (the write or read succeeded), "error" (an
	// isError result; ErrorCode says which), "proposed" (a proposal waits
	// for the user) or "input_required" (the client must ask the user and
	// call again).
	Outcome   string
	ErrorCode string // the first error's code when Outcome is "error"
	// ErrorTraceID is the trace_id the agent was given with that error, and
	// Cause the error behind it when the agent was not shown its text (an
	// INTERNAL error, a backend that is unavailable or too slow): for the
	// trace and the log, never for the agent.
	ErrorTraceID string
	Cause        error
	Replay       bool // answered from an idempotency record
	// Proposal is what happened to a proposal: "created", "applied",
	// "discarded", "expired", or "".
	Proposal string
	// Confirmation is what happened to a confirmation: "asked",
	// "accepted", "declined", "cancelled", "stale", or "".
	Confirmation string
	// Read: the tool is a read tool (kind READ), which changes nothing.
	Read     bool
	Duration time.Duration
}
