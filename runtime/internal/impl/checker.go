package impl

import "google.golang.org/protobuf/proto"

// RequestChecker checks a complete request, after enrichment, against the
// rules of its proto (runtime/pvcheck runs protovalidate: field rules, CEL
// and message rules). One is built per registration, never per call.
type RequestChecker interface {
	// Check returns every broken rule of req; an error means the check
	// itself failed (a rule that does not compile), a server problem.
	Check(req proto.Message) ([]Violation, error)
}

// Violation is one broken rule of a complete request.
type Violation struct {
	// Path is where the rule broke, from the request root: one step per
	// field; empty for a rule of the request message itself.
	Path []PathStep
	// RuleID is the rule's id, e.g. "string.max_len" or a CEL rule's id.
	RuleID string
	// Message is the rule's message, for the agent.
	Message string
}

// PathStep is one field of a Violation path.
type PathStep struct {
	// Field is the proto field name.
	Field string
	// Subscript is a list index ("[2]") or map key (`["k"]`) into the
	// field, "" for a singular field.
	Subscript string
}
