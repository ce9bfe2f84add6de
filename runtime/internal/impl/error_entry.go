package impl

import (
	"errors"
	"fmt"
)

// MaxErrorEntries is the most problems one answer lists.
const MaxErrorEntries = 20

// CodeTooManyErrors is the last entry of an answer that lists only the
// first MaxErrorEntries problems.
const CodeTooManyErrors = "TOO_MANY_ERRORS"

// Error codes of the envelope (docs/architecture.md, "Errors").
const (
	CodeValidation            = "VALIDATION_ERROR"
	CodeMissingRequired       = "MISSING_REQUIRED_FIELD"
	CodeUnknownField          = "UNKNOWN_FIELD"
	CodeInvalidType           = "INVALID_TYPE"
	CodeInvalidEnumValue      = "INVALID_ENUM_VALUE"
	CodeConstraintViolation   = "CONSTRAINT_VIOLATION"
	CodeNotFound              = "NOT_FOUND"
	CodeAlreadyExists         = "ALREADY_EXISTS"
	CodeConflict              = "CONFLICT"
	CodePermissionDenied      = "PERMISSION_DENIED"
	CodeIdempotencyKeyReused  = "IDEMPOTENCY_KEY_REUSED"
	CodeIdempotencyInProgress = "IDEMPOTENCY_IN_PROGRESS"
	CodeProposalNotFound      = "PROPOSAL_NOT_FOUND"
	CodeProposalExpired       = "PROPOSAL_EXPIRED"
	CodeProposalStale         = "PROPOSAL_STALE"
	CodeConfirmationDeclined  = "CONFIRMATION_DECLINED"
	// The user dismissed the confirmation without deciding (MCP action
	// "cancel"); CONFIRMATION_DECLINED is an explicit no.
	CodeConfirmationCancelled = "CONFIRMATION_CANCELLED"
	// The write must be confirmed by the user, the client cannot ask, and
	// the tool refuses rather than storing a proposal (elicit_fallback REFUSE).
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
	// CodeNeedsDisambiguation: a reference names several entities; the
	// answer lists them as candidates to choose by id.
	CodeNeedsDisambiguation = "NEEDS_DISAMBIGUATION"
)

// Suggestions tell the agent how to make the right call.
type Suggestions struct {
	DidYouMean  []string       `json:"did_you_mean,omitempty"`
	ValidValues []string       `json:"valid_values,omitempty"`
	Hint        string         `json:"hint,omitempty"`
	Extra       map[string]any `json:"-"` // merged into the JSON object (e.g. similar_elements)
}

// ErrorEntry is one problem with a call. It implements error so enrichment
// code and handlers can return it directly.
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

// Warning is a non-fatal remark on a valid call (e.g. MISSING_DESCRIPTION).
type Warning struct {
	Code       string `json:"code"`
	Message    string `json:"message"`
	Field      string `json:"field,omitempty"`
	Suggestion string `json:"suggestion,omitempty"`
}

// TooMany is the entry that counts n problems not listed.
func TooMany(n int) *ErrorEntry {
	return &ErrorEntry{
		Code:        CodeTooManyErrors,
		Message:     fmt.Sprintf("%d more problems are not listed", n),
		Details:     map[string]any{"not_listed": n},
		Suggestions: &Suggestions{Hint: "Fix the problems listed and call again to see the rest."},
	}
}

func article(noun string) string {
	if noun != "" && (noun[0] == 'a' || noun[0] == 'o') {
		return "an"
	}
	return "a"
}

// UserEntries finds, in an error from user code, the error entries of the
// package that defines the user-facing envelope (runtime.ErrorEntry,
// runtime.Errors) and converts them to this package's, as EntriesOf
// reports them; that package sets it when it is loaded. Nil leaves only
// this package's entries found.
var UserEntries func(err error) (es Errors, list, ok bool)

// EntriesOf reports the error entries err carries: an Errors (list) or an
// *ErrorEntry in its chain, of this package or (by UserEntries) of the
// user-facing envelope; ok is false when it carries none.
func EntriesOf(err error) (es Errors, list, ok bool) {
	if errors.As(err, &es) {
		return es, true, true
	}
	var one *ErrorEntry
	if errors.As(err, &one) && one != nil {
		return Errors{one}, false, true
	}
	if UserEntries != nil {
		return UserEntries(err)
	}
	return nil, false, false
}
