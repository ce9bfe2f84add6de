package callmeta

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
)

// MaxTraceIDLength bounds a correlation or causation id, in bytes.
const MaxTraceIDLength = 128

// TraceIDCharset describes the bytes a correlation or causation id may
// hold: printable ASCII letters, digits and . _ : / + = @ -, so an id is
// safe in answers, log lines and outgoing headers as it is.
const TraceIDCharset = "A-Z a-z 0-9 . _ : / + = @ -"

// ValidTraceID reports whether s is a usable correlation or causation id:
// 1 to MaxTraceIDLength bytes of TraceIDCharset.
func ValidTraceID(s string) bool {
	return traceIDProblem(s) == ""
}

// traceIDProblem says why s is not a valid id ("" when it is).
func traceIDProblem(s string) string {
	if s == "" {
		return "empty"
	}
	if len(s) > MaxTraceIDLength {
		return "longer than " + strconv.Itoa(MaxTraceIDLength) + " bytes (" + strconv.Itoa(len(s)) + ")"
	}
	for i := 0; i < len(s); i++ {
		if !traceIDByte(s[i]) {
			return "byte " + strconv.Itoa(i) + " is outside " + TraceIDCharset
		}
	}
	return ""
}

func traceIDByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '.', '_', ':', '/', '+', '=', '@', '-':
		return true
	}
	return false
}

// NewTraceID returns a fresh server-generated id: 32 lower-case hex digits.
func NewTraceID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails: crypto/rand aborts the program instead
	return hex.EncodeToString(b)
}

// NewTraceParent returns a fresh W3C traceparent (sampled).
func NewTraceParent() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return "00-" + hex.EncodeToString(b[:16]) + "-" + hex.EncodeToString(b[16:]) + "-01"
}

// TraceIDReplacement records an invalid id CleanTraceIDs replaced: the
// field, why it was refused and the id that replaced it. The refused value
// itself is never kept, so it cannot reach a log.
type TraceIDReplacement struct {
	Field, Reason, Replacement string
}

// CleanTraceIDs replaces each invalid trace field of md (a correlation,
// causation or session id outside ValidTraceID, a traceparent outside
// ValidTraceParent) with a server-generated one, and reports what it
// replaced. Empty fields stay empty. The session id is checked too: a
// stateless transport takes it from the client's Mcp-Session-Id header.
func CleanTraceIDs(md *RequestMetadata) []TraceIDReplacement {
	var out []TraceIDReplacement
	for _, f := range []struct {
		name string
		v    *string
	}{{"correlation_id", &md.CorrelationID}, {"causation_id", &md.CausationID}, {"session_id", &md.SessionID}} {
		if *f.v == "" {
			continue
		}
		if why := traceIDProblem(*f.v); why != "" {
			*f.v = NewTraceID()
			out = append(out, TraceIDReplacement{Field: f.name, Reason: why, Replacement: *f.v})
		}
	}
	if md.TraceParent != "" && !ValidTraceParent(md.TraceParent) {
		md.TraceParent = NewTraceParent()
		out = append(out, TraceIDReplacement{Field: "traceparent", Reason: "not a W3C traceparent", Replacement: md.TraceParent})
	}
	return out
}
