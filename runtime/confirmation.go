package runtime

// Bottom layer: the public values of confirmation — Confirmation, PolicyCall
// (what the policy hook sees) and EntityState (what a state preview shows) —
// and a tool's default confirmation.

import (
	"strings"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// Confirmation is how a write is confirmed before it commits.
type Confirmation string

// Confirmations, spelled as in the annotations.
const (
	ConfirmDirect   Confirmation = "DIRECT"
	ConfirmProposal Confirmation = "PROPOSAL"
	ConfirmElicit   Confirmation = "ELICIT"
)

// PolicyCall describes one call to the policy hook.
type PolicyCall struct {
	Tool           string
	Classification string // SAFE_CREATE, SAFE_UPDATE, DESTRUCTIVE_UPDATE, DESTRUCTIVE_DELETE
	Kind           string // CREATE, UPDATE, DELETE, ACTION
	RequestContext RequestContext
	// Confirmation is the tool's default, from its annotations.
	Confirmation Confirmation
}

// defaultConfirmation is the tool's annotated confirmation, or the one its
// classification implies: safe writes commit directly, destructive ones ask.
func defaultConfirmation(d *schemadoc.Tool) Confirmation {
	switch c := Confirmation(d.Confirmation); c {
	case ConfirmDirect, ConfirmProposal, ConfirmElicit:
		return c
	}
	if strings.HasPrefix(d.Classification, "DESTRUCTIVE") {
		return ConfirmElicit
	}
	return ConfirmDirect
}

// EntityState is the state of the entity a write changes, as the user who
// confirms the write is shown it. A proposal and a confirmation remember
// it; applying after it changed is refused as PROPOSAL_STALE, so a user
// never confirms one thing and gets another (an element renamed, refilled,
// or deleted and re-created under the same id in between).
type EntityState struct {
	// Target names what the write changes ("element el-1").
	Target string
	// Digest changes whenever anything the user was shown changes: a
	// version, or a hash of the fields shown.
	Digest string
	// Summary describes the state in one line ("OrderService
	// (ApplicationComponent), 2 relationships"), shown when it changed.
	Summary string
	// Type and ID name the entity in proposals ("person", "per_1");
	// optional.
	Type, ID string
	// Fields are the entity's current values of what the write may change,
	// by agent-facing argument name ({"title": "Analyst"}); a proposal shows
	// each one the request changes as a before/after diff. Optional.
	Fields map[string]any
}
