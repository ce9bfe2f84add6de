package runtime

import (
	"context"
	"runtime/pprof"
)

// profileLabelKey is the pprof label WithProfileLabels sets on a write
// call's goroutine; its value is the phase the call is in.
const profileLabelKey = "mcpwrite.phase"

// The phases of a write call WithProfileLabels names.
const (
	phaseFront   = "front"   // request context, parse, split control
	phasePrepare = "prepare" // decode, validate, enrich, request check
	phaseClaim   = "claim"   // route, idempotency claim, confirmation
	phaseHandler = "handler" // the domain's handler (its database work included)
	phaseAnswer  = "answer"  // the success envelope, recording the outcome
)

// phaseLabels holds one labelled context per phase, built once: switching
// phases sets a goroutine's labels without allocating.
var phaseLabels = func() map[string]context.Context {
	m := map[string]context.Context{}
	for _, p := range []string{phaseFront, phasePrepare, phaseClaim, phaseHandler, phaseAnswer} {
		m[p] = pprof.WithLabels(context.Background(), pprof.Labels(profileLabelKey, p))
	}
	return m
}()

// WithProfileLabels labels the CPU a write call spends with the phase it
// is in (pprof label "mcpwrite.phase": front, prepare, claim, handler,
// answer), so a standard CPU profile splits the call's time by phase
// (go tool pprof -tagfocus mcpwrite.phase=answer ...). The handler phase
// includes what the handler calls (its database driver). The labels the
// goroutine had are restored when the call returns. Off by default; when
// off, a call pays one branch per phase.
func WithProfileLabels() Option { return option(func(c *config) { c.profileLabels = true }) }

// phase labels the calling goroutine with phase p when profile labels are
// on.
func (c *call) phase(p string) {
	if c.r.cfg.profileLabels {
		pprof.SetGoroutineLabels(phaseLabels[p])
	}
}

// endPhases gives the goroutine back the labels of ctx, the call's
// context as the server passed it.
func (r *registry) endPhases(ctx context.Context) {
	if r.cfg.profileLabels {
		pprof.SetGoroutineLabels(ctx)
	}
}
