package gen

// Tool examples checked by protovalidate, the code the server's request
// check runs (runtime/pvcheck): the example's request, built as the
// decoder builds it (walk_example_build.go), is validated with every
// buf.validate rule (in, not_in, formats, affixes, CEL at field and
// message level), and each violation an agent would be answered with is a
// generation error. As on the server (requestCheck), a violation counts
// when its path is a field the agent supplies; one on a field the server
// fills, or on an overridable field the example leaves for the server to
// fill, is not the example's. A message-level rule is judged only over a
// message whose every value the example determines: fields the server
// fills (other than by a constant) are absent from an example, and a rule
// reading them would be judged on values the server never sends.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"buf.build/go/protovalidate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
)

// exampleValidator is one protovalidate validator for the plugin's run; its
// rules compile per message on first use.
var exampleValidator = sync.OnceValues(func() (protovalidate.Validator, error) {
	return protovalidate.New()
})

// requestProblems lists why the server would refuse obj as t's arguments
// beyond the decoder's checks over the model (known: its problems, as
// "path: reason"): values the decoder cannot read, and, when the service
// runs the request check, the buf.validate violations of the request.
func requestProblems(t *toolModel, obj map[string]any, known []string) []string {
	x := &exampleBuild{sent: map[string]bool{}}
	req := x.message(t.input, obj, "")
	out := newProblems(x.problems, known)
	if !importsValidate(t.svc) {
		return out
	}
	vs, err := validateExample(req)
	if err != nil {
		return out // checkRequestRules reports it
	}
	skip := append(append(pathsOf(known), pathsOf(x.problems)...), x.unjudged...)
	for _, v := range vs {
		if p, ok := x.agentViolation(t.input, v, skip); ok {
			out = append(out, p)
		}
	}
	return out
}

// fieldExampleProblems lists why the server would refuse x as the value
// of field f (an example of the field): values the decoder cannot read and
// the violations of f's own buf.validate rules.
func fieldExampleProblems(f *fieldModel, v any, known []string) []string {
	x := &exampleBuild{sent: map[string]bool{}}
	msg := x.message(f.msg, map[string]any{f.agentName: v}, "")
	out := newProblems(x.problems, known)
	if fieldValidate(f.proto) == nil {
		return out
	}
	vs, err := validateExample(msg)
	if err != nil {
		return out // checkRequestRules reports it
	}
	skip := append(append(pathsOf(known), pathsOf(x.problems)...), x.unjudged...)
	for _, viol := range vs {
		if messageRule(viol) || len(viol.Proto.GetField().GetElements()) == 0 ||
			viol.Proto.GetField().GetElements()[0].GetFieldName() != string(f.proto.Desc.Name()) {
			continue // another field's rule, or the message's
		}
		if p, ok := x.agentViolation(f.msg, viol, skip); ok {
			out = append(out, p)
		}
	}
	return out
}

// validateExample runs protovalidate on req; a rule that does not compile
// (the server would not start) or a failure of the validator is an error.
func validateExample(req proto.Message) (vs []*protovalidate.Violation, err error) {
	defer func() {
		if p := recover(); p != nil {
			vs, err = nil, fmt.Errorf("protovalidate failed on the example: %v", p)
		}
	}()
	v, err := exampleValidator()
	if err != nil {
		return nil, err
	}
	err = v.Validate(req)
	var ve *protovalidate.ValidationError
	switch {
	case err == nil:
		return nil, nil
	case errors.As(err, &ve):
		return ve.Violations, nil
	}
	return nil, err
}

// agentViolation words violation v of a request of m as "path: message
// (rule id)" when the agent is answered with it, as the server's request
// check decides (requestCheck), and no path in skip (a value already
// reported or not judged) holds it.
func (x *exampleBuild) agentViolation(m *messageModel, v *protovalidate.Violation, skip []string) (string, bool) {
	path, at, ok := x.agentPath(m, v.Proto.GetField())
	if !ok {
		return "", false
	}
	msgRule := messageRule(v)
	for _, s := range skip {
		if under(path, s) || msgRule && under(s, path) {
			return "", false
		}
	}
	if msgRule && at != nil && callOnly(at, map[*messageModel]bool{}) {
		return "", false // a message rule over values only a call has
	}
	reason := v.Proto.GetMessage()
	if id := v.Proto.GetRuleId(); id != "" {
		reason += " (buf.validate rule " + id + ")"
	}
	if path == "" {
		return "the request: " + reason, true
	}
	return path + ": " + reason, true
}

// messageRule reports whether v breaks a rule of a message (a CEL rule of
// the message, a oneof rule) rather than of a field or its items: such a
// violation names no field and no rule path.
func messageRule(v *protovalidate.Violation) bool {
	return v.FieldDescriptor == nil && len(v.Proto.GetRule().GetElements()) == 0
}

// agentPath renders the protovalidate path p with agent names, as the
// decoder's paths read ("items[2].sku", "tags.red"); at is the message
// model at the end of p (nil when p ends at a scalar). ok is false when a
// step is a field the agent does not supply, or an overridable field the
// example leaves to the server.
func (x *exampleBuild) agentPath(m *messageModel, p *validate.FieldPath) (path string, at *messageModel, ok bool) {
	at = m
	for _, e := range p.GetElements() {
		if at == nil {
			return "", nil, false
		}
		f := fieldNamed(at, e.GetFieldName())
		if f == nil || !f.exposed() {
			return "", nil, false
		}
		if path != "" {
			path += "."
		}
		path += f.agentName
		if f.overridable && !x.sent[path] {
			return "", nil, false
		}
		switch s := e.GetSubscript().(type) {
		case *validate.FieldPathElement_Index:
			path += "[" + strconv.FormatUint(s.Index, 10) + "]"
		case *validate.FieldPathElement_StringKey:
			path += "." + s.StringKey
		case *validate.FieldPathElement_IntKey:
			path += "." + strconv.FormatInt(s.IntKey, 10)
		case *validate.FieldPathElement_UintKey:
			path += "." + strconv.FormatUint(s.UintKey, 10)
		case *validate.FieldPathElement_BoolKey:
			path += "." + strconv.FormatBool(s.BoolKey)
		}
		at = f.child
	}
	return path, at, true
}

// fieldNamed is m's field of proto name name.
func fieldNamed(m *messageModel, name string) *fieldModel {
	for _, f := range m.fields {
		if string(f.proto.Desc.Name()) == name {
			return f
		}
	}
	return nil
}

// callOnly reports whether some value of m (at any depth) is known
// only on a call: a field the server fills other than by a constant, or
// an overridable field the server fills when left out.
func callOnly(m *messageModel, seen map[*messageModel]bool) bool {
	if seen[m] {
		return false
	}
	seen[m] = true
	for _, f := range m.fields {
		if f.overridable || f.resolver != nil || f.fill != nil && f.fill.source != fillConstant {
			return true
		}
		if f.child != nil && callOnly(f.child, seen) {
			return true
		}
	}
	return false
}

// under reports whether path is at or below at.
func under(path, at string) bool {
	return path == at || at == "" ||
		strings.HasPrefix(path, at) && (path[len(at)] == '.' || path[len(at)] == '[')
}

// pathsOf are the paths of problems worded "path: reason".
func pathsOf(problems []string) []string {
	out := make([]string, 0, len(problems))
	for _, p := range problems {
		if i := strings.Index(p, ": "); i >= 0 {
			out = append(out, p[:i])
		}
	}
	return out
}

// newProblems are the problems of found not already in known (by path).
func newProblems(found, known []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range pathsOf(known) {
		seen[p] = true
	}
	for _, p := range found {
		if !seen[pathsOf([]string{p})[0]] {
			out = append(out, p)
		}
	}
	return out
}

// checkFieldExamplesAsRequests checks each example of f as the value of a
// call: read as the decoder reads it and, with f's buf.validate rules,
// validated by protovalidate. The checks over the model (resolveField,
// checkWholeValueExamples) report the rest.
func (b *builder) checkFieldExamplesAsRequests(f *fieldModel) {
	if f.value == nil || f.msg == nil {
		return
	}
	for _, x := range f.value.examples {
		known := exampleValueProblems(f, x, f.agentName)
		for _, p := range fieldExampleProblems(f, x, known) {
			b.probs.fieldf(f.proto, "example %s: %s; correct the example, the server would refuse it", mustJSON(x), p)
		}
	}
}

// checkRequestRules compiles the buf.validate rules of t's request as the
// server's request check does when it registers the service (runtime/pvcheck
// compiles every request's rules up front): a rule that does not compile
// would keep the server from starting, and no example could be checked.
func (b *builder) checkRequestRules(t *toolModel) {
	if !importsValidate(t.svc) || b.walkFailed {
		return
	}
	_, err := validateExample(dynamicpb.NewMessage(t.input.proto.Desc))
	var ce *protovalidate.CompilationError
	if errors.As(err, &ce) {
		first, _, _ := strings.Cut(ce.Error(), "\n")
		b.probs.methodf(t.method, "the buf.validate rules of %s do not compile: %s; correct the rule (the server's request check would not start)", t.input.proto.Desc.FullName(), strings.TrimSpace(first))
	}
}
