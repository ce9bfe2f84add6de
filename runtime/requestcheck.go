package runtime

import (
	"strconv"
	"strings"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// agentPath renders p with the agent-facing names of paths (proto dotted
// path to agent dotted path, every field the agent may set). agent is false
// when a step is a field the agent does not set.
func agentPath(paths map[string]string, p []impl.PathStep) (string, bool) {
	var b strings.Builder
	proto := ""
	for i, s := range p {
		if i > 0 {
			proto += "."
		}
		proto += s.Field
		a, ok := paths[proto]
		if !ok {
			b.Reset()
			for j, t := range p {
				if j > 0 {
					b.WriteByte('.')
				}
				b.WriteString(t.Field + t.Subscript)
			}
			return b.String(), false
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(a[strings.LastIndexByte(a, '.')+1:] + s.Subscript)
	}
	return b.String(), true
}

// violationCode is the envelope code of a broken rule: a missing value is
// MISSING_REQUIRED_FIELD, an enum rule INVALID_ENUM_VALUE, anything else
// CONSTRAINT_VIOLATION.
func violationCode(ruleID string) string {
	switch {
	case ruleID == "required":
		return impl.CodeMissingRequired
	case strings.HasPrefix(ruleID, "enum."):
		return CodeInvalidEnumValue
	}
	return impl.CodeConstraintViolation
}

// protoPath is the dotted proto path of p without subscripts.
func protoPath(p []impl.PathStep) string {
	names := make([]string, len(p))
	for i, s := range p {
		names[i] = s.Field
	}
	return strings.Join(names, ".")
}

// sent reports whether the agent's arguments hold the value at p. A path
// it cannot follow (a map subscript) counts as sent.
func sent(body *impl.Object, p []impl.PathStep, paths map[string]string) bool {
	obj, proto := body, ""
	for i, s := range p {
		if i > 0 {
			proto += "."
		}
		proto += s.Field
		a := paths[proto]
		if obj == nil {
			return true
		}
		v := obj.Get(a[strings.LastIndexByte(a, '.')+1:])
		if !v.Present() {
			return false
		}
		if s.Subscript != "" {
			n, err := strconv.Atoi(strings.Trim(s.Subscript, "[]"))
			if err != nil || v.Kind != impl.KindArray {
				return true
			}
			if n < 0 || n >= len(v.Arr) {
				return false
			}
			v = v.Arr[n]
		}
		obj = nil
		if v.Kind == impl.KindObject {
			obj = v.Obj
		}
	}
	return true
}
