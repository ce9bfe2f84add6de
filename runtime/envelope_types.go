package runtime

import "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"

// The envelope types users see are defined with the decoder in
// runtime/internal/impl (generated code names them through mcpwriteimpl)
// and re-exported here: a
// handler, a resolver or an error hook names them runtime.ErrorEntry,
// runtime.Errors and so on.
type (
	// ErrorEntry is one problem with a call, as the agent receives it. It
	// implements error, so a handler or resolver can return it directly.
	ErrorEntry = impl.ErrorEntry
	// Errors is a list of problems reported together; it implements error.
	Errors = impl.Errors
	// Suggestions tell the agent how to make the right call.
	Suggestions = impl.Suggestions
	// Limits bound what the strict decoder accepts (WithLimits). Zero
	// fields take defaults.
	Limits = impl.Limits
	// Reference is a reference resolver's answer for the text an agent
	// sent in a (mcpwrite.v1.field).agent.reference field.
	Reference = impl.Reference
	// Referent is one entity an agent's reference may name.
	Referent = impl.Referent
)

// The error codes of the answer envelope, every one: a domain returns them
// in an ErrorEntry, clients and tests match them, and each is described in
// docs/architecture.md ("Errors"). TestRuntimeExportsEveryErrorCode keeps
// this list equal to the envelope's.
const (
	CodeValidation            = impl.CodeValidation
	CodeMissingRequired       = impl.CodeMissingRequired
	CodeUnknownField          = impl.CodeUnknownField
	CodeInvalidType           = impl.CodeInvalidType
	CodeInvalidEnumValue      = impl.CodeInvalidEnumValue
	CodeConstraintViolation   = impl.CodeConstraintViolation
	CodeNotFound              = impl.CodeNotFound
	CodeTooManyErrors         = impl.CodeTooManyErrors
	CodeAlreadyExists         = impl.CodeAlreadyExists
	CodeConflict              = impl.CodeConflict
	CodePermissionDenied      = impl.CodePermissionDenied
	CodeIdempotencyKeyReused  = impl.CodeIdempotencyKeyReused
	CodeIdempotencyInProgress = impl.CodeIdempotencyInProgress
	CodeProposalNotFound      = impl.CodeProposalNotFound
	CodeProposalExpired       = impl.CodeProposalExpired
	CodeProposalStale         = impl.CodeProposalStale
	CodeConfirmationDeclined  = impl.CodeConfirmationDeclined
	CodeConfirmationCancelled = impl.CodeConfirmationCancelled
	CodeConfirmationRequired  = impl.CodeConfirmationRequired
	CodeInternal              = impl.CodeInternal
	CodeUnknownOperation      = impl.CodeUnknownOperation
	CodeInvalidRelationship   = impl.CodeInvalidRelationship
	CodeUnavailable           = impl.CodeUnavailable
	CodeResourceExhausted     = impl.CodeResourceExhausted
	CodeUnauthenticated       = impl.CodeUnauthenticated
	CodeDeadlineExceeded      = impl.CodeDeadlineExceeded
	CodeInvalidIdempotencyKey = impl.CodeInvalidIdempotencyKey
	CodePayloadTooLarge       = impl.CodePayloadTooLarge
	CodeInvalidJSON           = impl.CodeInvalidJSON
	CodeNeedsDisambiguation   = impl.CodeNeedsDisambiguation
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
