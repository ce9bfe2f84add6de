package runtime

// The bounds of the operations tool's waits and what a long-running tool's
// answer says about following its operation: below both the operations
// tool (operations_tool.go) and the answers (answer.go).

import (
	"fmt"
	"strconv"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// The operations tool's default bounds: a call waits at most
// DefaultOperationWait for the operation to finish, asking the handler
// every DefaultOperationPoll.
const (
	DefaultOperationWait = 60 * time.Second
	DefaultOperationPoll = time.Second
)

// operationBounds are the maximum wait and the poll interval in force.
func (a *answers) operationBounds() (max, poll time.Duration) {
	max, poll = a.cfg.opWait, a.cfg.opPoll
	if max <= 0 {
		max = DefaultOperationWait
	}
	if poll <= 0 {
		poll = DefaultOperationPoll
	}
	return max, poll
}

// operationStep is the suggestion a long-running tool's answer carries: how
// to follow the operation and what it eventually holds.
func (a *answers) operationStep(d *schemadoc.Tool) string {
	op := d.Operation
	if op == nil {
		return ""
	}
	known := func(v string) string {
		if v == "" {
			return "unknown"
		}
		return "a " + v
	}
	holds := "when done, its response is " + known(op.ResponseType) + " and its metadata " + known(op.MetadataType)
	if op.Unknown != "" {
		holds += " (" + op.Unknown + ")"
	}
	if a.ops == nil || a.svc.OperationsTool == "" {
		return "The answer is a long-running operation, named by name; " + holds + ". This server offers no tool to follow it."
	}
	max, _ := a.operationBounds()
	return fmt.Sprintf("Call %s with this answer's name to follow the long-running operation (wait up to %s per call); %s.", a.svc.OperationsTool, formatSeconds(max), holds)
}

// formatSeconds writes d as seconds with an s suffix ("60s", "0.5s").
func formatSeconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}
