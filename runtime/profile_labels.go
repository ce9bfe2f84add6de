package runtime

import (
	"context"
	"runtime/pprof"
)

// profileLabelKey is the pprof label WithProfileLabels sets on a write
// call's goroutine; its value is the phase the call is in.
const profileLabelKey = "mcpwrite.phase"

// writePhase is a phase of a write call WithProfileLabels names.
type writePhase int

const (
	phaseFront   writePhase = iota // request context, parse, split control
	phasePrepare                   // decode, validate, enrich, request check
	phaseClaim                     // route, idempotency claim, confirmation
	phaseHandler                   // the domain's handler (its database work included)
	phaseAnswer                    // the success envelope, recording the outcome
	numPhases
)

// phaseNames are the phases' label values.
var phaseNames = [numPhases]string{"front", "prepare", "claim", "handler", "answer"}

// phaseLabels holds one labelled context per phase, built once: switching
// phases sets a goroutine's labels without allocating.
var phaseLabels = func() (ls [numPhases]context.Context) {
	for p, name := range phaseNames {
		ls[p] = pprof.WithLabels(context.Background(), pprof.Labels(profileLabelKey, name))
	}
	return ls
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
func (c *call) phase(p writePhase) {
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
