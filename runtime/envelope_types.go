package runtime

import "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"

// The envelope types users see are defined here: a handler, a resolver
// or an error hook names them runtime.ErrorEntry, runtime.Errors and so
// on. The decoder in runtime/internal/impl keeps copies of its own (the
// ones generated code builds through mcpwriteimpl); an answer converts
// between the two where it crosses from one package to the other
// (envelope_boundary.go), field by field.

// ErrorEntry is one problem with a call, as the agent receives it. It
// implements error, so a handler or resolver can return it directly.
type ErrorEntry struct {
	Code        string         `json:"code"`
	Message     string         `json:"message"`
	Field       string         `json:"field,omitempty"`
	Details     map[string]any `json:"details,omitempty"`
	TraceID     string         `json:"trace_id,omitempty"`
	Suggestions *Suggestions   `json:"suggestions,omitempty"`
	// Rejected is the value the agent sent that an INVALID_ENUM_VALUE
	// refuses, for an error hook that answers in the domain's words; it is
	// never rendered.
	Rejected string `json:"-"`
}

func (e *ErrorEntry) Error() string {
	if e.Field != "" {
		return e.Code + ": " + e.Field + ": " + e.Message
	}
	return e.Code + ": " + e.Message
}

// Errors is a list of problems reported together; it implements error.
type Errors []*ErrorEntry

func (es Errors) Error() string {
	if len(es) == 0 {
		return "no errors"
	}
	if len(es) == 1 {
		return es[0].Error()
	}
	return es[0].Error() + " (and more)"
}

// Suggestions tell the agent how to make the right call.
type Suggestions struct {
	DidYouMean  []string       `json:"did_you_mean,omitempty"`
	ValidValues []string       `json:"valid_values,omitempty"`
	Hint        string         `json:"hint,omitempty"`
	Extra       map[string]any `json:"-"` // merged into the JSON object (e.g. similar_elements)
}

// Limits bound what the strict decoder accepts (WithLimits). Zero fields
// take defaults.
type Limits struct {
	MaxBytes       int // whole payload; default 1 MiB
	MaxDepth       int // nesting of objects and arrays; default 32
	MaxStringBytes int // one string; default 64 KiB
	MaxArrayLen    int // one array; default 1000
	MaxObjectKeys  int // one object; default 1000
}

// WithDefaults returns l with every zero or negative field set to its default.
func (l Limits) WithDefaults() Limits { return Limits(impl.Limits(l).WithDefaults()) }

// Reference is a reference resolver's answer for the text an agent sent in
// a (mcpwrite.v1.field).agent.reference field: an id or a human name.
type Reference struct {
	// Matches are the entities the text names exactly: the one whose id it
	// is, or those whose name it is. One resolves the reference; several
	// answer NEEDS_DISAMBIGUATION listing them.
	Matches []Referent
	// Known are the entities to suggest when nothing matches (for example
	// the model's elements); the runtime offers those with the closest
	// names. Optional.
	Known []Referent
}

// Referent is one entity an agent's reference may name.
type Referent struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type,omitempty"`
}

// The error codes of the answer envelope, every one: a domain returns them
// in an ErrorEntry, clients and tests match them, and each is described in
// docs/architecture.md ("Errors"). TestRuntimeExportsEveryErrorCode keeps
// this list equal to the envelope's, names and values.
const (
	CodeValidation            = "VALIDATION_ERROR"
	CodeMissingRequired       = "MISSING_REQUIRED_FIELD"
	CodeUnknownField          = "UNKNOWN_FIELD"
	CodeInvalidType           = "INVALID_TYPE"
	CodeInvalidEnumValue      = "INVALID_ENUM_VALUE"
	CodeConstraintViolation   = "CONSTRAINT_VIOLATION"
	CodeNotFound              = "NOT_FOUND"
	CodeTooManyErrors         = "TOO_MANY_ERRORS"
	CodeAlreadyExists         = "ALREADY_EXISTS"
	CodeConflict              = "CONFLICT"
	CodePermissionDenied      = "PERMISSION_DENIED"
	CodeIdempotencyKeyReused  = "IDEMPOTENCY_KEY_REUSED"
	CodeIdempotencyInProgress = "IDEMPOTENCY_IN_PROGRESS"
	CodeProposalNotFound      = "PROPOSAL_NOT_FOUND"
	CodeProposalExpired       = "PROPOSAL_EXPIRED"
	CodeProposalStale         = "PROPOSAL_STALE"
	CodeConfirmationDeclined  = "CONFIRMATION_DECLINED"
	CodeConfirmationCancelled = "CONFIRMATION_CANCELLED"
	CodeConfirmationRequired  = "CONFIRMATION_REQUIRED"
	CodeInternal              = "INTERNAL"
	CodeUnknownOperation      = "UNKNOWN_OPERATION"
	CodeInvalidRelationship   = "INVALID_RELATIONSHIP"
	CodeUnavailable           = "UNAVAILABLE"
	CodeResourceExhausted     = "RESOURCE_EXHAUSTED"
	CodeUnauthenticated       = "UNAUTHENTICATED"
	CodeDeadlineExceeded      = "DEADLINE_EXCEEDED"
	CodeInvalidIdempotencyKey = "INVALID_IDEMPOTENCY_KEY"
	CodePayloadTooLarge       = "PAYLOAD_TOO_LARGE"
	CodeInvalidJSON           = "INVALID_JSON"
	CodeNeedsDisambiguation   = "NEEDS_DISAMBIGUATION"
)

// ContentHash returns a deterministic UUID-shaped ID (RFC 9562 version 8)
// from the SHA-256 of the parts, each length-prefixed, so equal content
// gives equal IDs and ("ab","c") differs from ("a","bc"). It is the ID a
// content_hash field gets from the server, for a domain that derives the
// same ID itself.
func ContentHash(parts ...string) string { return impl.ContentHash(parts...) }

// Excerpt quotes the start of a value an agent sent, for an error message.
// The value may be personal data, so the message never repeats all of it:
// at most half its characters and at most 12 of them, then "…", inside the
// quotes ("JaneDoeSSN123" -> "JaneDo…").
func Excerpt(s string) string { return impl.Excerpt(s) }
