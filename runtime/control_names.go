package runtime

import (
	"fmt"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

var (
	snakeControl = controlNames{clientRequestID: argClientRequestID, dryRun: argDryRun, proposalID: "proposal_id"}
	camelControl = controlNames{clientRequestID: "clientRequestId", dryRun: "dryRun", proposalID: "proposalId"}
)

// control is the naming of r's service.
func (a *answers) control() controlNames { return controlNamesFor(a.shape.jsonNames) }

// controlNamesFor is the naming of a service whose agents see protojson
// field names (jsonNames) or proto names.
func controlNamesFor(jsonNames bool) controlNames {
	if jsonNames {
		return camelControl
	}
	return snakeControl
}

// controlAlias maps each spelling of a control argument to the other.
var controlAlias = map[string]string{
	snakeControl.clientRequestID: camelControl.clientRequestID, camelControl.clientRequestID: snakeControl.clientRequestID,
	snakeControl.dryRun: camelControl.dryRun, camelControl.dryRun: snakeControl.dryRun,
	snakeControl.proposalID: camelControl.proposalID, camelControl.proposalID: snakeControl.proposalID,
}

// alias is the other spelling of a control argument name ("" for none).
func alias(name string) string { return controlAlias[name] }

// canonical is the service's spelling of a control argument sent as name
// in either spelling ("" when name is no control argument of a write).
func (n controlNames) canonical(name string) string {
	switch name {
	case n.clientRequestID, alias(n.clientRequestID):
		return n.clientRequestID
	case n.dryRun, alias(n.dryRun):
		return n.dryRun
	}
	return ""
}

// isWriteControl reports whether a top-level key is a write's control
// argument in either spelling (what the fingerprint leaves out).
func isWriteControl(k string) bool { return idempotency.IsControlField(k) }

// bothSpellings is the error for a control argument sent under both of its
// names.
func bothSpellings(canonical string) *impl.ErrorEntry {
	other := alias(canonical)
	return &impl.ErrorEntry{
		Code: impl.CodeValidation, Field: canonical,
		Message:     fmt.Sprintf("%s and %s are the same argument; send it once", canonical, other),
		Details:     map[string]any{"arguments": []string{canonical, other}},
		Suggestions: &impl.Suggestions{Hint: fmt.Sprintf("Send %s only.", canonical)},
	}
}

// proposalIDArg is the argument of apply_proposal and discard_proposal.
func (a *answers) proposalIDArg() argSpec {
	n := a.control().proposalID
	return argSpec{name: n, alias: alias(n), kind: impl.KindString, required: true}
}

// proposalIDSchema is the input schema of apply_proposal and
// discard_proposal.
func (a *answers) proposalIDSchema() jsonSchema {
	n := a.control().proposalID
	return objectSchema(props{{n, stringSchema("The " + n + " returned by the write tool")}}, n)
}

// controlArguments lists the control arguments wt takes, in its service's
// naming: none for a read.
func controlArguments(wt *boundTool) []string {
	if wt.read {
		return []string{}
	}
	out := []string{wt.names.clientRequestID, wt.names.dryRun}
	if wt.doc.AgentSummary != "" {
		out = append(out, wt.doc.AgentSummary)
	}
	return out
}

// Names of the arguments every write tool accepts besides its own fields.
const (
	argClientRequestID = "client_request_id"
	argDryRun          = "dry_run"
)
