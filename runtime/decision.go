package runtime

// Bottom layer: what a confirmation step decides (confirmDecision) and the
// route a call's confirmation follows (confirmRoute).

import (
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// confirmRoute is how a write is confirmed, as the pipeline follows it.
type confirmRoute uint8

const (
	routeDirect  confirmRoute = iota // DIRECT: the handler runs
	routePropose                     // PROPOSAL, or ELICIT for a client that cannot ask
	routeInCall                      // ELICIT up to 2025-11-25: asked inside the call
	routeAsk                         // ELICIT from 2026-07-28: answered with an input request
	routeAnswer                      // ELICIT from 2026-07-28: the retry with the user's answer
)

// decisionKind is what a confirmation step decided.
type decisionKind uint8

const (
	proceed            decisionKind = iota // run the handler
	propose                                // store a proposal for the user to apply
	refuse                                 // answer es; nothing is written
	answerInputRequest                     // answer res, the confirmation as an input request
)

// confirmDecision is the outcome of a confirmation step. Confirmation steps
// never run the handler, store a proposal or claim the idempotency key:
// the pipeline does, on their decision.
type confirmDecision struct {
	kind decisionKind
	// es is the answer of a refusal; record says whether it is an outcome
	// recorded under the claim (a business error of a preview) rather than
	// a refusal that releases the claim.
	es     impl.Errors
	record bool
	// res is the input request.
	res *toolcall.Result
}

// refused is a refusal that releases the claim.
func refused(es ...*impl.ErrorEntry) confirmDecision { return confirmDecision{kind: refuse, es: es} }
