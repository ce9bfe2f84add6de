package impl

import "fmt"

// Every limit answers alike: a value past a limit of Limits, whether the
// agent wrote it in place or sent it as JSON text inside a string, is
// refused with CONSTRAINT_VIOLATION at the full path of the value, the
// limit in details.limit, how the limit counts, and what to do instead.

// Hints of the limits, sent as Suggestions.Hint.
const (
	tooDeepHint  = "Send fewer levels in one call: write the upper levels first, then add the deeper ones in further calls."
	tooManyHint  = "Send fewer in one call: split the list over further calls."
	tooLongHint  = "Send a shorter value: a longer one is kept elsewhere and referred to."
	tooLargeHint = "Send less in one call: split the work over further calls."
)

// tooDeepEntry is the answer to a value nested past the depth limit.
func tooDeepEntry(limit int) *ErrorEntry {
	return &ErrorEntry{
		Code:        CodeConstraintViolation,
		Message:     fmt.Sprintf("nesting is deeper than the limit of %d levels (objects and arrays, counted from the top of the arguments, JSON text included)", limit),
		Details:     map[string]any{"limit": limit},
		Suggestions: &Suggestions{Hint: tooDeepHint},
	}
}

// limitReport records a limit error of the parser at byte off for the
// value whose path is the first pl segments, with its limit and hint.
func (p *jsonParser) limitReport(off, pl int, msg string, limit int, hint string) {
	p.report(off, CodeConstraintViolation, msg, pl)
	if n := len(p.errs); n > 0 && p.errs[n-1].Message == msg {
		p.errs[n-1].Details = map[string]any{"limit": limit}
		p.errs[n-1].Suggestions = &Suggestions{Hint: hint}
	}
}

// tooDeep records a value at depth past the depth limit; the parse ends.
func (p *jsonParser) tooDeep(off, depth int) {
	e := tooDeepEntry(p.lim.MaxDepth)
	p.limitReport(off, depth-1, e.Message, p.lim.MaxDepth, tooDeepHint)
	p.fatal = true
}

// isLimit reports an error entry of a limit (depth, size, count).
func isLimit(e *ErrorEntry) bool {
	return e != nil && (e.Code == CodePayloadTooLarge || e.Code == CodeConstraintViolation && e.Details["limit"] != nil)
}

// reportTextLimit reports a limit error found in JSON text held by the
// field key as if the text were written in place: at key's path joined
// with the path inside the text; a depth error counts from the top of the
// arguments (limit), as the text's nesting does.
func (d *Decoder) reportTextLimit(key string, inner *ErrorEntry, limit int) {
	e := &ErrorEntry{Code: inner.Code, Message: inner.Message, Details: inner.Details, Suggestions: inner.Suggestions}
	if inner.Code == CodeConstraintViolation && inner.Details["limit"] != nil && isDepthMessage(inner.Message) {
		e = tooDeepEntry(limit)
	}
	if e.Code == CodePayloadTooLarge {
		e.Code = CodeConstraintViolation
	}
	if e.Suggestions == nil {
		e.Suggestions = &Suggestions{Hint: tooLargeHint}
	}
	d.report(key, e)
	if inner.Field != "" {
		if inner.Field[0] == '[' || e.Field == "" {
			e.Field += inner.Field
		} else {
			e.Field += "." + inner.Field
		}
	}
}

// isDepthMessage reports the depth limit's message.
func isDepthMessage(msg string) bool {
	const prefix = "nesting is deeper than the limit"
	return len(msg) >= len(prefix) && msg[:len(prefix)] == prefix
}
