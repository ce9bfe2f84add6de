package gen

// Every write tool takes control arguments besides its request fields: the
// idempotency key and the dry-run switch (and apply_proposal takes the
// proposal's id). They follow the service's field naming, as the request
// fields do: client_request_id, dry_run and proposal_id for proto names,
// clientRequestId, dryRun and proposalId under field_naming: JSON_NAME. The
// runtime accepts the other spelling of each as an alias.

// controlNames are the control argument names of one naming.
type controlNames struct {
	clientRequestID, dryRun, proposalID string
}

var (
	snakeControl = controlNames{"client_request_id", "dry_run", "proposal_id"}
	camelControl = controlNames{"clientRequestId", "dryRun", "proposalId"}
)

// control is the naming of sm's control arguments.
func (sm *serviceModel) control() controlNames {
	if sm.jsonNames {
		return camelControl
	}
	return snakeControl
}

// isControlArg reports whether k is a write's control argument in either
// spelling.
func isControlArg(k string) bool {
	switch k {
	case snakeControl.clientRequestID, snakeControl.dryRun, camelControl.clientRequestID, camelControl.dryRun:
		return true
	}
	return false
}
