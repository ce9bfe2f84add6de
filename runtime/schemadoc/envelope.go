package schemadoc

// EnvelopeKey is one key of the answer envelope every tool shares, with the
// JSON Schema of its value as output schemas declare it.
type EnvelopeKey struct {
	// Name is the key.
	Name string
	// Type is the JSON Schema type of the value: boolean, object or array.
	Type string
	// Items is the JSON Schema type of an array's items; "" otherwise.
	Items string
	// Description says when the key is present; "" for a key every answer
	// has.
	Description string
}

// Envelope is the part of the answer envelope that output schemas declare:
// success in every answer, and error and errors when the call failed
// ({"success": false, "error": {...}, "errors": [...]}). The other keys
// every tool shares (suggestions, warnings, idempotent_replay, proposal,
// ...) are documented once, in docs/architecture.md, and output schemas
// stay open to them.
type Envelope struct {
	// Success is true when the call did what it was asked; always present
	// and required by a tool's own output schema.
	Success EnvelopeKey
	// Error is the first problem of a failed call.
	Error EnvelopeKey
	// Errors are every problem of a failed call.
	Errors EnvelopeKey
}

// AnswerEnvelope is the envelope's one definition: the plugin declares
// Success in every generated tool's output schema, the runtime declares all
// three in its service tools' output schemas.
func AnswerEnvelope() Envelope {
	return Envelope{
		Success: EnvelopeKey{Name: "success", Type: "boolean"},
		Error:   EnvelopeKey{Name: "error", Type: "object", Description: "The first problem, when the call failed."},
		Errors:  EnvelopeKey{Name: "errors", Type: "array", Items: "object", Description: "Every problem, when the call failed."},
	}
}
