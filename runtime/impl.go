package runtime

import "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"

// The envelope types users see are defined with the decoder in
// mcpwriteimpl, which generated code uses, and re-exported here: a
// handler, a resolver or an error hook names them runtime.ErrorEntry,
// runtime.Errors and so on.
type (
	// ErrorEntry is one problem with a call, as the agent receives it. It
	// implements error, so a handler or resolver can return it directly.
	ErrorEntry = mcpwriteimpl.ErrorEntry
	// Errors is a list of problems reported together; it implements error.
	Errors = mcpwriteimpl.Errors
	// Suggestions tell the agent how to make the right call.
	Suggestions = mcpwriteimpl.Suggestions
	// Limits bound what the strict decoder accepts (WithLimits). Zero
	// fields take defaults.
	Limits = mcpwriteimpl.Limits
	// Reference is a reference resolver's answer for the text an agent
	// sent in a (mcpwrite.v1.field).agent.reference field.
	Reference = mcpwriteimpl.Reference
	// Referent is one entity an agent's reference may name.
	Referent = mcpwriteimpl.Referent
)

// Error codes a handler or an error hook commonly returns or matches; every
// code is listed in docs/architecture.md ("Errors").
const (
	CodeValidation       = mcpwriteimpl.CodeValidation
	CodeNotFound         = mcpwriteimpl.CodeNotFound
	CodeAlreadyExists    = mcpwriteimpl.CodeAlreadyExists
	CodeUnknownField     = mcpwriteimpl.CodeUnknownField
	CodeInvalidEnumValue = mcpwriteimpl.CodeInvalidEnumValue
)
