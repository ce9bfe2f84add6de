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

// labelPhase labels the calling goroutine with phase p when profile
// labels are on (cfg.profileLabels).
func labelPhase(cfg *config, p writePhase) {
	if cfg.profileLabels {
		pprof.SetGoroutineLabels(phaseLabels[p])
	}
}

// endPhases gives the goroutine back the labels of ctx, the call's
// context as the server passed it.
func endPhases(cfg *config, ctx context.Context) {
	if cfg.profileLabels {
		pprof.SetGoroutineLabels(ctx)
	}
}
