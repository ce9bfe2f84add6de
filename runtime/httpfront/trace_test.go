package httpfront

import (
	"regexp"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/callmeta"
)

var traceParentShape = regexp.MustCompile(`^00-[0-9a-f]{32}-[0-9a-f]{16}-01$`)

// A generated traceparent is a valid W3C one, and each is new.
func TestNewTraceParent(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		tp := newTraceParent()
		if !traceParentShape.MatchString(tp) || !callmeta.ValidTraceParent(tp) {
			t.Fatalf("newTraceParent() = %q, not a valid traceparent", tp)
		}
		if seen[tp] {
			t.Fatalf("newTraceParent() repeated %q", tp)
		}
		seen[tp] = true
	}
}
